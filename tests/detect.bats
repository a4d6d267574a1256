#!/usr/bin/env bats
# detect and --profile auto, on fake /proc and /sys trees laid out like a
# real node's (tests/fixtures/NODE, used through --root).

load helpers/common

FIX=$BATS_TEST_DIRNAME/fixtures

# The reasons of profiles/auto.rules, as detect and the log print them.
PCIE_REASON="measured on this hardware: 8 RTX PRO 6000 Blackwell on PCIe, no NVSwitch, peer-to-peer over PCIe"
IOMMU_REASON="pcie-8gpu was measured on these GPUs with the IOMMU off or in passthrough, not translating; P2P through a translating IOMMU can hang, and pcie-p2p-off turns it off; pass -p pcie-p2p-off to try it"
UNMEASURED="no rule was measured on this node; pcie-8gpu was measured on 8 RTX PRO 6000 Blackwell on PCIe; pass -p pcie-8gpu to try it"

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
    assert_line --regexp "^profile:    pcie-8gpu \(${PCIE_REASON}; .*auto.rules:[0-9]+\)$"
}

@test "HGX H100 with NVSwitches: nvlink-hgx" {
    detect hgx-h100-8x
    assert_line "gpus:       8, from driver"
    assert_line --partial "NVIDIA H100 80GB HBM3"
    assert_line "nvswitches: 4"
    assert_line --regexp "^profile:    nvlink-hgx \(an NVSwitch fabric"
}

# A tuned profile only on the hardware it was measured on: pcie-8gpu's
# values (NCCL_PROTO=LL among them, which caps large-message bandwidth)
# come from 8 RTX PRO 6000 Blackwell on PCIe. Other PCIe nodes get none,
# and the words say why and what to try.
@test "2x L40S: none, no rule was measured on it, pcie-8gpu as the hint" {
    detect l40s-2x
    assert_line "gpus:       2, from driver"
    assert_line "  0000:41:00.0   NVIDIA L40S (numa 0)"
    assert_line "numa nodes: 1"
    assert_line --regexp "^profile:    none \(${UNMEASURED}; .*auto.rules:[0-9]+\)$"
    detect l40s-2x --json
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["profile"] == "none" and d["hint"] == "pcie-8gpu", d
assert d["reason"].startswith("no rule was measured on this node; "), d
print("ok")' "$output"
    assert_output ok
}

@test "4x H100 PCIe, 4x RTX PRO 6000 (the count counts), 2 behind VMD: none" {
    detect h100-pcie-4x
    assert_line "gpus:       4, from driver"
    assert_line "  0000:ca:00.0   NVIDIA H100 PCIe (numa 1)"
    assert_line "nvswitches: 0"
    assert_line "numa nodes: 2"
    assert_line --regexp "^profile:    none \(${UNMEASURED}; "
    detect rtx-pro-6000-4x
    assert_line "  0000:17:00.0   NVIDIA RTX PRO 6000 Blackwell Workstation Edition (numa 0)"
    assert_line --regexp "^profile:    none \(${UNMEASURED}; "
    detect rtx-pro-6000-2x-vmd-acs
    assert_line --regexp "^profile:    none \(${UNMEASURED}; "
    # four of the eight measured GPUs are not the measured node either
    NVIDIA_VISIBLE_DEVICES=0,1,2,3 detect rtx-pro-6000-8x
    assert_line --regexp "^profile:    none \(${UNMEASURED}; "
}

@test "a translating IOMMU on a node no rule was measured on: none, pcie-p2p-off as the hint" {
    cp -r "$FIX/rtx-pro-6000-2x-vmd-acs" "$TMP/node"
    echo DMA >"$TMP/node/sys/kernel/iommu_groups/12/type"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_success
    assert_line "iommu:      dma"
    assert_line --regexp "^profile:    none \(no rule was measured on this node; pcie-p2p-off turns P2P off, .*; pass -p pcie-p2p-off to try it; "
}

@test "the start: none on an unmeasured node, saying why and what to try; the measured node's profile" {
    run --separate-stderr "$NI" render --root "$FIX/l40s-2x" --profile-dir "$PROFILES"
    assert_success
    assert_line NCCL_INIT_PROFILE=none
    refute_line --partial NCCL_PROTO
    [[ "$stderr" == *"nccl-init: auto: 2 GPUs NVIDIA L40S, 0 NVSwitches: none (${UNMEASURED})"* ]]
    run --separate-stderr "$NI" render --root "$FIX/h100-pcie-4x" --profile-dir "$PROFILES"
    assert_line NCCL_INIT_PROFILE=none
    for node in rtx-pro-6000-8x rtx-pro-6000-8x-iommu-pt; do
        run --separate-stderr "$NI" render --root "$FIX/$node" --profile-dir "$PROFILES"
        assert_line NCCL_INIT_PROFILE=pcie-8gpu
    done
    # the measured GPUs with the IOMMU translating were not measured either
    run --separate-stderr "$NI" render --root "$FIX/rtx-pro-6000-8x-iommu-dma" --profile-dir "$PROFILES"
    assert_line NCCL_INIT_PROFILE=none
    refute_line --partial NCCL_P2P
}

@test "without the driver's /proc files: the measured GPUs by PCI id, 10de:2bb5" {
    cp -r "$FIX/rtx-pro-6000-8x" "$TMP/node"
    rm -rf "$TMP/node/proc"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_success
    assert_line "gpus:       8, from sysfs"
    assert_line "  0000:18:00.0   10de:2bb5 (numa 0)"
    assert_line --regexp "^profile:    pcie-8gpu \(${PCIE_REASON}; "
    rm -rf "$TMP/node"
    cp -r "$FIX/h100-pcie-4x" "$TMP/node"
    rm -rf "$TMP/node/proc"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_line "  0000:4a:00.0   10de:2331 (numa 0)"
    assert_line --regexp "^profile:    none \(${UNMEASURED}; "
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
assert d["devices"][0] == {"bus": "0000:18:00.0", "model": "NVIDIA H100 80GB HBM3", "numa": 0,
                          "iommu_group": -1, "iommu": ""}, d["devices"][0]
assert d["iommu"] == "off", d
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
    [[ "$stderr" == *"nccl-init: auto: 8 GPUs NVIDIA RTX PRO 6000 Blackwell Server Edition, 0 NVSwitches: pcie-8gpu (${PCIE_REASON})"* ]]
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
    [[ "$stderr" == *"auto.rules:2: warning: unknown condition 'watts>9000'"* ]]
    assert_line --regexp "^profile:    nvlink-hgx \(fallback; .*auto.rules:3\)$"
}

@test "no auto.rules: the hardware, and profile none saying why, in text and JSON" {
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP/none"
    assert_success
    assert_line "gpus:       2, from driver"
    assert_line "profile:    none (no rules file: No such file or directory; $TMP/none/auto.rules)"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP/none" --json
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["gpus"] == 2 and d["profile"] == "none" and d["rule_line"] == 0, d
assert d["reason"] == "no rules file: No such file or directory", d
assert d["rules"] == sys.argv[2], d
print("ok")' "$output" "$TMP/none/auto.rules"
    assert_output ok
}

@test "auto.rules: values in quotes, lists of values, hint=" {
    printf '%s\n' \
        'model~"L40S",foo gpus=3 -> pcie-8gpu: not three' \
        'model~"RTX PRO 6000 Blackwell" -> pcie-8gpu: not an L40S' \
        'model~"nvidia l40s" gpus=4,2 iommu=identity,off -> none hint=pcie-8gpu: quoted, listed' \
        '* -> nvlink-hgx: fallback' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP"
    assert_success
    assert_line "profile:    none (quoted, listed; pass -p pcie-8gpu to try it; $TMP/auto.rules:3)"
    [ -z "$stderr" ]
    # every GPU has to match the same value: 10de:26b9 is the L40S of sysfs
    cp -r "$FIX/l40s-2x" "$TMP/node"
    rm -r "$TMP/node/proc"
    printf 'model~"NVIDIA L40S",10de:26b9 -> pcie-8gpu: by id\n* -> none: no\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$TMP"
    assert_line "profile:    pcie-8gpu (by id; $TMP/auto.rules:1)"
}

@test "auto.rules: a quote left open, text after a quote, an empty value, no profile: warnings, the line skipped" {
    printf '%s\n' \
        'model~"L40S -> none: open quote' \
        'model~"L40S"x -> none: text after the quote' \
        'gpus=2, -> none: empty value' \
        'gpus=2 -> : no profile' \
        'gpus=2 -> none hint=: empty hint' \
        'model~"a->b" -> none: an arrow in quotes is text' \
        '* -> pcie-8gpu: fallback' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP"
    assert_success
    [[ "$stderr" == *"auto.rules:1: warning: expected CONDITIONS -> PROFILE: REASON"* ]]
    [[ "$stderr" == *"auto.rules:2: warning: unknown condition 'model~\"L40S\"x'"* ]]
    [[ "$stderr" == *"auto.rules:3: warning: unknown condition 'gpus=2,'"* ]]
    [[ "$stderr" == *"auto.rules:4: warning: expected CONDITIONS -> PROFILE [hint=PROFILE]: REASON"* ]]
    [[ "$stderr" == *"auto.rules:5: warning: expected CONDITIONS -> PROFILE [hint=PROFILE]: REASON"* ]]
    [ "$(grep -c warning <<<"$stderr")" = 5 ]
    assert_line "profile:    pcie-8gpu (fallback; $TMP/auto.rules:7)"
}

@test "auto.rules where no rule holds: profile none, naming the file" {
    printf 'gpus=9 -> pcie-8gpu: nine\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP"
    assert_success
    assert_line "profile:    none (no rule of $TMP/auto.rules matched)"
    [ -z "$stderr" ]
}

# IOMMU: the 8x RTX PRO 6000 node again, with an IOMMU group per GPU
# (sys/bus/pci/devices/BUS/iommu_group -> ../../../../kernel/iommu_groups/N,
# N/type as the kernel writes it): rtx-pro-6000-8x-iommu-pt (identity),
# -dma (DMA), -dma-fq (DMA-FQ) and -mixed (the four GPUs of socket 0
# identity, the four of socket 1 DMA). rtx-pro-6000-8x itself has no
# sys/kernel/iommu_groups: the node without an IOMMU.


@test "no IOMMU (no /sys/kernel/iommu_groups): iommu off, pcie-8gpu" {
    [ ! -e "$FIX/rtx-pro-6000-8x/sys/kernel/iommu_groups" ]
    detect rtx-pro-6000-8x
    assert_line "  0000:18:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0)"
    assert_line "iommu:      off"
    assert_line --regexp "^profile:    pcie-8gpu \(${PCIE_REASON}; "
}

@test "IOMMU in passthrough (identity): each GPU's group, pcie-8gpu" {
    detect rtx-pro-6000-8x-iommu-pt
    assert_line "  0000:18:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0, iommu group 24 identity)"
    assert_line "  0000:db:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 1, iommu group 139 identity)"
    assert_line "iommu:      identity"
    assert_line --regexp "^profile:    pcie-8gpu \(${PCIE_REASON}; .*auto.rules:[0-9]+\)$"
}

@test "IOMMU translating (DMA, DMA-FQ): none, and why, pcie-p2p-off as the hint" {
    detect rtx-pro-6000-8x-iommu-dma
    assert_line "  0000:18:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0, iommu group 24 DMA)"
    assert_line "  0000:ab:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 1, iommu group 108 DMA)"
    assert_line "iommu:      dma"
    assert_line --regexp "^profile:    none \(${IOMMU_REASON}; .*auto.rules:[0-9]+\)$"
    detect rtx-pro-6000-8x-iommu-dma-fq
    assert_line "  0000:2a:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0, iommu group 35 DMA-FQ)"
    assert_line "iommu:      dma"
    assert_line --regexp "^profile:    none \(${IOMMU_REASON}; "
}

@test "mixed groups: one translated GPU makes the node dma, visible or not" {
    detect rtx-pro-6000-8x-iommu-mixed
    assert_line "  0000:5d:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0, iommu group 59 identity)"
    assert_line "  0000:9a:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 1, iommu group 96 DMA)"
    assert_line "iommu:      dma"
    assert_line --regexp "^profile:    none \(${IOMMU_REASON}; "
    # the variables count GPUs without naming them: every GPU found counts
    # (two GPUs are not the measured node: none, with the IOMMU's hint)
    NVIDIA_VISIBLE_DEVICES=0,1 detect rtx-pro-6000-8x-iommu-mixed
    assert_line --partial "gpus:       2 of 8"
    assert_line "iommu:      dma"
    assert_line --regexp "^profile:    none \(no rule was measured on this node; .*; pass -p pcie-p2p-off to try it; "
}

@test "IOMMU --json: each device's group and type, the node's mode" {
    for node in rtx-pro-6000-8x:off:-1: rtx-pro-6000-8x-iommu-pt:identity:24:identity \
        rtx-pro-6000-8x-iommu-dma:dma:24:DMA rtx-pro-6000-8x-iommu-dma-fq:dma:24:DMA-FQ \
        rtx-pro-6000-8x-iommu-mixed:dma:24:identity; do
        IFS=: read -r f mode group type <<<"$node"
        detect "$f" --json
        run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
mode, group, typ = sys.argv[2], int(sys.argv[3]), sys.argv[4]
assert d["iommu"] == mode, d
dev = d["devices"][0]
assert dev["bus"] == "0000:18:00.0" and dev["iommu_group"] == group and dev["iommu"] == typ, dev
assert d["profile"] == ("none" if mode == "dma" else "pcie-8gpu"), d
assert d["hint"] == ("pcie-p2p-off" if mode == "dma" else None), d
print("ok")' "$output" "$mode" "$group" "$type"
        assert_output ok
    done
    detect rtx-pro-6000-8x-iommu-mixed --json
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(" ".join("%d:%s" % (x["iommu_group"], x["iommu"]) for x in d["devices"]))' "$output"
    assert_output "24:identity 35:identity 47:identity 59:identity 96:DMA 108:DMA 121:DMA 139:DMA"
}

@test "IOMMU group without a type file (Linux before 5.11): counted as translated" {
    cp -r "$FIX/rtx-pro-6000-8x-iommu-pt" "$TMP/node"
    rm "$TMP"/node/sys/kernel/iommu_groups/*/type
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_success
    assert_line "  0000:18:00.0   NVIDIA RTX PRO 6000 Blackwell Server Edition (numa 0, iommu group 24)"
    assert_line "iommu:      dma"
    assert_line --regexp "^profile:    none \(${IOMMU_REASON}; "
}

# The measured GPUs with a translating IOMMU were not measured: none, no
# NCCL variable at all (NCCL's own choices, as without nccl-init), and the
# log says why and names pcie-p2p-off.
@test "auto on a translating node: none, no NCCL variable, pcie-p2p-off the hint; the log says why" {
    run --separate-stderr "$NI" render --root "$FIX/rtx-pro-6000-8x-iommu-dma" --profile-dir "$PROFILES"
    assert_success
    assert_line NCCL_INIT_PROFILE=none
    [ "$(grep -c '^NCCL_' <<<"$output" | tr -d ' ')" = 2 ] # NCCL_INIT_PROFILE and _DIGEST
    [[ "$stderr" == *"nccl-init: auto: 8 GPUs NVIDIA RTX PRO 6000 Blackwell Server Edition, 0 NVSwitches: none (${IOMMU_REASON})"* ]]
    # auto's choice sets no level: no warning about one
    [[ "$stderr" != *"warning: NCCL_P2P"* ]]
}

@test "auto.rules: iommu= takes off, identity or dma, with = only" {
    cp "$PROFILES"/*.env "$TMP/"
    printf 'iommu=DMA -> none: case\niommu>=dma -> none: op\niommu=pt -> none: word\niommu=identity -> pcie-8gpu: pt\n* -> none: fallback\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/rtx-pro-6000-8x-iommu-pt" --profile-dir "$TMP"
    assert_success
    [[ "$stderr" == *"auto.rules:1: warning: unknown condition 'iommu=DMA'"* ]]
    [[ "$stderr" == *"auto.rules:2: warning: unknown condition 'iommu>=dma'"* ]]
    [[ "$stderr" == *"auto.rules:3: warning: unknown condition 'iommu=pt'"* ]]
    assert_line --regexp "^profile:    pcie-8gpu \(pt; .*auto.rules:4\)$"
    printf 'iommu=off -> none: off\niommu=dma -> pcie-8gpu-iommu: dma\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/rtx-pro-6000-8x" --profile-dir "$TMP"
    assert_line --regexp "^profile:    none \(off; "
    run --separate-stderr "$NI" detect --root "$FIX/rtx-pro-6000-8x-iommu-dma-fq" --profile-dir "$TMP"
    assert_line --regexp "^profile:    pcie-8gpu-iommu \(dma; "
    [ -z "$stderr" ]
}

# ACS: rtx-pro-6000-8x-iommu-pt-acs is the passthrough node with its GPUs
# where real sysfs has them, each below a root port
# (sys/bus/pci/devices/0000:18:00.0 ->
# ../../../devices/pci0000:17/0000:17:01.0/0000:18:00.0, and the port's own
# link 0000:17:01.0). Each port's config is 4096 bytes: AER at 0x100, then
# ACS at 0x148 with ACSCtl (0x14e) 0x001d, SrcValid ReqRedir CmpltRedir
# UpstreamFwd, as on the bridges of NVIDIA/nccl#2079. The tests change
# copies of it.
ACS_NODE=rtx-pro-6000-8x-iommu-pt-acs

# acs_node: a copy of the ACS node in $TMP/node; ports lists its root ports' configs.
acs_node() {
    cp -r "$FIX/$ACS_NODE" "$TMP/node"
    ports=("$TMP"/node/sys/devices/pci0000:*/0000:*/config)
    [ "${#ports[@]}" = 8 ]
}

# poke OFFSET BYTES FILE...: writes BYTES (printf escapes) at OFFSET.
poke() {
    local f
    for f in "${@:3}"; do
        printf "$2" | dd of="$f" bs=1 seek=$(($1)) conv=notrunc status=none
    done
}

acs_json() {
    run --separate-stderr "$NI" detect --root "$1" --profile-dir "$PROFILES" --json
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(d["acs"], d["acs_gpus"], d["iommu"], d["profile"])' "$output"
}

@test "ACS redirect on the root ports: acs on, above how many GPUs; the profile as before" {
    detect $ACS_NODE
    assert_line "iommu:      identity"
    assert_line "acs:        on, redirecting above 8 GPUs"
    assert_line --regexp "^profile:    pcie-8gpu \(${PCIE_REASON}; "
    acs_json "$FIX/$ACS_NODE"
    assert_output "on 8 identity pcie-8gpu"
    # Egress Control alone counts; two ports without any redirect bit
    acs_node
    poke 0x14e '\x20\x00' "${ports[0]}"
    poke 0x14e '\x01\x00' "${ports[1]}" "${ports[2]}"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_line "acs:        on, redirecting above 6 GPUs"
    acs_json "$TMP/node"
    assert_output "on 6 identity pcie-8gpu"
}

@test "ACS present, no redirect bit (SrcValid alone): acs off" {
    acs_node
    poke 0x14e '\x01\x00' "${ports[@]}"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_success
    assert_line "acs:        off"
    acs_json "$TMP/node"
    assert_output "off 0 identity pcie-8gpu"
}

@test "config space cut at 64 bytes (not root): acs unreadable; one port read with redirect: on" {
    acs_node
    truncate -s 64 "${ports[@]}"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_success
    assert_line "acs:        unreadable (needs root)"
    acs_json "$TMP/node"
    assert_output "unreadable 0 identity pcie-8gpu"
    cp "$FIX/$ACS_NODE/sys/devices/pci0000:17/0000:17:01.0/config" "${ports[0]}"
    acs_json "$TMP/node"
    assert_output "on 1 identity pcie-8gpu"
}

@test "no ACS: no bridges in the GPUs' links, no ACS capability, a looping list" {
    detect rtx-pro-6000-8x
    assert_line "acs:        none"
    acs_json "$FIX/rtx-pro-6000-8x"
    assert_output "none 0 off pcie-8gpu"
    acs_node
    poke 0x148 '\x0e\x00' "${ports[@]}" # another capability ID (ARI) in ACS's place
    acs_json "$TMP/node"
    assert_output "none 0 identity pcie-8gpu"
    poke 0x102 '\x01\x10' "${ports[@]}" # AER's next: itself, 0x100
    acs_json "$TMP/node"
    assert_output "none 0 identity pcie-8gpu"
}

# Intel VMD puts the PCIe ports behind it in PCI domains from 10000, five
# hex digits: rtx-pro-6000-2x-vmd-acs has two GPUs below the root ports
# 10000:00:02.0 and 10000:00:03.0 (sys/bus/pci/devices/10000:01:00.0 ->
# ../../../devices/pci0000:00/0000:00:0e.0/pci10000:00/10000:00:02.0/10000:01:00.0),
# with ACSCtl 0x001d as on the other ACS node.
@test "ACS behind Intel VMD (domain 10000): the root ports are read" {
    detect rtx-pro-6000-2x-vmd-acs
    assert_line "  10000:01:00.0  NVIDIA RTX PRO 6000 Blackwell Workstation Edition (numa 0, iommu group 12 identity)"
    assert_line "iommu:      identity"
    assert_line "acs:        on, redirecting above 2 GPUs"
    cp -r "$FIX/rtx-pro-6000-2x-vmd-acs" "$TMP/node"
    poke 0x14e '\x01\x00' "$TMP"/node/sys/devices/pci0000:00/0000:00:0e.0/pci10000:00/*/config
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$PROFILES"
    assert_line "acs:        off"
}

# The driver's model line and the bus (a directory name) are the machine's
# words; a rules file's reason is a file's: none reaches the terminal raw.
@test "detect's text escapes control bytes in the model, the bus and the rule's words" {
    cp -r "$FIX/l40s-2x" "$TMP/node"
    local gpus=$TMP/node/proc/driver/nvidia/gpus
    sed -i 's/^Model:.*/Model: \t\t NVIDIA L40S\x1b]0;owned\x07\x1b[2J/' "$gpus/0000:41:00.0/information"
    mv "$gpus/0000:61:00.0" "$gpus/0000:61:00.0"$'\x1b[31m'
    # a control byte in a hint is no profile name: the warning escapes it
    printf 'gpus=2 -> none hint=x\033[1m: bad hint\ngpus=2 -> none hint=pcie-8gpu: red \033[31malert\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$TMP"
    assert_success
    [[ "$output" != *$'\x1b'* && "$output" != *$'\x07'* ]]
    [[ "$stderr" != *$'\x1b'* ]]
    [[ "$stderr" == *"auto.rules:1: warning: 'x\\x1b[1m' is not a profile name"* ]]
    assert_line '  0000:41:00.0   NVIDIA L40S\x1b]0;owned\x07\x1b[2J (numa 0)'
    assert_line '  0000:61:00.0\x1b[31m NVIDIA L40S (numa -1)'
    assert_line "profile:    none (red \\x1b[31malert; pass -p pcie-8gpu to try it; $TMP/auto.rules:2)"
    run --separate-stderr "$NI" detect --root "$TMP/node" --profile-dir "$TMP" --json
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["devices"][0]["model"] == "NVIDIA L40S\x1b]0;owned\x07\x1b[2J", d
assert d["hint"] == "pcie-8gpu" and d["reason"] == "red \x1b[31malert", d
print("ok")' "$output"
    assert_output ok
}

# auto.rules is the data of the default profile: without it the install is
# broken, and the start says so instead of running untuned in silence.
@test "auto.rules missing or unreadable: a warning naming it; under --strict an error, nothing written, nothing started" {
    mkdir -p "$TMP/root" "$TMP/dir/auto.rules"
    cp -r "$FIX/l40s-2x/." "$TMP/root/"
    mkdir -p "$TMP/root/etc" "$TMP/root/run/nccl-init" # where the sinks write
    run --separate-stderr "$NI" --root "$TMP/root" --sinks none --profile-dir "$TMP/none" -- printenv NCCL_INIT_PROFILE
    assert_success
    assert_output none
    [[ "$stderr" == *"$TMP/none/auto.rules: warning: --profile auto: cannot read the rules: No such file or directory; profile none"* ]]
    [[ "$stderr" != *"auto: 0 GPUs"* ]]
    run --separate-stderr "$NI" render --root "$TMP/root" --profile-dir "$TMP/dir"
    assert_success
    [[ "$stderr" == *"$TMP/dir/auto.rules: warning: --profile auto: cannot read the rules: Is a directory; profile none"* ]]
    # --strict: exit 2 (bad input), no sink written, the command not run
    find "$TMP/root" | sort >"$TMP/before"
    run --separate-stderr "$NI" --strict --root "$TMP/root" --profile-dir "$TMP/none" -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"$TMP/none/auto.rules: error: --profile auto: cannot read the rules: No such file or directory; --strict starts nothing without them"* ]]
    [[ "$stderr" == *"nccl-init: error: invalid profile: command not started"* ]]
    [ ! -e "$TMP/started" ]
    find "$TMP/root" | sort | diff "$TMP/before" -
    # with the rules there, --strict starts as before, and the sinks write
    run --separate-stderr "$NI" --strict --root "$TMP/root" --profile-dir "$PROFILES" -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    [ -s "$TMP/root/etc/environment" ]
}

# auto.rules' findings are the profile's kind: FILE:LINE: warning|error:
# through the resolve's diagnostics, every line read on every node (not
# only up to the rule that matched), and errors under --strict.
@test "auto.rules findings: FILE:LINE: warning:, every line read past the match; --strict refuses them" {
    cp "$PROFILES"/*.env "$TMP/"
    printf '* -> none: first\nwatts>9000 -> pcie-8gpu: a typo after the match\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP"
    assert_success
    assert_line "profile:    none (first; $TMP/auto.rules:1)"
    assert_equal "$stderr" "$TMP/auto.rules:2: warning: unknown condition 'watts>9000'"
    mkdir -p "$TMP/root"
    cp -r "$FIX/l40s-2x/." "$TMP/root/"
    mkdir -p "$TMP/root/etc" "$TMP/root/run/nccl-init"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks none --profile-dir "$TMP" -- printenv NCCL_INIT_PROFILE
    assert_success
    assert_output none
    [[ "$stderr" == *"$TMP/auto.rules:2: warning: unknown condition 'watts>9000'"* ]]
    # --strict: exit 2, nothing written, the command not started
    find "$TMP/root" | sort >"$TMP/before"
    run --separate-stderr "$NI" --strict --root "$TMP/root" --profile-dir "$TMP" -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"$TMP/auto.rules:2: error: unknown condition 'watts>9000'"* ]]
    [[ "$stderr" == *"nccl-init: error: invalid profile: command not started"* ]]
    [ ! -e "$TMP/started" ]
    find "$TMP/root" | sort | diff "$TMP/before" -
}

@test "auto.rules: no ': REASON', an empty model~, a path, .env, auto or text for a profile are bad lines; an indented comment is not" {
    printf '%s\n' \
        '  # an indented comment, and a blank line next' \
        '   ' \
        'gpus=2 -> none' \
        'model~ -> pcie-8gpu: empty' \
        'model~"" -> pcie-8gpu: empty in quotes' \
        'gpus=2 -> /tmp/x/evil: a path' \
        'gpus=2 -> ../../x: up' \
        'gpus=2 -> evil.env: a file' \
        'gpus=2 -> none hint=../x: a path as the hint' \
        'gpus=2 -> auto: auto again' \
        'gpus=2 -> none words: text before the colon' \
        'gpus=2 -> .hidden: a leading dot' \
        'gpus=2 -> none:    ' \
        'gpus=2x -> none: a count is digits' \
        'gpus>=-1 -> none: no sign either' \
        '* -> none: fallback' >"$TMP/auto.rules"
    run --separate-stderr "$NI" detect --root "$FIX/l40s-2x" --profile-dir "$TMP"
    assert_success
    assert_line "profile:    none (fallback; $TMP/auto.rules:16)"
    local n
    for n in 3 4 5 6 7 8 9 10 11 12 13 14 15; do
        grep -q "^$TMP/auto.rules:$n: warning: " <<<"$stderr" || { echo "line $n: $stderr"; return 1; }
    done
    [ "$(grep -c warning <<<"$stderr")" = 13 ]
    [[ "$stderr" == *"auto.rules:3: warning: no ': REASON' after the profile"* ]]
    [[ "$stderr" == *"auto.rules:4: warning: empty value in 'model~'"* ]]
    [[ "$stderr" == *"auto.rules:6: warning: '/tmp/x/evil' is not a profile name"* ]]
    [[ "$stderr" == *"auto.rules:8: warning: 'evil.env': write the profile's name without .env"* ]]
}

@test "auto.rules: the profile is a name, looked up in the profile directory, never a path" {
    mkdir -p "$TMP/dir" "$TMP/x" "$TMP/cwd"
    printf 'NCCL_PROTO=Simple\n' >"$TMP/x/evil.env"
    printf 'NCCL_PROTO=Simple\n' >"$TMP/x/evil"
    cp "$PROFILES"/*.env "$TMP/dir/"
    for target in "$TMP/x/evil.env" ../x/evil; do
        printf 'gpus=2 -> %s: a path\n* -> none: fallback\n' "$target" >"$TMP/dir/auto.rules"
        run --separate-stderr bash -c 'cd "$1" && shift && "$@"' _ "$TMP/cwd" \
            "$NI" render --root "$FIX/l40s-2x" --profile-dir "$TMP/dir"
        assert_success
        assert_line NCCL_INIT_PROFILE=none
        refute_line --partial NCCL_PROTO
        [[ "$stderr" == *"auto.rules:1: warning: '$target' is not a profile name"* ]]
    done
}
