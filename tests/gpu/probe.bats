#!/usr/bin/env bats
# bats file_tags=gpu
#
# The GPU suite: nccl-probe and a real framework on a machine with NVIDIA
# GPUs (the target is an 8-GPU PCIe node; one GPU runs it with one rank).
# Every test skips, with the reason, when there is no GPU; the check is in
# setup, not setup_file (bats 1.8 fails the whole file when setup_file
# skips). Run it in the sandbox, like the other suites:
#
#   NCCL_INIT_BIN=$PWD/build/nccl-init scripts/sandbox.sh bats tests/gpu
#
# or through scripts/gpu-node-check.sh on the node.

load ../helpers/common
load gpu

# common.bash takes the repository to be BATS_TEST_DIRNAME/..; from
# tests/gpu that is tests/, so set what depends on it again.
REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
NI=${NCCL_INIT_BIN:-$REPO/build/nccl-init}
PROFILES=$REPO/profiles
EXEC_WITH_ENV=$REPO/build/test/exec-with-env
PROBE=${NCCL_PROBE_BIN:-$REPO/build/nccl-probe}

setup_file() {
    if [ -z "${NCCL_PROBE_BIN:-}" ]; then
        "$REPO/scripts/build-probe.sh" >"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
            { cat "$BATS_FILE_TMPDIR/build.log" >&2; return 1; }
    fi
}

setup() {
    local why
    why=$(no_gpu_reason) && skip "$why"
    [ -x "$PROBE" ] ||
        skip "no nccl-probe: $(grep -m1 '^skipped:' "$BATS_FILE_TMPDIR/build.log" 2>/dev/null || echo "$PROBE missing")"
    [ "$(id -u)" = 0 ] || skip "writes /etc/nccl.conf and /run (copy-on-write in the sandbox)"
    TMP=$(mktemp -d)
    # a clean /run/nccl-init, no /etc/nccl.conf and no stdlib hook per test
    rm -rf /run/nccl-init /etc/nccl.conf
    remove_python_hooks
    # the number of GPUs CUDA shows this process
    NGPUS=$("$PROBE" topo --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpus"])')
}

teardown() {
    rm -rf "${TMP:-/nonexistent}" /etc/nccl.conf
}

profile_of() { sed -n 's/^profile: *\([^ ]*\).*/\1/p'; }

@test "probe topo: devices, bus ids, the P2P matrix, NCCL's version" {
    run --separate-stderr "$PROBE" topo
    echo "$output"
    assert_success
    assert_line --regexp '^nccl: +2\.[0-9]+\.[0-9]+$'
    assert_line "gpus:       $NGPUS"
    assert_line --regexp '^  0  +[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9] +.+'
    assert_line --regexp '^p2p: '
    assert_line --regexp '^profile:    [a-z0-9-]+ \('
    if [ -z "${CUDA_VISIBLE_DEVICES:-}${NVIDIA_VISIBLE_DEVICES:-}" ] && command -v nvidia-smi >/dev/null; then
        assert_equal "$NGPUS" "$(nvidia-smi -L | grep -c '^GPU ')"
    fi
    run --separate-stderr "$PROBE" topo --json
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
n = d["gpus"]
assert n >= 1 and len(d["devices"]) == n, d
assert len(d["p2p_access"]) == n and all(len(r) == n for r in d["p2p_access"]), d
assert all(d["p2p_access"][i][i] is None for i in range(n)), d
assert d["nccl_version"].startswith("2."), d
print("ok")' "$output"
    assert_output ok
}

@test "probe topo suggests the profile nccl-init detect picks on this node" {
    run --separate-stderr "$NI" detect --profile-dir "$PROFILES"
    assert_success
    echo "detect: $output"
    detect_gpus=$(sed -n 's/^gpus: *\([0-9]*\).*/\1/p' <<<"$output")
    want=$(profile_of <<<"$output")
    run --separate-stderr "$PROBE" topo --rules "$PROFILES/auto.rules"
    assert_success
    echo "probe: $output"
    assert_equal "$(profile_of <<<"$output")" "$want"
    assert_equal "$NGPUS" "$detect_gpus"
}

@test "probe params under nccl-init -p pcie-8gpu: NCCL says each variable was set by environment" {
    run --separate-stderr "$NI" --profile-dir "$PROFILES" -p pcie-8gpu -- "$PROBE" params
    echo "$output"
    echo "$stderr"
    assert_line "  NCCL_PROTO=LL"
    assert_line "  NCCL_ALGO=Ring"
    assert_line --regexp '^profile:    /run/nccl-init/profile.env: 5 NCCL variables$'
    # one GPU may leave some of them unread (no peer to check P2P against);
    # on a multi-GPU node every one must reach NCCL
    if [ "$NGPUS" -ge 2 ]; then
        assert_success
        assert_line "result:     all 5 checked variables reached NCCL"
        for kv in NCCL_P2P_LEVEL=SYS NCCL_MAX_NCHANNELS=16 NCCL_BUFFSIZE=16777216; do
            assert_line "  $kv"
        done
    fi
}

@test "probe params: values from /etc/nccl.conf alone, with an empty environment" {
    run --separate-stderr "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks nccl-conf,record -- true
    assert_success
    run --separate-stderr env -i PATH=/usr/bin:/bin "$PROBE" params
    echo "$output"
    assert_line "  NCCL_PROTO=LL"
    assert_line "  NCCL_ALGO=Ring"
    [ "$NGPUS" -lt 2 ] || assert_success
}

@test "probe params under -p none against pcie-8gpu's file: MISSING, exit 1" {
    run --separate-stderr "$NI" -q --profile-dir "$PROFILES" -p none --sinks none -- \
        "$PROBE" params --profile "$PROFILES/pcie-8gpu.env"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^  MISSING   NCCL_PROTO=LL: '
    refute_line "  NCCL_PROTO=LL"
}

@test "probe allreduce: a table like all_reduce_perf, correct sums" {
    run --separate-stderr "$PROBE" allreduce --min-bytes 8 --max-bytes 1M --iters 5 --warmup 2
    echo "$output"
    assert_success
    assert_line --regexp '^# +size +count +type +redop +root +time +algbw +busbw +#wrong$'
    # 8 B .. 1 MiB doubling: 18 rows, float sum, no wrong element
    rows=$(grep -cE '^ +[0-9]+ +[0-9]+ +float +sum +-1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$' <<<"$output")
    assert_equal "$rows" 18
    assert_line --regexp '^# out of bounds values : 0 OK$'
    run --separate-stderr "$PROBE" allreduce --max-bytes 64K --iters 3 --warmup 1 --json
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
r = d["results"]
assert [x["bytes"] for x in r] == [8 << i for i in range(14)], r
assert d["wrong"] == 0 and all(x["time_us"] > 0 for x in r), d
print("ok")' "$output"
    assert_output ok
}

# The end-to-end program: the parent clears its environment, then starts
# one spawn worker per GPU; each worker sets only NCCL's debug output (its
# own log file), does a torch.distributed NCCL init over tcp:// and one
# all-reduce, and reports what NCCL_PROTO its os.environ held before init.
write_e2e() {
    cat >"$TMP/e2e.py" <<'PY'
import multiprocessing as mp
import os
import socket
import sys


def worker(rank, world, port, logdir, q):
    before = os.environ.get("NCCL_PROTO")
    os.environ["NCCL_DEBUG"] = "INFO"
    os.environ["NCCL_DEBUG_SUBSYS"] = "INIT,ENV"
    os.environ["NCCL_DEBUG_FILE"] = os.path.join(logdir, "worker%d.log" % rank)
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=world)
    t = torch.full((1024,), float(rank + 1), device="cuda")
    dist.all_reduce(t)
    torch.cuda.synchronize()
    ok = bool((t == world * (world + 1) / 2).all().item())
    dist.destroy_process_group()
    q.put((rank, ok, before))


if __name__ == "__main__":
    logdir = sys.argv[1]
    import torch
    world = torch.cuda.device_count()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    os.environ.clear()  # the workers start from a scrubbed environment
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, world, port, logdir, q)) for r in range(world)]
    for p in procs:
        p.start()
    results = sorted(q.get(timeout=600) for _ in procs)
    for p in procs:
        p.join(60)
    for rank, ok, before in results:
        print("rank %d: all-reduce %s, NCCL_PROTO before init: %s" % (rank, "ok" if ok else "WRONG", before))
    print("world %d" % world)
    sys.exit(0 if all(ok for _, ok, _ in results) and all(p.exitcode == 0 for p in procs) else 1)
PY
}

# The interpreter of the end-to-end tests. nccl-init hooks the command's own
# stdlib when it is Python, so it must live under the sandbox's
# copy-on-write /usr or /opt (not, say, a pyenv under /root).
PY=${NCCL_TEST_PYTHON:-/usr/bin/python3}

torch_or_skip() {
    local real
    real=$(readlink -f "$(command -v "$PY")" 2>/dev/null) || skip "no $PY"
    case $real in
        /usr/* | /opt/*) ;;
        *) skip "$PY is $real, outside the sandbox's copy-on-write /usr and /opt (NCCL_TEST_PYTHON)" ;;
    esac
    "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
        skip "no importable torch with CUDA for $PY (NCCL_TEST_PYTHON names another interpreter)"
}

# Every worker's NCCL log says NCCL_PROTO (and NCCL_ALGO) came from the
# environment: NCCL's own word, per process.
assert_worker_logs() {
    local n=0 f
    for f in "$TMP"/logs/worker*.log; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        grep -q 'NCCL_PROTO set by environment to LL' "$f" ||
            { echo "$f:"; cat "$f"; return 1; }
        grep -q 'NCCL_ALGO set by environment to Ring' "$f" ||
            { echo "$f:"; cat "$f"; return 1; }
    done
    assert_equal "$n" "$NGPUS"
}

@test "torch end to end: spawn workers with a scrubbed environment get the profile (all sinks)" {
    torch_or_skip
    write_e2e
    mkdir "$TMP/logs"
    run --separate-stderr timeout 900 "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu -- \
        "$PY" "$TMP/e2e.py" "$TMP/logs"
    echo "$output"
    echo "$stderr" | tail -n 20
    assert_success
    assert_line "world $NGPUS"
    # the site hook gave every worker the value before NCCL started
    assert_equal "$(grep -c 'all-reduce ok, NCCL_PROTO before init: LL$' <<<"$output")" "$NGPUS"
    assert_worker_logs
}

@test "torch end to end: the values through /etc/nccl.conf alone" {
    torch_or_skip
    write_e2e
    mkdir "$TMP/logs"
    # no site hook (removed in setup, and the nccl-conf sink writes none):
    # the workers' os.environ lacks the values; only NCCL's file read sets them
    run --separate-stderr timeout 900 "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks nccl-conf -- \
        "$PY" "$TMP/e2e.py" "$TMP/logs"
    echo "$output"
    echo "$stderr" | tail -n 20
    assert_success
    grep -qx '# BEGIN nccl-init' /etc/nccl.conf
    assert_equal "$(grep -c 'all-reduce ok, NCCL_PROTO before init: None$' <<<"$output")" "$NGPUS"
    assert_worker_logs
}
