#!/usr/bin/env bats
# nccl-probe without a GPU (CPU-only CI): built from probe/*.c when the CUDA
# toolkit and the NCCL headers are there, it must fail the GPU verbs with
# one line that carries CUDA's own error string and exit 3, never crash; bad
# usage exits 2. The rule evaluation behind topo's suggestion (suggest, no
# CUDA) is detect's own engine, linked in: fed the node the probe builds, it
# must pick what nccl-init detect picks. The GPU side: tests/gpu/.
#
# The no-GPU runs hide every device with CUDA_VISIBLE_DEVICES=-1, so that
# they test the same path on a machine that has GPUs.

load helpers/common

PROBE=${NCCL_PROBE_BIN:-$REPO/build/nccl-probe}
FIX=$BATS_TEST_DIRNAME/fixtures
# The node fixtures; the IOMMU ones differ in their groups' types, which
# the probe takes from the same tree as detect.
NODES="rtx-pro-6000-8x hgx-h100-8x l40s-2x no-gpu rtx-pro-6000-8x-iommu-pt rtx-pro-6000-8x-iommu-dma
    rtx-pro-6000-8x-iommu-dma-fq rtx-pro-6000-8x-iommu-mixed rtx-pro-6000-8x-iommu-pt-acs
    h100-pcie-4x rtx-pro-6000-4x rtx-pro-6000-2x-vmd-acs"

setup_file() {
    # Builds (or finds up to date) build/nccl-probe; never skips here (bats
    # 1.8 fails the whole file when setup_file skips): setup reads the note.
    if [ -z "${NCCL_PROBE_BIN:-}" ]; then
        "$REPO/scripts/build-probe.sh" >"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
            { cat "$BATS_FILE_TMPDIR/build.log" >&2; return 1; }
    fi
}

setup() {
    if [ ! -x "$PROBE" ]; then
        skip "no nccl-probe: $(grep -m1 '^skipped:' "$BATS_FILE_TMPDIR/build.log" 2>/dev/null || echo "$PROBE missing")"
    fi
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

# CUDA's own word on this machine with every device hidden: the string of
# cudaGetDeviceCount's error, from the libcudart the probe is linked with.
cuda_error() {
    local rt
    rt=$(ldd "$PROBE" | awk '/libcudart/ { print $3; exit }')
    [ -n "$rt" ] || { echo "nccl-probe links no libcudart" >&2; return 1; }
    CUDA_VISIBLE_DEVICES=-1 python3 - "$rt" <<'PY'
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1])
rt.cudaGetErrorString.restype = ctypes.c_char_p
n = ctypes.c_int(0)
e = rt.cudaGetDeviceCount(ctypes.byref(n))
print(rt.cudaGetErrorString(e).decode() if e else "no error, %d devices" % n.value)
PY
}

# PROBE ARGS... without a device: exit 3, nothing on stdout, exactly one
# line on stderr, naming the command and carrying CUDA's error string.
no_gpu() {
    local want
    want=$(cuda_error)
    run --separate-stderr env CUDA_VISIBLE_DEVICES=-1 TMPDIR="$TMP" "$PROBE" "$@"
    echo "stderr: $stderr"
    assert_equal "$status" 3
    assert_equal "$output" ""
    assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
    [[ "$stderr" == "nccl-probe: error: $1: no usable GPU: "* ]]
    if [[ "$want" == "no error, 0 devices" ]]; then
        [[ "$stderr" == *"cudaGetDeviceCount found no device"* ]]
    else
        [[ "$stderr" == *"$want"* ]]
    fi
}

# Usage errors: exit 2, one line on stderr, nothing on stdout.
usage() {
    run --separate-stderr env CUDA_VISIBLE_DEVICES=-1 "$PROBE" "$@"
    echo "stderr: $stderr"
    assert_equal "$status" 2
    assert_equal "$output" ""
    assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
    [[ "$stderr" == "nccl-probe: "* ]]
}

@test "build-probe.sh links the CUDA runtime and libnccl, with a run path" {
    FORCE=1 run "$REPO/scripts/build-probe.sh" "$TMP/nccl-probe"
    assert_success
    [ -x "$TMP/nccl-probe" ]
    run ldd "$TMP/nccl-probe"
    assert_line --regexp 'libcudart\.so.* => /'
    assert_line --regexp 'libnccl\.so.* => /'
    refute_line --partial "not found"
    run readelf -d "$TMP/nccl-probe"
    assert_line --regexp '\((RUNPATH|RPATH)\)'
    # up to date: not built again
    run "$REPO/scripts/build-probe.sh" "$TMP/nccl-probe"
    assert_output "$TMP/nccl-probe: up to date"
}

@test "build-probe.sh without a toolkit: 'skipped: ...', exit 0, nothing built" {
    python3 -c 'import nvidia.cuda_runtime' 2>/dev/null && skip "a pip CUDA runtime wheel would be found"
    run env CUDA_HOME="$TMP/none" NCCL_HOME= "$REPO/scripts/build-probe.sh" "$TMP/p"
    assert_success
    assert_output --regexp '^skipped: no CUDA toolkit/NCCL headers'
    [ ! -e "$TMP/p" ]
}

@test "topo without a GPU: exit 3, one line with CUDA's error string" {
    no_gpu topo
}

@test "topo --json without a GPU: the same, no partial JSON" {
    no_gpu topo --json
}

@test "params without a GPU: exit 3, one line, no log file left behind" {
    no_gpu params
    assert_equal "$(ls -A "$TMP")" ""
    printf 'NCCL_PROTO=LL\n' >"$TMP/p.env"
    no_gpu params --profile "$TMP/p.env"
    assert_equal "$(ls -A "$TMP")" "p.env"
}

@test "allreduce without a GPU: exit 3, one line" {
    no_gpu allreduce
    no_gpu allreduce --min-bytes 8 --max-bytes 64M --iters 5 --warmup 1 --json
}

@test "bad usage exits 2 with one line" {
    usage
    usage bogus
    usage topo --bogus
    usage topo --rules
    usage topo --rules "$TMP/no-such-file"
    usage params --profile "$TMP/no-such-file"
    usage params extra
    usage allreduce --iters x
    usage allreduce --iters
    usage allreduce --warmup -1
    usage allreduce --max-bytes 12Q
    usage allreduce --min-bytes 1M --max-bytes 8
    usage allreduce --iters 0
    usage suggest --bogus
}

@test "--help: the commands, exit 0" {
    run "$PROBE" --help
    assert_success
    assert_line --regexp '^  topo '
    assert_line --regexp '^  params '
    assert_line --regexp '^  allreduce '
}

# The profile name of "profile:    NAME (...)", the line both print.
profile_of() { sed -n 's/^profile: *\([^ ]*\).*/\1/p'; }

# --gpu MODEL for each GPU of a fixture, as CUDA would name it (the driver's
# Model line).
fixture_gpus() {
    local m
    while IFS= read -r m; do
        printf '%s\0' --gpu "$m"
    done < <(cat "$FIX/$1"/proc/driver/nvidia/gpus/*/information 2>/dev/null | sed -n 's/^Model:[ \t]*//p')
}

@test "suggest picks what nccl-init detect picks, on every node fixture" {
    unset NVIDIA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
    for f in $NODES; do
        want=$("$NI" detect --root "$FIX/$f" --profile-dir "$PROFILES" | grep '^profile:')
        mapfile -d '' gpus < <(fixture_gpus "$f")
        run --separate-stderr "$PROBE" suggest --root "$FIX/$f" --rules "$PROFILES/auto.rules" "${gpus[@]}"
        assert_success
        # the same line, word for word
        assert_line "$want"
    done
}

# One engine runs both; what could still differ is the node it is given:
# the probe's GPUs come from --gpu (CUDA in topo), detect's from the driver,
# and both take NVSwitches and NUMA nodes from the tree under --root.
@test "suggest and detect agree condition by condition" {
    unset NVIDIA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
    mkdir "$TMP/rules"
    local conds=('gpus=8' 'gpus>=2' 'gpus>8' 'gpus<9' 'gpus<=7' 'gpus=0x8' 'gpus=010' 'gpus=8x'
        'gpus=' 'gpus==8' 'gpus>-1' 'nvswitches>=1' 'nvswitches=4' 'numa>1' 'numa=2'
        'model~RTX' 'model~rtx pro' 'model~H100' 'model~' 'model=foo' 'gpus~3' 'foo=1' '*' 'gpus'
        'gpus>=2 numa=2' 'gpus>=2 nvswitches>=1' 'model~blackwell gpus=8'
        'iommu=off' 'iommu=identity' 'iommu=dma' 'iommu=DMA' 'iommu>=dma' 'iommu~dma' 'iommu='
        'gpus>=2 iommu=dma')
    # node by node, so that each fixture's GPUs are read once
    for f in $NODES; do
        mapfile -d '' gpus < <(fixture_gpus "$f")
        for c in "${conds[@]}"; do
            printf '# test\n%s -> hit: the condition holds\n* -> miss: fell through\n' "$c" >"$TMP/rules/auto.rules"
            a=$("$NI" detect --root "$FIX/$f" --profile-dir "$TMP/rules" 2>/dev/null | profile_of)
            b=$("$PROBE" suggest --root "$FIX/$f" --rules "$TMP/rules/auto.rules" "${gpus[@]}" 2>/dev/null | profile_of)
            [ -n "$a" ] && [ "$a" = "$b" ] || { echo "'$c' on $f: detect $a, probe $b"; return 1; }
        done
    done
}

# Both print the choice with one function (init/hw/detect_print.c): the
# line is the same also when no rule holds.
@test "suggest and detect print the same line when no rule holds" {
    unset NVIDIA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
    mkdir "$TMP/rules"
    printf 'gpus=9 -> pcie-8gpu: nine\n' >"$TMP/rules/auto.rules"
    want=$("$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP/rules" | grep '^profile:')
    assert_equal "$want" "profile:    none (no rule of $TMP/rules/auto.rules matched)"
    run --separate-stderr "$PROBE" suggest --root "$FIX/l40s-2x" --rules "$TMP/rules/auto.rules" --gpu L40S --gpu L40S
    assert_success
    assert_line "$want"
}

@test "suggest --json" {
    run --separate-stderr "$PROBE" suggest --json --root "$FIX/hgx-h100-8x" --rules "$PROFILES/auto.rules" \
        --gpu "NVIDIA H100 80GB HBM3" --gpu "NVIDIA H100 80GB HBM3"
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["gpus"] == 2 and d["nvswitches"] == 4 and d["numa_nodes"] == 2, d
assert d["profile"] == "nvlink-hgx" and d["rule_line"] > 0, d
print("ok")' "$output"
    assert_output ok
}

@test "suggest: a line it does not understand is FILE:LINE: warning:, as nccl-init's; the next rule applies" {
    printf 'gpus=0 -> none: empty\nwatts>9000 -> pcie-8gpu: fast\nno arrow here\n* -> nvlink-hgx: fallback\n' >"$TMP/auto.rules"
    run --separate-stderr "$PROBE" suggest --root "$FIX/l40s-2x" --rules "$TMP/auto.rules" --gpu L40S --gpu L40S
    assert_success
    echo "stderr: $stderr"
    [[ "$stderr" == *"$TMP/auto.rules:2: warning: unknown condition 'watts>9000'"* ]]
    [[ "$stderr" == *"$TMP/auto.rules:3: warning: expected CONDITIONS -> PROFILE: REASON"* ]]
    assert_line "profile:    nvlink-hgx (fallback; $TMP/auto.rules:4)"
}
