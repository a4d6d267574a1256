#!/usr/bin/env bash
# gpu-node-check.sh: the one command an operator runs on an 8-GPU node,
# inside the image, with this repository at hand, e.g.
#
#   docker run --rm --gpus all --shm-size 8g --cap-add SYS_ADMIN \
#       -v "$PWD":/src -w /src --entrypoint bash IMAGE scripts/gpu-node-check.sh
#
# 1. builds nccl-probe when it is missing (scripts/build-probe.sh);
# 2. runs the GPU suite, bats tests/gpu, in scripts/sandbox.sh (needs root
#    with CAP_SYS_ADMIN for its mount namespace, and bats, bats-support,
#    bats-assert);
# 3. shows what NCCL itself says each side of the comparison was given
#    (nccl-probe params), then the A/B all-reduce comparison:
#      nccl-init -p pcie-8gpu --sinks none -- nccl-probe allreduce --json
#      nccl-init -p none      --sinks none -- nccl-probe allreduce --json
#    interleaved ROUNDS times (ABBA order), each from an empty environment;
# 4. prints the per-size latency ratio pcie-8gpu/none (medians of the
#    rounds) and a verdict over the small messages, 8 B .. 1 MiB, what a
#    tensor-parallel verify step sends: "profile helps", "no difference" or
#    "profile hurts" (geometric mean of the ratios beyond +-THRESHOLD %).
#
# NCCL also reads /etc/nccl.conf, which the image's nccl-init writes as
# PID 1: with the sandbox, every probe runs over a copy-on-write /etc with
# that file removed; without it, the check says when the file would leak
# into the "none" side. NCCL_CONF_FILE=/dev/null keeps ~/.nccl.conf out.
#
# usage: gpu-node-check.sh [--rounds 3] [--iters 100] [--warmup 10]
#                          [--max-bytes 64M] [--threshold 5] [--skip-suite]
# env:   NCCL_INIT_BIN (default: nccl-init on PATH, else build/nccl-init)
#        NCCL_PROBE_BIN (default: nccl-probe on PATH, else build/nccl-probe)
# exit:  0 the suite passed (or --skip-suite) and the comparison ran;
#        1 otherwise. The verdict itself does not change the status.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD

rounds=3 iters=100 warmup=10 max_bytes=64M threshold=5 suite=1
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        --warmup) warmup=$2; shift 2 ;;
        --max-bytes) max_bytes=$2; shift 2 ;;
        --threshold) threshold=$2; shift 2 ;;
        --skip-suite) suite=0; shift ;;
        -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "gpu-node-check.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done

say() { printf '\n== %s\n' "$*"; }
failed=0

# --- the binaries and the profiles ------------------------------------------
NI=${NCCL_INIT_BIN:-$(command -v nccl-init || echo "$REPO/build/nccl-init")}
[ -x "$NI" ] || { echo "gpu-node-check.sh: no nccl-init ($NI): make, or set NCCL_INIT_BIN" >&2; exit 1; }
if [ -z "${NCCL_PROBE_BIN:-}" ] && ! command -v nccl-probe >/dev/null; then
    scripts/build-probe.sh || exit 1
fi
PROBE=${NCCL_PROBE_BIN:-$(command -v nccl-probe || echo "$REPO/build/nccl-probe")}
[ -x "$PROBE" ] || { echo "gpu-node-check.sh: no nccl-probe ($PROBE): the CUDA toolkit or NCCL headers are missing" >&2; exit 1; }
# The image's profiles when it has them; the repository's otherwise.
PD=/etc/nccl-init/profiles
[ -r "$PD/pcie-8gpu.env" ] && [ -r "$PD/none.env" ] || PD=$REPO/profiles
echo "nccl-init:  $NI"
echo "nccl-probe: $PROBE"
echo "profiles:   $PD"

sandbox_ok=0
if [ "$(id -u)" = 0 ] && scripts/sandbox.sh true 2>/dev/null; then
    sandbox_ok=1
fi

say "topology"
"$PROBE" topo --rules "$PD/auto.rules"
rc=$?
if [ "$rc" = 3 ]; then
    echo "gpu-node-check.sh: no GPU here: nothing to check" >&2
    exit 1
fi
[ "$rc" = 0 ] || failed=1
"$NI" detect --profile-dir "$PD" | grep '^profile:' | sed 's/^/nccl-init detect /'

# --- the GPU suite ------------------------------------------------------------
if [ "$suite" = 1 ]; then
    say "GPU suite (bats tests/gpu)"
    if ! command -v bats >/dev/null || [ ! -e /usr/lib/bats/bats-support/load.bash ] ||
        [ ! -e /usr/lib/bats/bats-assert/load.bash ]; then
        echo "not run: needs bats, bats-support and bats-assert (Debian: apt-get install bats bats-support bats-assert)"
        failed=1
    elif [ "$sandbox_ok" != 1 ]; then
        echo "not run: scripts/sandbox.sh needs root with CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN)"
        failed=1
    else
        NCCL_INIT_BIN=$NI NCCL_PROBE_BIN=$PROBE scripts/sandbox.sh bats tests/gpu || failed=1
    fi
fi

# --- A/B ------------------------------------------------------------------------
# One arm: PROFILE, then the probe's arguments; an empty environment but for
# what finds the GPUs and the libraries.
arm() {
    local profile=$1
    shift
    local keep=(PATH="$PATH" HOME="${HOME:-/root}" NCCL_CONF_FILE=/dev/null)
    local v
    for v in LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES TMPDIR; do
        [ -n "${!v+x}" ] && keep+=("$v=${!v}")
    done
    local cmd=(env -i "${keep[@]}" "$NI" -q --profile-dir "$PD" -p "$profile" --sinks none -- "$PROBE" "$@")
    if [ "$sandbox_ok" = 1 ]; then
        scripts/sandbox.sh bash -c 'rm -f /etc/nccl.conf; exec "$@"' arm "${cmd[@]}"
    else
        "${cmd[@]}"
    fi
}

say "what NCCL says each side was given (nccl-probe params)"
if [ "$sandbox_ok" != 1 ] && grep -qs '^NCCL_' /etc/nccl.conf; then
    echo "warning: /etc/nccl.conf sets $(grep -c '^NCCL_' /etc/nccl.conf) NCCL variables and the sandbox is not"
    echo "         available: NCCL applies them on both sides, the 'none' side included"
fi
echo "-- pcie-8gpu:"
arm pcie-8gpu params --profile "$PD/pcie-8gpu.env" ||
    echo "warning: not every variable of pcie-8gpu reached NCCL (above)"
echo "-- none:"
none_params=$(arm none params --profile "$PD/none.env")
printf '%s\n' "$none_params"
none_set=$(sed -n 's/^set by environment, as NCCL logs it: //p' <<<"$none_params")
contaminated=0
if [ "${none_set:-0}" != 0 ]; then
    echo "warning: NCCL reports $none_set variable(s) set on the 'none' side: the comparison is not clean"
    contaminated=1
fi

say "A/B all-reduce: pcie-8gpu vs none, $rounds rounds, iters $iters, warmup $warmup"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
probe_args=(allreduce --json --min-bytes 8 --max-bytes "$max_bytes" --iters "$iters" --warmup "$warmup")
ab_ok=1
for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) = 1 ]; then order=(pcie-8gpu none); else order=(none pcie-8gpu); fi
    for p in "${order[@]}"; do
        printf 'round %d: %-10s ' "$r" "$p"
        if arm "$p" "${probe_args[@]}" >"$out/$p.$r.json" 2>"$out/$p.$r.err"; then
            echo ok
        else
            echo "FAILED"
            cat "$out/$p.$r.err"
            ab_ok=0
        fi
    done
done
[ "$ab_ok" = 1 ] || { echo "gpu-node-check.sh: the comparison did not run through" >&2; exit 1; }

python3 - "$out" "$rounds" "$threshold" "$contaminated" <<'PY' || failed=1
import json, math, os, statistics, sys

out, rounds, threshold, contaminated = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
def load(profile):
    runs = [json.load(open(os.path.join(out, "%s.%d.json" % (profile, r)))) for r in range(1, rounds + 1)]
    times, bus = {}, {}
    for run in runs:
        if run.get("wrong"):
            sys.exit("%s: %d wrong elements in an all-reduce" % (profile, run["wrong"]))
        for x in run["results"]:
            times.setdefault(x["bytes"], []).append(x["time_us"])
            bus.setdefault(x["bytes"], []).append(x["busbw_gbs"])
    return runs[0]["ranks"], {b: statistics.median(t) for b, t in times.items()}, \
        {b: statistics.median(v) for b, v in bus.items()}

ranks, a, abus = load("pcie-8gpu")
_, b, bbus = load("none")
def size(n):
    for unit, s in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << s and n % (1 << s) == 0:
            return "%d %s" % (n >> s, unit)
    return "%d B" % n
print("%d ranks; medians of %d rounds; ratio = pcie-8gpu / none (below 1: the profile is faster)" % (ranks, rounds))
print("%10s  %12s  %12s  %7s  %12s  %12s" % ("size", "none (us)", "pcie-8gpu", "ratio", "busbw none", "busbw pcie"))
small = []
for n in sorted(a):
    if n not in b:
        continue
    ratio = a[n] / b[n] if b[n] > 0 else float("nan")
    mark = ""
    if n <= 1 << 20:
        small.append(ratio)
        mark = "  *"
    print("%10s  %12.2f  %12.2f  %7.3f  %12.2f  %12.2f%s" % (size(n), b[n], a[n], ratio, bbus[n], abus[n], mark))
if not small:
    sys.exit("no sizes between 8 B and 1 MiB")
g = math.exp(sum(math.log(r) for r in small) / len(small))
lo, hi = 1 - threshold / 100, 1 + threshold / 100
verdict = "profile helps" if g < lo else "profile hurts" if g > hi else "no difference"
print("* small messages: %d sizes, 8 B .. 1 MiB; latency ratio %.3f (geometric mean), min %.3f, max %.3f"
      % (len(small), g, min(small), max(small)))
note = " (not clean: NCCL saw variables on the 'none' side)" if contaminated else ""
print("verdict: %s: pcie-8gpu takes %.0f%% of none's time on small all-reduces, %d ranks, threshold +-%g%%%s"
      % (verdict, 100 * g, ranks, threshold, note))
PY
exit "$failed"
