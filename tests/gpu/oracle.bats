#!/usr/bin/env bats
# bats file_tags=gpu
#
# The oracle on a GPU: the cases of tests/oracle/cases.tsv that only a
# communicator reads (nccl column "gpu:TEXT"), each in its own process that
# creates a one-rank communicator (ncclCommInitRank, nranks=1, device 0) with
# NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL; NCCL must print TEXT. The CPU
# cases run again alongside. Every test skips without a GPU, like probe.bats:
#
#   NCCL_INIT_BIN=$PWD/build/nccl-init scripts/sandbox.sh bats tests/gpu

load ../helpers/common
load gpu

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
NI=${NCCL_INIT_BIN:-$REPO/build/nccl-init}
ORACLE=$REPO/tests/helpers/nccl-oracle.py
CASES=$REPO/tests/oracle/cases.tsv

setup() {
    local why
    why=$(no_gpu_reason) && skip "$why"
    LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine"
}

@test "oracle on one GPU: what only a communicator reads, as NCCL logs it" {
    run python3 "$ORACLE" run "$NI" "$LIB" "$CASES" --gpu --family gpu --family string
    echo "$output"
    assert_success
    assert_line --regexp '^# [0-9]+ cases, 0 failed'
    refute_line --partial 'gpu (not run)'
}

@test "oracle on one GPU: the CPU cases still agree with a GPU present" {
    run python3 "$ORACLE" run "$NI" "$LIB" "$CASES" --family int-syntax --family int-range \
        --family level --family list
    echo "$output"
    assert_success
    assert_line --regexp '^# [0-9]+ cases, 0 failed'
}
