#!/usr/bin/env bats
# nccl-init check: every class of profile error, as FILE:LINE messages.

load helpers/common

setup() {
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

# Writes a profile from printf-style text and checks it.
check_text() {
    printf "$1" >"$TMP/p.env"
    run --separate-stderr "$NI" check "$TMP/p.env"
}

@test "the shipped profiles are valid and start without a warning" {
    run --separate-stderr ni_check pcie-8gpu pcie-8gpu-iommu pcie-p2p-off nvlink-hgx ib-multinode none
    assert_success
    assert_equal "$output" ""
    assert_equal "$stderr" "nccl-init: checked 6 profiles: 0 errors, 0 warnings"
    for p in "$PROFILES"/*.env; do
        run --separate-stderr "$NI" check -v "$p"
        assert_success
        [[ "$stderr" == *"checked 1 profile: 0 errors, 0 warnings"* ]]
        [[ "$stderr" != *warning:* ]]
    done
}

@test "pcie-8gpu-iommu is pcie-8gpu with P2P off and no P2P level" {
    diff <(grep -v -E '^#|^$' "$PROFILES/pcie-8gpu.env" | grep -v '^NCCL_P2P_LEVEL=') \
        <(grep -v -E '^#|^$' "$PROFILES/pcie-8gpu-iommu.env" | grep -v '^NCCL_P2P_DISABLE=1$')
    grep -qx 'NCCL_P2P_DISABLE=1' "$PROFILES/pcie-8gpu-iommu.env"
    ! grep -q '^NCCL_P2P_LEVEL' "$PROFILES/pcie-8gpu-iommu.env"
    run --separate-stderr "$NI" check --profile-dir "$PROFILES" pcie-8gpu-iommu
    assert_success
    assert_equal "$stderr" "nccl-init: checked 1 profile: 0 errors, 0 warnings"
}

@test "pcie-p2p-off sets P2P off and nothing else: a safety setting, no speed value" {
    run grep -v -E '^#|^$' "$PROFILES/pcie-p2p-off.env"
    assert_output NCCL_P2P_DISABLE=1
}

@test "a path works as well as a name" {
    run --separate-stderr "$NI" check "$PROFILES/pcie-8gpu.env"
    assert_success
}

@test "pcie-8gpu sets the measured variables that do something; NTHREADS=512 stays as a comment" {
    run --separate-stderr ni_render -p pcie-8gpu
    assert_success
    run grep -c -E '^NCCL_(PROTO=LL|ALGO=Ring|P2P_LEVEL=SYS|MAX_NCHANNELS=16|BUFFSIZE=16777216)$' <<<"$output"
    assert_output 5
    run grep -c -v -E '^#|^$' "$PROFILES/pcie-8gpu.env"
    assert_output 5
    # the sixth value of the measured set, and why it is out
    grep -qx '#NCCL_NTHREADS=512' "$PROFILES/pcie-8gpu.env"
    sed 's/^#NCCL_NTHREADS=512$/NCCL_NTHREADS=512/' "$PROFILES/pcie-8gpu.env" >"$TMP/six.env"
    run --separate-stderr "$NI" check "$TMP/six.env"
    assert_success
    [[ "$stderr" == *"warning: NCCL_NTHREADS=512 does nothing with NCCL_PROTO=LL"* ]]
}

@test "malformed line, bad key, duplicate key" {
    check_text 'A=1\nnot a pair\n9X=1\nA=2\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:2: error: malformed line: expected KEY=VALUE"* ]]
    [[ "$stderr" == *"p.env:3: error: bad key '9X'"* ]]
    [[ "$stderr" == *"p.env:4: error: duplicate key A (first set at line 1)"* ]]
}

@test "control characters and over-long lines" {
    check_text 'A=x\ty\nB=\033[31m\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: A: value contains control character 0x09"* ]]
    [[ "$stderr" == *"p.env:2: error: B: value contains control character 0x1b"* ]]
    { printf 'A='; head -c 5000 /dev/zero | tr '\0' x; printf '\n'; } >"$TMP/p.env"
    run --separate-stderr "$NI" check "$TMP/p.env"
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: line is 5002 bytes long; the limit is 4095"* ]]
}

@test "quotes, export and spaces are not env-file syntax" {
    check_text 'export A=1\nB = 2\nC= 3\n  D=4\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: 'export' is not allowed"* ]]
    [[ "$stderr" == *"p.env:2: error: space before '='"* ]]
    [[ "$stderr" == *"p.env:3: error: C: space after '='"* ]]
    [[ "$stderr" == *"p.env:4: error: leading whitespace"* ]]
    check_text 'Q="x"\n'
    assert_success
    [[ "$stderr" == *"p.env:1: warning: Q: the quotes are part of the value"* ]]
}

@test "integers NCCL would misread silently" {
    check_text 'NCCL_BUFFSIZE=16M\nNCCL_MAX_NCHANNELS=010\nNCCL_CTA_POLICY=EFFICIENCY\nNCCL_MAX_CTAS=99999999999999999999\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_BUFFSIZE=16M: not a whole number: NCCL reads only its start, 16"* ]]
    [[ "$stderr" == *"p.env:2: error: NCCL_MAX_NCHANNELS=010: a leading 0 makes it octal: NCCL reads it as 8"* ]]
    [[ "$stderr" == *"p.env:3: warning: NCCL_CTA_POLICY=EFFICIENCY: valid from 2.29.2; NCCL 2.28.9: not a number: NCCL reads it as 0"* ]]
    [[ "$stderr" == *"p.env:4: error: NCCL_MAX_CTAS=99999999999999999999: out of range for a 64-bit integer: NCCL ignores it and uses its default"* ]]
    # the release that reads it as an integer: an error (tests/releases.bats)
    run --separate-stderr "$NI" check --nccl-version 2.28.9 "$TMP/p.env"
    [[ "$stderr" == *"p.env:3: error: NCCL_CTA_POLICY=EFFICIENCY: not a number: NCCL reads it as 0"* ]]
}

@test "integers NCCL reads as written: hex, a '+', NCCL's own -1 and -2" {
    check_text 'NCCL_BUFFSIZE=0x1000000\nNCCL_MIN_NCHANNELS=+4\nNCCL_IB_SL=-1\nNCCL_IB_TC=-1\nNCCL_MAX_NCHANNELS=-2\nNCCL_PROTO=LL,\n'
    assert_success
    assert_equal "$stderr" "nccl-init: checked 1 profile: 0 errors, 0 warnings"
    run --separate-stderr "$NI" check -v "$TMP/p.env"
    [[ "$stderr" == *"p.env:1: note: NCCL_BUFFSIZE=0x1000000: NCCL reads it as 16777216"* ]]
    check_text 'NCCL_CUMEM_ENABLE=2\n'
    assert_success
    [[ "$stderr" == *"p.env:1: warning: NCCL_CUMEM_ENABLE=2: out of range: 0..1 (or -2): NCCL reads any positive value as 1 (on)"* ]]
}

@test "values that do not fit the C type NCCL keeps them in" {
    check_text 'NCCL_BUFFSIZE=4294967296\nNCCL_P2P_LEVEL=4294967296\nNCCL_IB_TIMEOUT=256\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_BUFFSIZE=4294967296: NCCL keeps it in an int, where it is 0; out of range: at least 1 (or -2): NCCL takes it as the buffer size: only -2 selects the default"* ]]
    [[ "$stderr" == *"p.env:2: error: NCCL_P2P_LEVEL=4294967296: NCCL keeps the number in an int, where it is 0: LOC"* ]]
    [[ "$stderr" == *"p.env:3: error: NCCL_IB_TIMEOUT=256: NCCL keeps it in an 8-bit field, where it is 0"* ]]
}

@test "empty values: an integer is unset, some strings are not" {
    check_text 'NCCL_BUFFSIZE=\nNCCL_NET=\nNCCL_DEBUG_SUBSYS=\nNCCL_SOCKET_IFNAME=\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: warning: NCCL_BUFFSIZE=: empty: the same as not setting it (NCCL uses its default)"* ]]
    [[ "$stderr" == *"p.env:2: error: NCCL_NET=: empty: no network is called \"\": communicator init fails"* ]]
    [[ "$stderr" == *"p.env:3: error: NCCL_DEBUG_SUBSYS=: empty: NCCL's mask is then 0: it prints nothing, not even warnings"* ]]
    [[ "$stderr" == *"p.env:4: warning: NCCL_SOCKET_IFNAME=: empty: the same as not setting it"* ]]
}

@test "switches: only 1, or any nonzero value, as the source tests them" {
    check_text 'NCCL_SHM_DISABLE=2\nNCCL_IB_DISABLE=2\nNCCL_IGNORE_CPU_AFFINITY=-1\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_SHM_DISABLE=2: out of range: 0..1: only 1 turns it on: NCCL reads every other value as 0 (off)"* ]]
    [[ "$stderr" == *"p.env:2: warning: NCCL_IB_DISABLE=2: out of range: 0..1: NCCL reads any nonzero value as 1 (on)"* ]]
    [[ "$stderr" == *"p.env:3: error: NCCL_IGNORE_CPU_AFFINITY=-1: out of range: 0..1: NCCL reads any nonzero value as 1 (on)"* ]]
}

@test "a quoted value on a key NCCL takes literally is an error" {
    check_text 'NCCL_SOCKET_IFNAME="eth0"\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_SOCKET_IFNAME=\"eth0\": NCCL takes the value as written, quotes included: nothing is called \"eth0\""* ]]
}

@test "a value nccl.conf cannot carry is a warning in check" {
    { printf 'NCCL_NET='; head -c 1100 /dev/zero | tr '\0' x; printf '\n'; } >"$TMP/p.env"
    run --separate-stderr "$NI" check "$TMP/p.env"
    assert_success
    [[ "$stderr" == *"p.env:1: warning: NCCL_NET: the value is 1100 bytes; NCCL's nccl.conf reader keeps only 1023, so the nccl-conf sink leaves it out"* ]]
}

@test "values out of range" {
    check_text 'NCCL_NTHREADS=1024\nNCCL_MAX_NCHANNELS=65\nNCCL_MIN_NCHANNELS=-1\nNCCL_NTHREADS=100\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_NTHREADS=1024: out of range: a multiple of 32 in 64..512 (or -2): NCCL uses 512"* ]]
    [[ "$stderr" == *"p.env:2: error: NCCL_MAX_NCHANNELS=65: out of range: 1..64 (or -2): NCCL uses 64"* ]]
    [[ "$stderr" == *"p.env:3: error: NCCL_MIN_NCHANNELS=-1: out of range: 0..64 (or -2): NCCL uses 0"* ]]
    [[ "$stderr" == *"p.env:4: error: duplicate key NCCL_NTHREADS"* ]]
}

@test "unknown protocol and algorithm tokens; exclusion allowed" {
    check_text 'NCCL_PROTO=LL,LL256\nNCCL_ALGO=^Ring,Tee\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_PROTO=LL,LL256: unknown token 'LL256' (expected LL,LL128,Simple"* ]]
    [[ "$stderr" == *"p.env:2: error: NCCL_ALGO=^Ring,Tee: unknown token 'Tee'"* ]]
    check_text 'NCCL_PROTO=^LL128\nNCCL_ALGO=ring,tree\n'
    assert_success
}

@test "per-collective lists: a later entry without a prefix fails NCCL's init" {
    check_text 'NCCL_ALGO=allreduce:tree;ring\nNCCL_PROTO=LL;allreduce:^LL\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_ALGO=allreduce:tree;ring: 'ring' has no collective prefix, which NCCL allows on the first entry only; communicator init fails with ncclInvalidUsage"* ]]
    [[ "$stderr" != *"p.env:2:"* ]]
}

@test "P2P and GDR levels are case-sensitive" {
    check_text 'NCCL_P2P_LEVEL=sys\nNCCL_NET_GDR_LEVEL=NVLINK\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_P2P_LEVEL=sys: levels are case-sensitive (did you mean SYS?); NCCL ignores it without a word"* ]]
    [[ "$stderr" == *"p.env:2: error: NCCL_NET_GDR_LEVEL=NVLINK: unknown level"* ]]
    check_text 'NCCL_P2P_LEVEL=SYS\nNCCL_NET_GDR_LEVEL=4\n'
    assert_success
}

@test "NCCL_DEBUG must be a level" {
    check_text 'NCCL_DEBUG=VERBOSE\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: NCCL_DEBUG=VERBOSE: unknown value (expected one of VERSION,WARN,INFO,ABORT,TRACE)"* ]]
}

@test "unknown NCCL names warn with suggestions; other keys pass through" {
    # (CUDA_DEVICE_MAX_CONNECTIONS, which SGLang sets itself, warns for that alone: see below)
    check_text 'NCCL_NCHANNELS=8\nCUDA_VISIBLE_DEVICES=whatever\nTORCH_NCCL_ASYNC_ERROR_HANDLING=whatever\n'
    assert_success
    [[ "$stderr" == *"p.env:1: warning: unknown NCCL variable NCCL_NCHANNELS; did you mean NCCL_MAX_NCHANNELS, NCCL_MIN_NCHANNELS?"* ]]
    [[ "$stderr" != *"CUDA_VISIBLE"* ]]
    [[ "$stderr" != *"TORCH_"* ]]
}

@test "combinations that do nothing warn" {
    check_text 'NCCL_PROTO=LL\nNCCL_NTHREADS=512\n'
    assert_success
    [[ "$stderr" == *"p.env:2: warning: NCCL_NTHREADS=512 does nothing with NCCL_PROTO=LL"* ]]
}

@test "every problem in a file is reported in one run, in line order" {
    check_text 'NCCL_PROTO=foo\nbad\nNCCL_BUFFSIZE=1k\n'
    assert_failure 2
    run grep -c ': error: ' <<<"$stderr"
    assert_output 3
    [[ "$stderr" == *"p.env:1:"*"p.env:2:"*"p.env:3:"* ]]
}

@test "a missing profile is an error" {
    run --separate-stderr ni_check no-such-profile
    assert_failure 2
    [[ "$stderr" == *"no-such-profile.env: error: no profile no-such-profile in $PROFILES"* ]]
    # a path that is not there: read as given, no directory to search
    run --separate-stderr "$NI" check "$TMP/missing.env"
    assert_failure 2
    assert_equal "$stderr" "$TMP/missing.env: error: cannot read profile: No such file or directory
nccl-init: checked 1 profile: 1 error, 0 warnings"
}

@test "check with no argument is a usage error" {
    run --separate-stderr "$NI" check
    assert_failure 2
    [[ "$stderr" == "nccl-init: error: check: no profile given"* ]]
}

@test "--nccl-lib takes the names from the library the workers load" {
    lib=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$lib" ] || skip "no libnccl.so.2 on this machine"
    check_text 'NCCL_PROTO=LL\nNCCL_NOT_IN_THE_LIBRARY=1\n'
    run --separate-stderr "$NI" check -v --nccl-lib "$lib" "$TMP/p.env"
    assert_success
    # whole strings of .rodata that are exactly a name: the source's 187
    [[ "$stderr" == *"187 NCCL_* names from $lib"* ]]
    [[ "$stderr" == *"warning: unknown NCCL variable NCCL_NOT_IN_THE_LIBRARY"* ]]
    # a library that knows a name the built-in table does not
    printf '\0NCCL_FROM_THE_FUTURE\0NCCL_PROTO\0' >"$TMP/libnccl.so"
    check_text 'NCCL_FROM_THE_FUTURE=1\n'
    run --separate-stderr "$NI" check "$TMP/p.env"
    [[ "$stderr" == *"unknown NCCL variable NCCL_FROM_THE_FUTURE"* ]]
    # (no version string in it: the release is named; tests/releases.bats has the rest)
    run --separate-stderr "$NI" check --nccl-lib "$TMP/libnccl.so" --nccl-version 2.28.9 "$TMP/p.env"
    assert_success
    [[ "$stderr" != *"unknown NCCL variable"* ]]
    run --separate-stderr "$NI" check --nccl-lib "$TMP/missing.so" "$TMP/p.env"
    assert_failure 2
}

# init/nccl/servers.c: what SGLang (engine.py _set_envs_and_config) and vLLM set
# themselves. An unconditional write defeats the profile; one made only when
# the key is unset does not, since the profile sets it.
@test "keys that SGLang or vLLM set themselves warn, and say whether the profile still wins" {
    f=$REPO/tests/fixtures/server-overrides.env
    run --separate-stderr "$NI" check "$f"
    assert_success
    [ "$(grep -c ': warning: ' <<<"$stderr")" = 5 ]
    [[ "$stderr" != *"server-overrides.env:3:"* ]] # NCCL_PROTO: no server touches it
    [[ "$stderr" == *"server-overrides.env:4: warning: CUDA_DEVICE_MAX_CONNECTIONS=1: SGLang always sets it to 8 (engine.py _set_envs_and_config), so the profile's value never reaches SGLang"* ]]
    # CUDA reads it, not NCCL: no plugin gets the profile's value through
    [[ "$stderr" != *"CUDA_DEVICE_MAX_CONNECTIONS=1: SGLang always sets it to 8 (engine.py _set_envs_and_config), so the profile's value never reaches SGLang;"* ]]
    [[ "$stderr" == *"server-overrides.env:5: warning: NCCL_CUMEM_ENABLE=1: SGLang sets it to 0 (1 on a multi-node MNNVL fabric or with --enable-symm-mem) when it is unset, and always with --enable-symm-mem (engine.py _set_envs_and_config): the profile's value wins unless --enable-symm-mem is given; with nccl-init's env plugin and --enforce the profile's value reaches NCCL anyway"* ]]
    [[ "$stderr" == *"server-overrides.env:6: warning: NCCL_NVLS_ENABLE=1: SGLang sets it to 0 (1 with --enable-nccl-nvls or --enable-symm-mem) when it is unset, and always with --enable-nccl-nvls or --enable-symm-mem (engine.py _set_envs_and_config): the profile's value wins unless --enable-nccl-nvls or --enable-symm-mem is given; with nccl-init's env plugin and --enforce the profile's value reaches NCCL anyway"* ]]
    [[ "$stderr" == *"server-overrides.env:7: warning: NCCL_MNNVL_ENABLE=1: SGLang sets it to 1 on a multi-node MNNVL fabric only when it is unset (engine.py _set_envs_and_config): the profile's value wins; with nccl-init's env plugin and --enforce the profile's value reaches NCCL anyway"* ]]
    [[ "$stderr" == *"server-overrides.env:8: warning: TORCHINDUCTOR_COMPILE_THREADS=4: vLLM always sets it to 1 (env_override.py), so the profile's value never reaches vLLM"* ]]
    [ "$(grep -c "with nccl-init's env plugin and --enforce the profile's value reaches NCCL anyway" <<<"$stderr")" = 3 ]
    [[ "$stderr" == *"checked 1 profile: 0 errors, 5 warnings"* ]]
    # vLLM no longer sets NCCL_CUMEM_ENABLE (PR #24141): no vLLM warning on it
    [[ "$stderr" != *"NCCL_CUMEM_ENABLE=1: vLLM"* ]]
    # the same line from a profile taken by name, with its other problems in line order
    printf 'CUDA_DEVICE_MAX_CONNECTIONS=\nNCCL_NVLS_ENABLE=2x\n' >"$TMP/p.env"
    run --separate-stderr "$NI" check "$TMP/p.env"
    assert_failure 2
    [[ "$stderr" == *"p.env:1: warning: CUDA_DEVICE_MAX_CONNECTIONS=: SGLang always sets it to 8"*"p.env:2: error: NCCL_NVLS_ENABLE=2x: not a whole number"*"p.env:2: warning: NCCL_NVLS_ENABLE=2x: SGLang sets it to 0"* ]]
}

@test "a CRLF file is one error at its first CRLF line, not one per line" {
    check_text 'NCCL_PROTO=LL\r\nNCCL_ALGO=Ring\r\n# a comment\r\nNCCL_BUFFSIZE=16777216\r\n'
    assert_failure 2
    assert_equal "$stderr" "$TMP/p.env:1: error: the file has CRLF line ends (Windows); convert it with dos2unix
nccl-init: checked 1 profile: 1 error, 0 warnings"
    check_text '# header\nNCCL_PROTO=LL\nNCCL_ALGO=Ring\r\nNCCL_BUFFSIZE=1\r\n'
    assert_failure 2
    [[ "$stderr" == "$TMP/p.env:3: error: the file has CRLF line ends (Windows)"* ]]
    [ "$(grep -c ': error: ' <<<"$stderr")" = 1 ]
    # a CR inside a value is a control character, as before
    check_text 'A=x\ry\n'
    assert_failure 2
    [[ "$stderr" == *"p.env:1: error: A: value contains control character 0x0d"* ]]
}

@test "an unknown profile name gets the directory, --profile-dir and the nearest names" {
    run --separate-stderr ni_check pcie8gpu nvlink-hgxx ib-multinode
    assert_failure 2
    [[ "$stderr" == *"$PROFILES/pcie8gpu.env: error: no profile pcie8gpu in $PROFILES; did you mean pcie-8gpu? (--profile-dir DIR looks in another directory)"* ]]
    [[ "$stderr" == *"$PROFILES/nvlink-hgxx.env: error: no profile nvlink-hgxx in $PROFILES; did you mean nvlink-hgx?"* ]]
    run --separate-stderr ni_check zzzzzzzz
    assert_failure 2
    [[ "$stderr" == *"$PROFILES/zzzzzzzz.env: error: no profile zzzzzzzz in $PROFILES (--profile-dir DIR looks in another directory)"* ]]
    # two at the same distance
    mkdir "$TMP/dir"
    touch "$TMP/dir/ab-1.env" "$TMP/dir/ab-2.env" "$TMP/dir/ab-3" "$TMP/dir/zz.env"
    run --separate-stderr "$NI" check --profile-dir "$TMP/dir" ab-x
    assert_failure 2
    [[ "$stderr" == *"no profile ab-x in $TMP/dir; did you mean ab-1 or ab-2?"* ]]
    # no directory there at all (nccl-init not installed)
    run --separate-stderr "$NI" check --root "$TMP/none" pcie-8gpu
    assert_failure 2
    [[ "$stderr" == *"$TMP/none/etc/nccl-init/profiles/pcie-8gpu.env: error: no profile pcie-8gpu: the profile directory $TMP/none/etc/nccl-init/profiles does not exist (nccl-init is not installed there); give --profile-dir DIR, or the profile's path"* ]]
}

@test "check --json: the findings as one document, escaped" {
    printf 'NCCL_PROTO=bogus\nnot a pair\nNCCL_SOCKET_IFNAME="e\\th0"\nNCCL_NCHANNELS=8\nA"B=1\n' >"$TMP/p.env"
    run --separate-stderr "$NI" check --json "$TMP/p.env" "$PROFILES/pcie-8gpu.env"
    assert_failure 2
    assert_equal "$stderr" ""
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["ok"] is False and d["errors"] == 4 and d["warnings"] == 2, d
assert d["profiles"] == [sys.argv[2], sys.argv[3]], d
f = d["findings"]
assert [(x["line"], x["key"], x["severity"]) for x in f] == [
    (1, "NCCL_PROTO", "error"), (2, None, "error"), (3, "NCCL_SOCKET_IFNAME", "warning"),
    (3, "NCCL_SOCKET_IFNAME", "error"), (4, "NCCL_NCHANNELS", "warning"), (5, None, "error")], f
assert all(x["file"] == sys.argv[2] for x in f), f
assert f[0]["message"].startswith("NCCL_PROTO=bogus: unknown token"), f
assert f[1]["message"] == "malformed line: expected KEY=VALUE", f
assert f[3]["message"].startswith("NCCL_SOCKET_IFNAME=\"e\\th0\": NCCL takes the value as written"), f
assert f[5]["message"].startswith("bad key \u0027A\"B\u0027"), f
print("ok")' "$output" "$TMP/p.env" "$PROFILES/pcie-8gpu.env"
    assert_output ok
    run --separate-stderr "$NI" check --json "$PROFILES/pcie-8gpu.env"
    assert_success
    assert_equal "$output" "{
  \"ok\": true,
  \"errors\": 0,
  \"warnings\": 0,
  \"profiles\": [\"$PROFILES/pcie-8gpu.env\"],
  \"nccl_releases\": [\"2.28.9\", \"2.29.7\", \"2.30.7\"],
  \"findings\": []
}"
    # a control byte in a file name is escaped in the JSON, as on stderr
    cp "$PROFILES/none.env" "$TMP/$(printf 'a\033b').env"
    run --separate-stderr "$NI" check --json "$TMP/$(printf 'a\033b').env" "$TMP/missing.env"
    assert_failure 2
    [[ "$output" == *'/a\u001bb.env"'* ]]
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["findings"][0]["file"].endswith("missing.env") and d["findings"][0]["line"] == 0' "$output"
}

# check judges auto.rules too: with auto among its operands, and whenever
# the profile directory has one, its bad lines are errors (exit 2), in
# --json as well.
@test "check: auto.rules' bad lines are errors, with auto or another profile, in --json too" {
    cp "$PROFILES"/*.env "$TMP/"
    printf '* -> none: matches first\ngpus=2 -> none\n' >"$TMP/auto.rules"
    run --separate-stderr "$NI" check --root "$BATS_TEST_DIRNAME/fixtures/l40s-2x" --profile-dir "$TMP" auto
    assert_failure 2
    [[ "$stderr" == *"$TMP/auto.rules:2: error: no ': REASON' after the profile"* ]]
    run --separate-stderr "$NI" check --profile-dir "$TMP" pcie-8gpu
    assert_failure 2
    [[ "$stderr" == *"$TMP/auto.rules:2: error: no ': REASON' after the profile"* ]]
    run --separate-stderr "$NI" check --json --profile-dir "$TMP" pcie-8gpu
    assert_failure 2
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not d["ok"] and d["errors"] == 1, d
f = d["findings"]
assert len(f) == 1 and f[0]["file"] == sys.argv[2] and f[0]["line"] == 2, f
assert f[0]["severity"] == "error" and f[0]["key"] is None, f
print("ok")' "$output" "$TMP/auto.rules"
    assert_output ok
    # the shipped rules are clean
    run --separate-stderr "$NI" check --root "$BATS_TEST_DIRNAME/fixtures/l40s-2x" --profile-dir "$PROFILES" auto
    assert_success
    [[ "$stderr" == *"nccl-init: checked 1 profile: 0 errors, 0 warnings" ]]
    [[ "$stderr" != *warning:* ]]
}

@test "an unknown profile name: suggestions in any case, and names it begins" {
    run --separate-stderr ni_check PCIE-8GPU
    assert_failure 2
    [[ "$stderr" == *"no profile PCIE-8GPU in $PROFILES; did you mean pcie-8gpu?"* ]]
    run --separate-stderr ni_check nvlink
    assert_failure 2
    [[ "$stderr" == *"no profile nvlink in $PROFILES; did you mean nvlink-hgx?"* ]]
    run --separate-stderr ni_check NVLINK-HGZ
    [[ "$stderr" == *"did you mean nvlink-hgx?"* ]]
}

# A FILE:LINE of a shipped profile in the docs names a line that sets a
# variable, the one the sentence is about when it names one; detect's
# "profile: NAME (...; profiles/auto.rules:N)" names a rule that picks NAME.
@test "the docs' profile and auto.rules line numbers point at what they name" {
    run python3 - "$REPO" <<'PY'
import re, sys, pathlib
repo = pathlib.Path(sys.argv[1])
bad, seen = [], 0
for doc in [repo / "README.md", *sorted((repo / "doc").glob("*"))]:
    lines = doc.read_text().splitlines()
    for i, text in enumerate(lines):
        for m in re.finditer(r"([a-z0-9-]+)\.env:(\d+)", text):
            prof = repo / "profiles" / (m.group(1) + ".env")
            if not prof.exists():
                continue
            seen += 1
            n = int(m.group(2))
            plines = prof.read_text().splitlines()
            set_line = plines[n - 1] if 0 < n <= len(plines) else ""
            if not re.match(r"[A-Z_][A-Z0-9_]*=", set_line):
                bad.append(f"{doc.name}:{i+1}: {m.group(0)} is not a variable line")
                continue
            key = set_line.split("=")[0]
            near = text[: m.start()] + (lines[i - 1] if i else "")
            named = re.findall(r"\b(NCCL_[A-Z0-9_]+)", near)
            if named and key not in named:
                bad.append(f"{doc.name}:{i+1}: {m.group(0)} sets {key}, not {named[-1]}")
        for m in re.finditer(r"^profile:    (\S+) \(.*profiles/auto\.rules:(\d+)\)$", text):
            seen += 1
            rules = (repo / "profiles" / "auto.rules").read_text().splitlines()
            n = int(m.group(2))
            if not (0 < n <= len(rules) and re.search(r"-> " + re.escape(m.group(1)) + r"\b", rules[n - 1])):
                bad.append(f"{doc.name}:{i+1}: auto.rules:{n} does not pick {m.group(1)}")
print("\n".join(bad) or f"ok {seen}")
PY
    assert_success
    assert_output --regexp '^ok [1-9]'
}
