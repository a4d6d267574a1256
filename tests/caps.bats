#!/usr/bin/env bats
# Capabilities and no_new_privs, read back from the child's /proc/PID/status.

load helpers/common

setup() {
    [ "$(id -u)" = 0 ] || skip "needs root to hold capabilities"
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

# Runs nccl-init with the given options; the child prints its capability
# masks (Inh Prm Eff Bnd Amb) and NoNewPrivs.
child_status() {
    run --separate-stderr "$NI" -q "$@" -- sh -c \
        'awk "/^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):/ { printf \"%s%s\", s, \$2; s = \" \" } END { print \"\" }" /proc/$$/status'
}

@test "without cap options the child keeps nccl-init's capabilities" {
    mine=$(caps_of $$)
    child_status
    assert_success
    assert_output "$mine 0"
}

@test "--cap-drop ALL empties all five sets" {
    child_status --cap-drop ALL
    assert_success
    assert_output "0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0"
}

@test "--cap-drop ALL --cap-add NET_RAW,CHOWN keeps exactly those, ambient included" {
    child_status --cap-drop ALL --cap-add NET_RAW,chown
    assert_success
    # CAP_CHOWN is bit 0, CAP_NET_RAW bit 13
    assert_output "0000000000002001 0000000000002001 0000000000002001 0000000000002001 0000000000002001 0"
}

@test "--cap-drop one capability leaves the rest" {
    read -r _ prm _ bnd _ < <(caps_of $$)
    (( 16#$prm & (1 << 21) )) || skip "this shell lacks CAP_SYS_ADMIN"
    child_status --cap-drop SYS_ADMIN --cap-drop CAP_NET_ADMIN
    assert_success
    read -r inh cprm ceff cbnd amb nnp <<<"$output"
    (( (16#$cprm & (1 << 21)) == 0 && (16#$cprm & (1 << 12)) == 0 ))
    (( (16#$cbnd & (1 << 21)) == 0 ))
    (( 16#$cprm == (16#$prm & ~(1 << 21) & ~(1 << 12)) ))
    (( 16#$ceff == 16#$cprm ))
}

@test "the capability is really gone: the child cannot chown" {
    touch "$TMP/f"
    run "$NI" -q --cap-drop CHOWN -- chown 1:1 "$TMP/f"
    assert_failure
    run "$NI" -q -- chown 1:1 "$TMP/f"
    assert_success
}

@test "--no-new-privs sets NoNewPrivs in the child" {
    child_status --no-new-privs
    assert_success
    [[ "$output" == *" 1" ]]
}

@test "--cap-add of a capability nccl-init lacks is refused before the start" {
    run --separate-stderr capsh --drop=cap_sys_time -- -c "'$NI' -q --cap-add SYS_TIME -- touch '$TMP/started'"
    [ "$status" = 127 ] && skip "capsh not available"
    assert_failure 2
    [[ "$stderr" == *"--cap-add: CAP_SYS_TIME is not held by nccl-init"* ]]
    [ ! -e "$TMP/started" ]
}
