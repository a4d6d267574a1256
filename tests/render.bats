#!/usr/bin/env bats
# nccl-init render: the canonical environment, without running anything.

load helpers/common

setup() {
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

@test "env format: sorted, with the profile and its digest" {
    run --separate-stderr env -i PATH=/usr/bin:/bin ZED=1 "$NI" render --all --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    assert_equal "$(LC_ALL=C sort <<<"$output")" "$output"
    assert_line "NCCL_PROTO=LL"
    assert_line "NCCL_INIT_PROFILE=pcie-8gpu"
    assert_line "ZED=1"
    # the digest is the SHA-256 of the resolved set as an env-file
    want=$(grep -E '^NCCL_' "$PROFILES/pcie-8gpu.env" | LC_ALL=C sort | sha256sum | cut -d' ' -f1)
    assert_line "NCCL_INIT_DIGEST=$want"
    [[ "$stderr" == *"pcie-8gpu: 5 variables"* ]]
}

@test "the environment wins over the profile, logged as an override" {
    run --separate-stderr env -i NCCL_PROTO=Simple "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    assert_line "NCCL_PROTO=Simple"
    [[ "$stderr" == *"1 override: NCCL_PROTO=Simple from the environment over $PROFILES/pcie-8gpu.env:"* ]]
}

@test "--enforce makes the profile win" {
    run --separate-stderr env -i NCCL_PROTO=Simple "$NI" render --enforce --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    assert_line "NCCL_PROTO=LL"
    [[ "$stderr" == *"NCCL_PROTO enforced from"* ]]
}

@test "later profiles override earlier ones" {
    printf 'NCCL_PROTO=Simple\nEXTRA=1\n' >"$TMP/extra.env"
    run --separate-stderr env -i "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu -p "$TMP/extra.env"
    assert_success
    assert_line "NCCL_PROTO=Simple"
    assert_line "NCCL_ALGO=Ring"
    assert_line "EXTRA=1"
    assert_line "NCCL_INIT_PROFILE=pcie-8gpu,extra"
}

@test "NCCL_INIT_PROFILE selects profiles when -p is absent" {
    run --separate-stderr env -i NCCL_INIT_PROFILE=pcie-8gpu NCCL_INIT_LOG=error "$NI" render --profile-dir "$PROFILES"
    assert_success
    assert_line "NCCL_PROTO=LL"
    refute_line --partial "NCCL_INIT_LOG"
    assert_equal "$stderr" ""
}

@test "duplicate entries collapse to the last, with a warning; malformed ones are dropped" {
    run --separate-stderr "$EXEC_WITH_ENV" A=first NOEQUALS A=last =x -- "$NI" render --all
    assert_success
    assert_line "A=last"
    refute_line --partial "first"
    refute_line --partial "NOEQUALS"
    [[ "$stderr" == *"warning: environment has A 2 times; keeping the last value"* ]]
    [[ "$stderr" == *"warning: dropping malformed environment entry 'NOEQUALS'"* ]]
}

@test "json format gives each value with its source" {
    run --separate-stderr env -i NCCL_PROTO=Simple HOME=/root "$NI" render --all --format json --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
env = {e["key"]: e for e in d["environment"]}
assert d["profile"] == "pcie-8gpu", d
assert d["overrides"] == 1 and d["resolved"] == 5
assert env["HOME"]["source"] == "environment"
assert env["NCCL_ALGO"]["source"] == "profile" and env["NCCL_ALGO"]["line"] > 0
assert env["NCCL_ALGO"]["file"].endswith("profiles/pcie-8gpu.env")
assert env["NCCL_PROTO"]["source"] == "environment"
assert env["NCCL_PROTO"]["overrides"]["value"] == "LL"
assert env["NCCL_INIT_DIGEST"]["value"] == d["digest"]
print("ok")' "$output"
    assert_output ok
}

@test "json format says what NCCL 2.28.9 reads from each NCCL value" {
    run --separate-stderr env -i NCCL_BUFFSIZE=0x1000000 NCCL_LL_BUFFSIZE=4294967296 NCCL_P2P_LEVEL=4 \
        NCCL_PROTO='LL;allreduce:Simple' NCCL_ALGO='ring;tree' NCCL_MAX_NCHANNELS=100 NCCL_SOCKET_IFNAME=eth0 \
        "$NI" render --all --format json --profile-dir "$PROFILES" -p none
    assert_success
    run python3 -c '
import json, sys
env = {e["key"]: e for e in json.loads(sys.argv[1])["environment"]}
assert env["NCCL_BUFFSIZE"]["nccl"] == {"reads": 16777216, "uses": 16777216}, env
assert env["NCCL_LL_BUFFSIZE"]["nccl"] == {"reads": 4294967296, "uses": "undefined"}, env
assert env["NCCL_MAX_NCHANNELS"]["nccl"] == {"reads": 100, "uses": 64}, env
assert env["NCCL_P2P_LEVEL"]["nccl"] == {"reads": "SYS"}, env
proto = env["NCCL_PROTO"]["nccl"]["reads"]
assert proto["Broadcast"] == {"LL": 1, "LL128": 0, "Simple": 0}, proto
assert proto["AllReduce"] == {"LL": 0, "LL128": 0, "Simple": 1}, proto
assert env["NCCL_ALGO"]["nccl"] == {"reads": "invalid"}, env
assert "nccl" not in env["NCCL_SOCKET_IFNAME"], env
print("ok")' "$output"
    assert_output ok
}

@test "nccl-conf format leaves out a value longer than NCCL's reader keeps" {
    long=$(head -c 1024 /dev/zero | tr '\0' x)
    printf 'NCCL_NET=%s\nNCCL_IB_HCA=%s\n' "$long" "${long:0:1023}" >"$TMP/long.env"
    run --separate-stderr "$NI" render --format nccl-conf -p "$TMP/long.env"
    assert_success
    refute_line --partial NCCL_NET=
    assert_line "NCCL_IB_HCA=${long:0:1023}"
    [[ "$stderr" == *"sink nccl-conf: NCCL_NET left out: NCCL's nccl.conf reader keeps only 1023 bytes of a key or value"* ]]
    [[ "$stderr" == *"warning: NCCL_NET: the value is 1024 bytes; NCCL's nccl.conf reader keeps only 1023, so the nccl-conf sink leaves it out"* ]]
}

@test "an invalid profile renders nothing and exits 2" {
    printf 'NCCL_PROTO=bogus\n' >"$TMP/bad.env"
    run --separate-stderr "$NI" render -p "$TMP/bad.env"
    assert_failure 2
    assert_equal "$output" ""
    [[ "$stderr" == *"bad.env:1: error: NCCL_PROTO=bogus"* ]]
    [[ "$stderr" == *"nccl-init: error: invalid profile: nothing rendered"* ]]
}

@test "usage errors exit 2 with one message" {
    run --separate-stderr "$NI" render --format yaml
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: --format yaml: expected env, json, etc-environment, python or nccl-conf"
    run --separate-stderr "$NI" render --bogus
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: unknown option '--bogus' (see --help)"
    run --separate-stderr "$NI" render -p
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: option '-p' needs a value"
    run --separate-stderr "$NI" check --cap-drop ALL x
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: option '--cap-drop' does not apply to check"
}

# The environment the caller runs in holds tokens and passwords: render shows
# the resolved set (what the sinks carry and the digest covers), and the whole
# environment only with --all.
@test "render prints the resolved set, not the caller's environment; --all prints it all" {
    run --separate-stderr env -i PATH=/usr/bin:/bin HF_TOKEN=hf_secret HOME=/root NCCL_DEBUG=INFO \
        NCCL_PROTO=Simple "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    digest=$(grep '^NCCL_INIT_DIGEST=' <<<"$output")
    assert_equal "$output" "NCCL_ALGO=Ring
NCCL_BUFFSIZE=16777216
$digest
NCCL_INIT_PROFILE=pcie-8gpu
NCCL_MAX_NCHANNELS=16
NCCL_P2P_LEVEL=SYS
NCCL_PROTO=Simple"
    [[ "$stderr" != *hf_secret* ]]
    [[ "$stderr" == *"render: 4 variables of the environment left out, NCCL_DEBUG among them (the command gets them too); --all prints the whole environment"* ]]
    run --separate-stderr env -i HF_TOKEN=hf_secret NCCL_PROTO=Simple "$NI" render --format json --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    [[ "$output" != *hf_secret* ]]
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["all"] is False, d
assert [e["key"] for e in d["environment"]] == ["NCCL_ALGO", "NCCL_BUFFSIZE", "NCCL_INIT_DIGEST",
    "NCCL_INIT_PROFILE", "NCCL_MAX_NCHANNELS", "NCCL_P2P_LEVEL", "NCCL_PROTO"], d
print("ok")' "$output"
    assert_output ok
    # asked for: the whole environment, in both formats
    run --separate-stderr env -i HF_TOKEN=hf_secret "$NI" render --all --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    assert_line HF_TOKEN=hf_secret
    assert_line NCCL_PROTO=LL
    [[ "$stderr" != *"left out"* ]]
    run --separate-stderr env -i HF_TOKEN=hf_secret "$NI" render --all --format json --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
env = {e["key"]: e for e in d["environment"]}
assert d["all"] is True and env["HF_TOKEN"]["value"] == "hf_secret", d
print("ok")' "$output"
    assert_output ok
    # the sinks' formats are the set already
    run --separate-stderr "$NI" render --all --format nccl-conf
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: --all: only --format env and json print the environment; the other formats are what a sink writes"
}
