#!/usr/bin/env bats
# The nccl-conf sink read by the real libnccl: a process with a scrubbed
# environment loads libnccl.so.2 and NCCL itself applies /etc/nccl.conf.
# NCCL reads its conf files in its one-time init (ncclGetUniqueId here),
# which needs no GPU. The probe runs with python3 -S: no site hook, only NCCL.

load helpers/common

setup() {
    LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine"
    [ "$(id -u)" = 0 ] || skip "writes /etc/nccl.conf (copy-on-write in the sandbox)"
    PROBE="$BATS_TEST_DIRNAME/helpers/nccl-conf-probe.py"
    TMP=$(mktemp -d)
    rm -f /etc/nccl.conf
}

teardown() {
    rm -rf "$TMP" /etc/nccl.conf
}

@test "NCCL applies /etc/nccl.conf in a process whose environment was scrubbed" {
    run env -i /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_PROTO NCCL_ALGO
    assert_output $'NCCL_PROTO unset\nNCCL_ALGO unset'
    run --separate-stderr "$NI" -q --sinks nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    digest=$("$NI" render -q --profile-dir "$PROFILES" -p pcie-8gpu | sed -n 's/^NCCL_INIT_DIGEST=//p')
    run env -i /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_PROTO NCCL_ALGO NCCL_P2P_LEVEL \
        NCCL_MAX_NCHANNELS NCCL_BUFFSIZE NCCL_NTHREADS NCCL_INIT_DIGEST
    assert_success
    assert_output "NCCL_PROTO=LL
NCCL_ALGO=Ring
NCCL_P2P_LEVEL=SYS
NCCL_MAX_NCHANNELS=16
NCCL_BUFFSIZE=16777216
NCCL_NTHREADS unset
NCCL_INIT_DIGEST=$digest"
}

@test "a value the process was given still wins over the file" {
    "$NI" -q --sinks nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- true 2>/dev/null
    run env -i NCCL_PROTO=Simple /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_PROTO NCCL_ALGO
    assert_output $'NCCL_PROTO=Simple\nNCCL_ALGO=Ring'
}

@test "with NCCL_CONF_FILE set, that file is written and NCCL reads it" {
    run --separate-stderr env NCCL_CONF_FILE="$TMP/nccl.conf" "$NI" --sinks nccl-conf \
        --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [[ "$stderr" == *"NCCL_CONF_FILE is set: writing the nccl.conf block to $TMP/nccl.conf"* ]]
    [ ! -e /etc/nccl.conf ]
    run env -i NCCL_CONF_FILE="$TMP/nccl.conf" /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_PROTO
    assert_output NCCL_PROTO=LL
}

# NCCL's reading order (src/misc/param.cc initEnvFunc): the file named by
# NCCL_CONF_FILE, or else ~/.nccl.conf, then /etc/nccl.conf, each line
# applied with setenv(k, v, 0): the process's own value first, then the
# first file that sets it.
@test "a user's conf file (NCCL_CONF_FILE, or ~/.nccl.conf) wins over the block in /etc/nccl.conf" {
    "$NI" -q --sinks nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- true 2>/dev/null
    printf 'NCCL_PROTO=Simple\n' >"$TMP/user.conf"
    run env -i NCCL_CONF_FILE="$TMP/user.conf" /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_PROTO NCCL_ALGO
    assert_output $'NCCL_PROTO=Simple\nNCCL_ALGO=Ring'
}

@test "~/.nccl.conf is found through the password database, not \$HOME" {
    command -v setpriv >/dev/null || skip "no setpriv"
    printf 'NCCL_PROTO=Simple\n' >"$TMP/.nccl.conf"
    chmod 755 "$TMP"
    chmod 644 "$TMP/.nccl.conf"
    # nobody's home in the password database is not $TMP: NCCL never reads it
    run env -i HOME="$TMP" setpriv --reuid nobody --regid nogroup --clear-groups \
        /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_PROTO
    assert_output "NCCL_PROTO unset"
}

@test "NCCL's conf reader keeps 1023 bytes of a value; with the nccl-conf sink on, a longer one stops the start" {
    long=$(head -c 1100 /dev/zero | tr '\0' x)
    printf 'NCCL_NET=%s\n' "$long" >"$TMP/long.conf"
    run env -i NCCL_CONF_FILE="$TMP/long.conf" /usr/bin/python3 -S "$PROBE" "$LIB" NCCL_NET
    assert_output "NCCL_NET=${long:0:1023}"
    printf 'NCCL_NET=%s\n' "$long" >"$TMP/long.env"
    run --separate-stderr "$NI" --sinks nccl-conf -p "$TMP/long.env" -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"long.env:1: error: NCCL_NET: longer than the 1023 bytes NCCL's nccl.conf reader keeps"* ]]
    [ ! -e "$TMP/started" ]
    if grep -q '^NCCL_NET=' /etc/nccl.conf 2>/dev/null; then false; fi
}
