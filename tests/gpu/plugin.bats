#!/usr/bin/env bats
# bats file_tags=gpu
#
# The NCCL env plugin on a GPU: a one-rank communicator (ncclCommInitRank,
# nranks 1, device 0; helpers/nccl-env-probe.py comm) in an env -i process
# whose only source of the profile is the record, served by the plugin
# (build/libnccl-env.so, NCCL_ENV_PLUGIN). A communicator reads what
# ncclGetUniqueId does not (the protocol, algorithm, P2P level, channels,
# buffer size, threads), and NCCL logs each "set by environment". Every
# test skips without a GPU (the check is in setup, as in probe.bats):
#
#   NCCL_INIT_BIN=$PWD/build/nccl-init scripts/sandbox.sh bats tests/gpu

load ../helpers/common
load gpu

# common.bash takes the repository to be BATS_TEST_DIRNAME/..; from
# tests/gpu that is tests/, so set what depends on it again.
REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
NI=${NCCL_INIT_BIN:-$REPO/build/nccl-init}
SO=$REPO/build/libnccl-env.so
ENVPROBE=$REPO/tests/helpers/nccl-env-probe.py
RECORD=/run/nccl-init/profile.env

setup() {
    local why
    why=$(no_gpu_reason) && skip "$why"
    LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine"
    [ -f "$SO" ] || skip "no $SO (make)"
    [ "$(id -u)" = 0 ] || skip "writes /run (copy-on-write in the sandbox)"
    unset_nccl_env
    TMP=$(mktemp -d)
    rm -rf /run/nccl-init /etc/nccl.conf
    printf '%s\n' NCCL_PROTO=LL NCCL_ALGO=Ring NCCL_P2P_LEVEL=SYS NCCL_MAX_NCHANNELS=16 \
        NCCL_BUFFSIZE=16777216 NCCL_NTHREADS=512 >"$TMP/six.env"
}

teardown() {
    stop_writers
    rm -rf "${TMP:-/nonexistent}" /run/nccl-init
}

@test "plugin on one GPU: a communicator in an env -i process takes the record's six tuning keys" {
    # the writer runs while NCCL reads: the readers take a record only then
    keep_writer --profile-dir "$TMP" --sinks record -p six
    [ -f "$RECORD" ]
    run timeout 120 env -i NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL "NCCL_ENV_PLUGIN=$SO" \
        /usr/bin/python3 -I "$ENVPROBE" comm "$LIB"
    echo "$output"
    assert_success
    assert_line 'comm: ok'
    assert_output --partial 'NCCL INFO ENV/Plugin: Using nccl-init (v1)'
    assert_output --partial 'nccl-init: 6 values from /run/nccl-init/profile.env (profile six'
    local kv
    for kv in NCCL_PROTO=LL NCCL_ALGO=Ring NCCL_P2P_LEVEL=SYS NCCL_MAX_NCHANNELS=16 \
        NCCL_BUFFSIZE=16777216 NCCL_NTHREADS=512; do
        assert_output --partial "NCCL INFO ${kv%%=*} set by environment to ${kv#*=}"
    done
}

@test "plugin on one GPU: the witness says NCCL read each of the six tuning keys from the record, as the profile has them" {
    keep_writer --profile-dir "$TMP" --sinks record -p six
    run timeout 120 env -i "NCCL_ENV_PLUGIN=$SO" /usr/bin/python3 -I "$ENVPROBE" comm "$LIB"
    echo "$output"
    assert_success
    assert_line 'comm: ok'
    assert_line --regexp '^witness: nccl copy=1 version=2\.[0-9]+\.[0-9]+ suffix=[^ ]* interface=v[12] lib=/'
    local kv
    for kv in NCCL_PROTO=LL NCCL_ALGO=Ring NCCL_P2P_LEVEL=SYS NCCL_MAX_NCHANNELS=16 \
        NCCL_BUFFSIZE=16777216 NCCL_NTHREADS=512; do
        assert_line "witness: ask copy=1 name=${kv%%=*} from=record value=${kv#*=}"
    done
}
