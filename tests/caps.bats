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
    read -r _ prm eff bnd amb < <(caps_of $$)
    child_status
    assert_success
    # All but the inheritable set, which is lowered to the ambient set
    # (init/caps.c); under bats both are normally empty.
    assert_output "$amb $prm $eff $bnd $amb 0"
}

@test "--cap-drop ALL empties all five sets" {
    child_status --cap-drop ALL
    assert_success
    assert_output "0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0"
}

@test "--cap-drop ALL --cap-add NET_RAW,CHOWN keeps exactly those, inheritable and ambient empty" {
    child_status --cap-drop ALL --cap-add NET_RAW,chown
    assert_success
    # CAP_CHOWN is bit 0, CAP_NET_RAW bit 13. This used to expect them in
    # the inheritable and ambient sets too; that is CVE-2022-24769 (below).
    assert_output "0000000000000000 0000000000002001 0000000000002001 0000000000002001 0000000000000000 0"
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

# CVE-2022-24769 (moby GHSA-2mm7-x5h6-5pvq): an inheritable bit survives the
# child's switch to an unprivileged user, and a binary with that bit in its
# inheritable file capabilities gets it back. $TMP/cat is such a binary
# (cap_dac_override+ei), $TMP/secret a 0600 root file that only
# DAC_OVERRIDE lets uid 65534 read.
filecap_setup() {
    if ! command -v setcap >/dev/null || ! command -v setpriv >/dev/null; then
        skip "needs setcap and setpriv (libcap2-bin, util-linux)"
    fi
    chmod 755 "$TMP"
    cp "$(command -v cat)" "$TMP/cat"
    setcap cap_dac_override+ei "$TMP/cat" || skip "no file capabilities on this file system"
    echo secret >"$TMP/secret"
    chmod 600 "$TMP/secret"
}

# COMMAND... then, as uid 65534 (setpriv), $TMP/cat $TMP/secret.
read_as_nobody() {
    run --separate-stderr "$@" setpriv --reuid 65534 --regid 65534 --clear-groups \
        "$TMP/cat" "$TMP/secret"
}

# The read was refused by the kernel, not lost to a failed exec.
assert_refused() {
    assert_failure 1
    [[ "$stderr" == *"Permission denied"* ]]
    refute_output secret
}

@test "CVE-2022-24769 set-up: uid 65534 reads the file exactly when DAC_OVERRIDE is inheritable" {
    filecap_setup
    read_as_nobody
    assert_refused
    read_as_nobody setpriv --inh-caps +dac_override
    assert_success
    assert_output secret
}

@test "CVE-2022-24769: after a cap option, setpriv --reuid 65534 and a +ei binary cannot read a 0600 root file" {
    filecap_setup
    # --cap-drop NET_RAW is the reported case (CapInh was 1fffeffdfff).
    for opts in "--cap-drop NET_RAW" "--cap-add ALL" \
        "--cap-drop ALL --cap-add DAC_OVERRIDE,SETUID,SETGID"; do
        # shellcheck disable=SC2086
        read_as_nobody "$NI" --sinks none -q $opts --
        echo "with $opts: status $status, $stderr"
        assert_refused
    done
}

@test "without cap options an inherited inheritable set is not passed on" {
    filecap_setup
    # A runtime from before the fix starts nccl-init with CapInh filled.
    read_as_nobody setpriv --inh-caps +dac_override "$NI" --sinks none -q --
    assert_refused
}

@test "the child's inheritable and ambient sets are empty with and without cap options" {
    read -r _ _ _ _ amb < <(caps_of $$)
    (( 16#$amb == 0 )) || skip "bats runs with ambient capabilities, which pass through"
    for opts in "" "--cap-drop NET_RAW" "--cap-add ALL" "--cap-drop ALL --cap-add CHOWN"; do
        # shellcheck disable=SC2086
        child_status --sinks none $opts
        assert_success
        read -r inh _ _ _ amb _ <<<"$output"
        echo "with '$opts': CapInh $inh CapAmb $amb"
        (( 16#$inh == 0 && 16#$amb == 0 ))
    done
}

@test "without cap options a launcher's ambient set passes through; with one it is cleared" {
    # CAP_DAC_OVERRIDE is bit 1, CAP_NET_BIND_SERVICE bit 10.
    launch() { setpriv --inh-caps +net_bind_service,+dac_override --ambient-caps +net_bind_service "$@"; }
    run launch true
    [ "$status" = 0 ] || skip "setpriv cannot raise ambient capabilities here"
    for opts in "" "--cap-drop NET_RAW"; do
        # shellcheck disable=SC2086
        run --separate-stderr launch "$NI" --sinks none -q $opts -- \
            awk '/^Cap(Inh|Amb):/ { printf "%s%s", s, $2; s = " " } END { print "" }' /proc/self/status
        assert_success
        if [ -z "$opts" ]; then
            assert_output "0000000000000400 0000000000000400"
        else
            assert_output "0000000000000000 0000000000000000"
        fi
    done
}
