#!/usr/bin/env bats
# NCCL's rules per release (issue 36): `check --nccl-version 2.28.9` and
# `--nccl-version 2.30.7` disagree exactly where NCCL's source does, as
# ../shared/reference/nccl-versions.md cites it (no libnccl 2.29 or 2.30 is
# on these machines: each test names the source line it stands for); with
# no release named, check says which holds in which.

load helpers/common

setup() {
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

# Checks the one line $1 under release $2 ("all": none named); sets
# $status and $stderr.
check_in() {
    printf '%s\n' "$1" >"$TMP/p.env"
    if [ "$2" = all ]; then
        run --separate-stderr "$NI" check "$TMP/p.env"
    else
        run --separate-stderr "$NI" check --nccl-version "$2" "$TMP/p.env"
    fi
}

# $1 is clean in release $2.
clean_in() {
    check_in "$1" "$2"
    assert_success
    assert_equal "$stderr" "nccl-init: checked 1 profile: 0 errors, 0 warnings"
}

# $1 is an error in release $2, saying $3.
error_in() {
    check_in "$1" "$2"
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: $1: $3"* ]] || fail "$stderr"
}

# $1 is a warning in release $2, saying $3.
warning_in() {
    check_in "$1" "$2"
    assert_success
    [[ "$stderr" == *"p.env:1: warning: $3"* ]] || fail "$stderr"
}

@test "v2.29.7-1:src/misc/param.cc:83-104: NCCL_NO_CACHE is new in 2.29.7" {
    warning_in NCCL_NO_CACHE=ALL 2.28.9 \
        "unknown NCCL variable NCCL_NO_CACHE for NCCL 2.28.9 (NCCL 2.29.7, 2.30.7 read it)"
    clean_in NCCL_NO_CACHE=ALL 2.29.7
    clean_in NCCL_NO_CACHE=NCCL_PROTO,ALL 2.30.7
    error_in NCCL_NO_CACHE=NCCL_NOT_A_NAME 2.29.7 "'NCCL_NOT_A_NAME' is not an NCCL variable"
    warning_in NCCL_NO_CACHE=ALL all "NCCL_NO_CACHE: only NCCL 2.29.7, 2.30.7 read it"
}

@test "names: an unknown one is matched against the applied releases' names" {
    warning_in NCCL_NO_CACHES=ALL all "unknown NCCL variable NCCL_NO_CACHES; did you mean NCCL_NO_CACHE?"
    check_in NCCL_NO_CACHES=ALL 2.28.9
    assert_success
    [[ "$stderr" == *"unknown NCCL variable NCCL_NO_CACHES"* && "$stderr" != *"did you mean"* ]]
}

@test "v2.30.7-1:src/param/param.cc:23-41: NCCL_NO_CACHE's names are trimmed from 2.30.3" {
    error_in 'NCCL_NO_CACHE=NCCL_PROTO, ALL' 2.29.7 "' ALL' is not an NCCL variable"
    clean_in 'NCCL_NO_CACHE=NCCL_PROTO, ALL' 2.30.7
}

@test "v2.28.9-1:src/transport/shm.cc:67: NCCL_SHM_MEMCPY_MODE is gone in 2.30.7" {
    clean_in NCCL_SHM_MEMCPY_MODE=1 2.28.9
    clean_in NCCL_SHM_MEMCPY_MODE=1 2.29.7
    warning_in NCCL_SHM_MEMCPY_MODE=1 2.30.7 \
        "unknown NCCL variable NCCL_SHM_MEMCPY_MODE for NCCL 2.30.7 (NCCL 2.28.9, 2.29.7 read it)"
    warning_in NCCL_SHM_MEMCPY_MODE=1 all "NCCL_SHM_MEMCPY_MODE: only NCCL 2.28.9, 2.29.7 read it"
}

@test "v2.29.7-1:src/init.cc:73-116: NCCL_CTA_POLICY takes DEFAULT|EFFICIENCY|ZERO from 2.29.2" {
    error_in NCCL_CTA_POLICY=EFFICIENCY 2.28.9 "not a number: NCCL reads it as 0"
    clean_in NCCL_CTA_POLICY=EFFICIENCY 2.29.7
    clean_in NCCL_CTA_POLICY=zero 2.30.7
    clean_in 'NCCL_CTA_POLICY=DEFAULT|EFFICIENCY' 2.30.7
    clean_in NCCL_CTA_POLICY=1 2.28.9
    clean_in NCCL_CTA_POLICY=1 2.30.7
    # a leading digit is read alone; 3-9 are ignored with an INFO line
    error_in NCCL_CTA_POLICY=10 2.30.7 "NCCL reads only its first digit, 1"
    error_in NCCL_CTA_POLICY=10 2.28.9 "out of range: 0..2"
    error_in NCCL_CTA_POLICY=3 2.29.7 "only 0, 1 and 2 are policies"
    error_in 'NCCL_CTA_POLICY=EFFICIENCY|FAST' 2.30.7 "unknown policy 'FAST'"
    warning_in NCCL_CTA_POLICY=EFFICIENCY all \
        "NCCL_CTA_POLICY=EFFICIENCY: valid from 2.29.2; NCCL 2.28.9: not a number: NCCL reads it as 0"
}

@test "v2.29.7-1:src/graph/paths.cc:460: NCCL_NET_GDR_LEVEL's default is P2C from 2.29.2" {
    clean_in NCCL_NET_GDR_LEVEL=PXB 2.28.9
    clean_in NCCL_NET_GDR_LEVEL=2 2.28.9
    warning_in NCCL_NET_GDR_LEVEL=PXB 2.29.7 "NCCL_NET_GDR_LEVEL=PXB: NCCL's default is P2C (PXB up to 2.28.9"
    warning_in NCCL_NET_GDR_LEVEL=2 2.30.7 "NCCL_NET_GDR_LEVEL=2: NCCL's default is P2C (PXB up to 2.28.9"
    clean_in NCCL_NET_GDR_LEVEL=P2C 2.30.7
    clean_in NCCL_NET_GDR_LEVEL=SYS 2.30.7
    error_in NCCL_NET_GDR_LEVEL=pxb 2.30.7 "levels are case-sensitive"
    warning_in NCCL_NET_GDR_LEVEL=PXB all \
        "NCCL_NET_GDR_LEVEL=PXB: valid in NCCL 2.28.9; NCCL 2.29.7, 2.30.7 (from 2.29.2): NCCL's default is P2C"
}

@test "v2.30.7-1:src/include/param/parser_bitset.h:32-51: NCCL_DEBUG_SUBSYS drops the whole value for one unknown name" {
    error_in NCCL_DEBUG_SUBSYS=INIT,BOGUS 2.28.9 "unknown name 'BOGUS'"
    [[ "$stderr" == *"NCCL skips it without a word"* ]]
    error_in NCCL_DEBUG_SUBSYS=INIT,BOGUS 2.30.7 "unknown name 'BOGUS'"
    [[ "$stderr" == *"NCCL discards the whole value without a word, and its default applies"* ]]
    # wrong in every release, differently: still an error, each release's words
    check_in NCCL_DEBUG_SUBSYS=INIT,BOGUS all
    assert_failure 2
    [[ "$stderr" == *"NCCL 2.28.9, 2.29.7: unknown name 'BOGUS'"*"NCCL 2.30.7 (from 2.30.3): unknown"* ]]
}

@test "v2.30.7-1:src/include/param/parser_bitset.h:32-51: DESTROY (2.30.3) and ALLOC_HOST (2.30.7) are new subsystems" {
    error_in NCCL_DEBUG_SUBSYS=INIT,DESTROY 2.28.9 "unknown name 'DESTROY'"
    error_in NCCL_DEBUG_SUBSYS=ALLOC_HOST 2.29.7 "unknown name 'ALLOC_HOST'"
    clean_in NCCL_DEBUG_SUBSYS=INIT,DESTROY,ALLOC_HOST 2.30.7
    warning_in NCCL_DEBUG_SUBSYS=INIT,DESTROY all \
        "NCCL_DEBUG_SUBSYS=INIT,DESTROY: valid from 2.30.3; NCCL 2.28.9, 2.29.7: unknown name 'DESTROY'"
}

@test "v2.30.7-1:src/include/param/parser_bitset.h:32-51: NCCL_DEBUG_TIMESTAMP_LEVELS, trimmed, all or nothing" {
    error_in 'NCCL_DEBUG_TIMESTAMP_LEVELS=WARN, INFO' 2.28.9 "unknown name ' INFO'"
    clean_in 'NCCL_DEBUG_TIMESTAMP_LEVELS=WARN, INFO' 2.30.7
    error_in NCCL_DEBUG_TIMESTAMP_LEVELS=WARN,NOPE 2.30.7 "unknown name 'NOPE'"
    [[ "$stderr" == *"discards the whole value"* ]]
}

@test "v2.30.7-1:src/include/param/parser_default.h:46-50: NCCL_WARN_ENABLE_DEBUG_INFO is a bool in 2.30.7" {
    error_in NCCL_WARN_ENABLE_DEBUG_INFO=TRUE 2.28.9 "not a number: NCCL reads it as 0"
    clean_in NCCL_WARN_ENABLE_DEBUG_INFO=TRUE 2.30.7
    clean_in NCCL_WARN_ENABLE_DEBUG_INFO=t 2.30.7
    warning_in NCCL_WARN_ENABLE_DEBUG_INFO=2 2.28.9 "NCCL_WARN_ENABLE_DEBUG_INFO=2: out of range"
    error_in NCCL_WARN_ENABLE_DEBUG_INFO=2 2.30.7 "not a boolean (expected 1, T, TRUE, 0, F or FALSE)"
}

@test "v2.30.7-1:src/include/param/parser_default.h:46-50: NCCL_SET_THREAD_NAME is a bool in 2.30.7" {
    error_in NCCL_SET_THREAD_NAME=true 2.28.9 "not a number: NCCL reads it as 0"
    clean_in NCCL_SET_THREAD_NAME=true 2.30.7
    clean_in NCCL_SET_THREAD_NAME=1 2.28.9
    clean_in NCCL_SET_THREAD_NAME=1 2.30.7
    check_in NCCL_SET_THREAD_NAME=2 all
    assert_failure 2
    [[ "$stderr" == *"NCCL 2.28.9, 2.29.7: out of range"*"NCCL 2.30.7 (from 2.30.7): not a boolean"* ]]
}

@test "v2.30.7-1:src/misc/utils.cc:189-216: an empty NCCL_IB_HCA port is any port in 2.30.7, port 0 before" {
    error_in NCCL_IB_HCA=mlx5_0: 2.28.9 "'mlx5_0:' has an empty port"
    error_in NCCL_IB_HCA=mlx5_0:,mlx5_1:1 2.29.7 "'mlx5_0:' has an empty port"
    clean_in NCCL_IB_HCA=mlx5_0: 2.30.7
    clean_in NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 2.28.9
    clean_in NCCL_IB_HCA=mlx5_0:1:0:1 2.30.7
    warning_in NCCL_IB_HCA=mlx5_0: all "NCCL_IB_HCA=mlx5_0:: valid from 2.30.7; NCCL 2.28.9, 2.29.7:"
}

@test "v2.30.7-1:src/include/param/parser_enum.h:22: NCCL_DEBUG is trimmed in 2.30.7 (an environment value)" {
    printf 'NCCL_PROTO=Simple\n' >"$TMP/p.env"
    NCCL_DEBUG=' INFO' run --separate-stderr "$NI" render --nccl-version 2.28.9 -p "$TMP/p.env"
    assert_success
    [[ "$stderr" == *"environment: warning: NCCL_DEBUG= INFO: unknown value"* ]]
    NCCL_DEBUG=' INFO' run --separate-stderr "$NI" render --nccl-version 2.30.7 -p "$TMP/p.env"
    assert_success
    [[ "$stderr" != *"NCCL_DEBUG= INFO"* ]]
}

@test "a release newer than the newest known gets its rules, with one line saying so" {
    check_in NCCL_CTA_POLICY=EFFICIENCY 2.32.3
    assert_success
    assert_equal "$stderr" "nccl-init: warning: NCCL 2.32.3 is newer than the newest release nccl-init knows; it is checked by 2.30.7's rules
nccl-init: checked 1 profile: 0 errors, 0 warnings"
}

@test "an unknown --nccl-version is one usage error naming the known releases" {
    for v in 2.29.3 2.27.7 2.30 two; do
        check_in NCCL_PROTO=Simple "$v"
        assert_failure 2
        assert_equal "$stderr" "nccl-init: error: --nccl-version $v: not a known NCCL release (known: 2.28.9, 2.29.7, 2.30.7; a newer one is checked by 2.30.7's rules)"
    done
}

@test "--nccl-lib: the release from the library's version string, or one usage error" {
    printf 'NCCL_CTA_POLICY=EFFICIENCY\n' >"$TMP/p.env"
    # no version string in it
    printf '\0NCCL_CTA_POLICY\0NCCL_PROTO\0' >"$TMP/libnccl.so"
    run --separate-stderr "$NI" check --nccl-lib "$TMP/libnccl.so" "$TMP/p.env"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: --nccl-lib $TMP/libnccl.so: cannot tell which NCCL release it is (known: 2.28.9, 2.29.7, 2.30.7); name it with --nccl-version"
    # named, the library's names still count
    run --separate-stderr "$NI" check --nccl-lib "$TMP/libnccl.so" --nccl-version 2.30.7 "$TMP/p.env"
    assert_success
    command -v gcc >/dev/null || skip "no gcc to build a library with a version string"
    printf 'const char v[] = "NCCL version 2.30.7+cuda13.0";\nconst char n[] = "NCCL_CTA_POLICY";\n' >"$TMP/v.c"
    gcc -shared -fPIC -o "$TMP/libnccl.so.2" "$TMP/v.c"
    run --separate-stderr "$NI" check -v --nccl-lib "$TMP/libnccl.so.2" "$TMP/p.env"
    assert_success
    [[ "$stderr" == *"NCCL 2.30.7+cuda13.0: checked by 2.30.7's rules"* ]]
    # a release between two known ones (or before the first): every known release, with a line
    printf 'const char v[] = "NCCL version 2.29.3+cuda12.9";\nconst char n[] = "NCCL_CTA_POLICY";\n' >"$TMP/v.c"
    gcc -shared -fPIC -o "$TMP/libnccl.so.2" "$TMP/v.c"
    run --separate-stderr "$NI" check --nccl-lib "$TMP/libnccl.so.2" "$TMP/p.env"
    assert_success
    assert_equal "$stderr" "nccl-init: warning: NCCL 2.29.3+cuda12.9 is none of the releases nccl-init knows; it is checked against each of them
$TMP/p.env:1: warning: NCCL_CTA_POLICY=EFFICIENCY: valid from 2.29.2; NCCL 2.28.9: not a number: NCCL reads it as 0
nccl-init: checked 1 profile: 0 errors, 1 warning"
}

@test "check --json lists the releases whose rules applied" {
    printf 'NCCL_PROTO=Simple\n' >"$TMP/p.env"
    run --separate-stderr "$NI" check --json "$TMP/p.env"
    [[ "$output" == *'"nccl_releases": ["2.28.9", "2.29.7", "2.30.7"]'* ]]
    run --separate-stderr "$NI" check --json --nccl-version 2.29.7 "$TMP/p.env"
    [[ "$output" == *'"nccl_releases": ["2.29.7"]'* ]]
}

# The held-back set: the project's profiles, the profiles doc/ shows, and
# real-world ones (tests/fixtures/held-back/), each clean under every
# release and under all, or with the per-release warning its .expect says.
@test "held back: every shipped, documented and real-world profile under 2.28.9, 2.29.7, 2.30.7 and all" {
    mkdir "$TMP/doc"
    for f in "$REPO"/doc/*.md "$REPO"/README.md; do
        awk -v dir="$TMP/doc" -v base="$(basename "$f" .md)" -f "$BATS_TEST_DIRNAME/helpers/doc-profiles.awk" "$f"
    done
    ls "$TMP"/doc/*.env >/dev/null # doc/ shows at least one
    for p in "$PROFILES"/*.env "$TMP"/doc/*.env "$BATS_TEST_DIRNAME"/fixtures/held-back/*.env; do
        for v in 2.28.9 2.29.7 2.30.7 all; do
            if [ "$v" = all ]; then
                run --separate-stderr "$NI" check "$p"
            else
                run --separate-stderr "$NI" check --nccl-version "$v" "$p"
            fi
            assert_success
            want=${p%.env}.expect
            got=$(printf '%s\n' "$stderr" | grep ': warning: ' | sed "s|^$p:|$v:|")
            if [ -f "$want" ]; then
                assert_equal "$got" "$(grep "^$v:" "$want" || true)"
            else
                assert_equal "$got" ""
            fi
        done
    done
}

@test "the generated table is the script's output over ../shared/reference" {
    [ -d "$REPO/../shared/reference" ] || skip "no ../shared/reference here (a clean clone): the unit test holds the data's shape"
    run python3 "$REPO/scripts/nccl-releases.py" --reference "$REPO/../shared/reference" \
        --check "$REPO/init/nccl/nccl_releases.c"
    assert_success
}
