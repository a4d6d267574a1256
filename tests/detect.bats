#!/usr/bin/env bats
# detect and --profile auto, on fake /proc and /sys trees laid out like a
# real node's (tests/fixtures/NODE, used through --root).

load helpers/common

FIX=$BATS_TEST_DIRNAME/fixtures

setup() {
    unset NVIDIA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

detect() {
    run --separate-stderr "$NI" detect --root "$FIX/$1" --profile-dir "$PROFILES" "${@:2}"
    assert_success
}

@test "8x RTX PRO 6000 Blackwell on PCIe: pcie-8gpu" {
    detect rtx-pro-6000-8x
    assert_line "gpus:       8, from driver"
    assert_line "  0000:18:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0)"
    assert_line "  0000:db:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 1)"
    assert_line "nvswitches: 0"
    assert_line "numa nodes: 2"
    assert_line --regexp "^profile:    pcie-8gpu \(several GPUs and no NVSwitch: peer-to-peer over PCIe; .*auto.rules:[0-9]+\)$"
}

@test "HGX H100 with NVSwitches: nvlink-hgx" {
    detect hgx-h100-8x
    assert_line "gpus:       8, from driver"
    assert_line --partial "NVIDIA H100 80GB HBM3"
    assert_line "nvswitches: 4"
    assert_line --regexp "^profile:    nvlink-hgx \(an NVSwitch fabric"
}

@test "2x L40S: the PCIe profile" {
    detect l40s-2x
    assert_line "gpus:       2, from driver"
    assert_line "numa nodes: 1"
    assert_line --regexp "^profile:    pcie-8gpu "
}

@test "no GPU: none" {
    detect no-gpu
    assert_line "gpus:       0, from none"
    assert_line --regexp "^profile:    none \(no NVIDIA GPU visible to this container"
}

@test "--json" {
    detect hgx-h100-8x --json
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["gpus"] == 8 and d["nvswitches"] == 4 and d["numa_nodes"] == 2, d
assert d["profile"] == "nvlink-hgx" and d["rule_line"] > 0, d
assert d["devices"][0] == {"bus": "0000:18:00.0", "model": "NVIDIA H100 80GB HBM3", "numa": 0}
print("ok")' "$output"
    assert_output ok
}

@test "NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES limit what counts" {
    NVIDIA_VISIBLE_DEVICES=0 detect rtx-pro-6000-8x
    assert_line "gpus:       1 of 8 (NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES), from driver"
    assert_line --regexp "^profile:    none \(a single GPU"
    CUDA_VISIBLE_DEVICES=0,1,2 detect rtx-pro-6000-8x
    assert_line --partial "gpus:       3 of 8"
    NVIDIA_VISIBLE_DEVICES=void detect rtx-pro-6000-8x
    assert_line --partial "gpus:       0 of 8"
    CUDA_VISIBLE_DEVICES=-1 detect l40s-2x
    assert_line --partial "gpus:       0 of 2"
    NVIDIA_VISIBLE_DEVICES=all detect l40s-2x
    assert_line "gpus:       2, from driver"
}

@test "without the driver's /proc files, sysfs alone" {
    cp -r "$FIX/hgx-h100-8x" "$TMP/node"
    rm -rf "$TMP/node/proc"
    detect ../../../"$TMP/node"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_line "gpus:       8, from sysfs"
    assert_line "  0000:18:00.0   10de:2330 (numa 0)"
    assert_line "nvswitches: 4"
}

@test "auto is the default: run and render pick the profile and say why" {
    run --separate-stderr "$NI" render --root "$FIX/rtx-pro-6000-8x" --profile-dir "$PROFILES"
    assert_success
    assert_line NCCL_PROTO=LL
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
    [[ "$stderr" == *"nccl-init: auto: 8 GPUs NVIDIA RTX PRO 6000 Blackwell Server Edition, 0 NVSwitches: pcie-8gpu (several GPUs and no NVSwitch: peer-to-peer over PCIe)"* ]]
    run --separate-stderr "$NI" render --root "$FIX/hgx-h100-8x" --profile-dir "$PROFILES" -p auto
    assert_line NCCL_INIT_PROFILE=nvlink-hgx
    refute_line --partial NCCL_PROTO
    mkdir -p "$TMP/root"
    cp -r "$FIX/no-gpu/." "$TMP/root/"
    run --separate-stderr "$NI" --root "$TMP/root" --profile-dir "$PROFILES" -- printenv NCCL_INIT_PROFILE
    assert_success
    assert_output none
    [[ "$stderr" == *"nccl-init: auto: 0 GPUs, 0 NVSwitches: none (no NVIDIA GPU visible to this container)"* ]]
}

@test "auto.rules: a bad line is reported, the next rule still applies" {
    cp "$PROFILES"/*.env "$TMP/"
    printf 'gpus=0 -> none: empty\nwatts>9000 -> pcie-8gpu: fast\n* -> nvlink-hgx: fallback\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP"
    assert_success
    [[ "$stderr" == *"auto.rules:2: unknown condition 'watts>9000'"* ]]
    assert_line --regexp "^profile:    nvlink-hgx \(fallback; .*auto.rules:3\)$"
}
