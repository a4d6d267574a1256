#!/usr/bin/env bats
# bats file_tags=demo
#
# make demo, run as the README gives it, and what it prints: the first thing
# a user runs. It once showed 4 of 8 workers "after" while every other test
# passed, because none read it. It runs once, in run-tests.sh's pass with the
# release binary: make demo builds and runs that one (build/nccl-init).

load helpers/common

setup_file() {
    # The demo makes its own sandbox (build/demo/layers), not make test's:
    # its nccl-init install must not put a hook into the suite's /usr.
    cd "$REPO"
    DEMO_STATUS=0
    env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory demo >"$BATS_FILE_TMPDIR/demo.out" 2>&1 ||
        DEMO_STATUS=$?
    export DEMO_STATUS
}

# The lines of the section whose heading holds $1, colours taken out.
section() {
    sed 's/\x1b\[[0-9;]*m//g' "$BATS_FILE_TMPDIR/demo.out" |
        awk -v h="$1" '/^== / { on = index($0, h) > 0; next } on'
}

setup() {
    LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
}

@test "make demo exits 0 and shows every section" {
    cat "$BATS_FILE_TMPDIR/demo.out"
    [ "$DEMO_STATUS" = 0 ]
    local h
    for h in "before: " "after: " "nccl-init verify" "docker stop" "what nccl-init wrote" \
        "--enforce" "stopped at the door"; do
        grep -q "^.*== .*$h" "$BATS_FILE_TMPDIR/demo.out" || fail "no section '$h'"
    done
}

@test "before: the scrubbed half of the workers lose the profile (fewer than 8 of 8)" {
    run section "before: "
    echo "$output"
    assert_line --regexp '^  [0-7] of 8 workers have all 6 values$'
    assert_line --regexp '^  0 inherits +[0-9]+ +Ring +16777216 +16 +SYS +LL +lo +✓$'
    assert_line --regexp '^  7 scrubbed +[0-9]+ +- +- +- +- +- +- +✗$'
}

@test "after: under nccl-init 8 of 8 workers have all six values, the scrubbed ones too" {
    run section "after: "
    echo "$output"
    assert_line '  8 of 8 workers have all 6 values'
    [ "$(grep -cE '^  [0-7] (inherits|scrubbed) +[0-9]+ +Ring +16777216 +16 +SYS +LL +lo +✓$' <<<"$output")" = 8 ]
    refute_output --partial '✗'
    assert_line --regexp '^  nccl-init: profile pcie-8gpu,demo-socket: 6 variables, digest [0-9a-f]{12}, 0 overrides$'
    refute_output --partial 'warning'
}

@test "after: NCCL's env plugin answers a scrubbed python3 -S worker from the record, and NCCL's log says so" {
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine ($LIB)"
    run section "after: "
    assert_line --regexp '^server: NCCL worker [0-9]+: python3 -S \(no hook\), environment empty but NCCL_DEBUG$'
    assert_line --regexp 'NCCL INFO nccl-init: 6 values from /run/nccl-init/profile.env \(profile pcie-8gpu,demo-socket, digest [0-9a-f]{12}\), not enforced$'
    assert_line --regexp 'NCCL INFO ENV/Plugin: Using nccl-init \(v1\)$'
    assert_line --regexp 'NCCL INFO Successfully loaded external env plugin .*/libnccl-env\.so$'
    assert_line --regexp 'NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo$'
    assert_line --regexp 'NCCL INFO Bootstrap: Using lo:127\.0\.0\.1'
    assert_line --regexp '^    result: NCCL 2\.[0-9]+\.[0-9]+, ncclGetUniqueId ok$'
}

@test "verify over the running server: every worker, the NCCL one through the plugin, exit 0" {
    run section "nccl-init verify"
    echo "$output"
    assert_line --regexp '^PID +COMMAND +ALGO +BUFFSIZE +MAX_NCHANN +P2P_LEVEL +PROTO +SOCKET_IFN'
    [ "$(grep -cE '^[0-9]+ +python3 +site +site +site +site +site +site' <<<"$output")" = 4 ]
    refute_output --partial MISSING
    refute_output --partial CONFLICT
    if [ -r "$LIB" ]; then
        # the key NCCL asked without a GPU is NCCL's own word (the plugin's
        # witness); the tuning keys, asked only at a communicator, the plugin's record
        assert_line --regexp '^[0-9]+ +python3 +plugin +plugin +plugin +plugin +plugin +nccl:rec +2\.'
        assert_line --regexp '^pid [0-9]+ \(python3\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record; not asked yet: NCCL_ALGO NCCL_BUFFSIZE NCCL_MAX_NCHANNELS NCCL_P2P_LEVEL NCCL_PROTO \(NCCL asks the tuning keys at its first communicator\)'
        assert_line --regexp '^11 processes checked, 11 with every value \(profile pcie-8gpu,demo-socket, digest [0-9a-f]{12}\)$'
    else
        assert_line --regexp '^10 processes checked, 10 with every value'
    fi
    assert_line '  exit status 0'
}

@test "verify --json over the running server: NCCL's reads, per process that loaded NCCL, in build/demo/verify.json" {
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine ($LIB)"
    run section "nccl-init verify"
    assert_line "  verify --json (build/demo/verify.json): NCCL's reads in 1 process"
    assert_line --regexp '^    pid [0-9]+: NCCL_SOCKET_IFNAME=lo from record$'
    # the document itself: the NCCL worker's witness, trusted, its NCCL and its read
    run python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["processes"] if r.get("witness")]
assert len(rows) == 1, rows
w = rows[0]["witness"]
assert w["trusted"] and w["pid"] == rows[0]["pid"], w
assert [(c["version"], c["interface"]) for c in w["copies"]] == [("2.28.9", "v1")], w["copies"]
assert [(r["name"], r["value"], r["from"]) for r in w["reads"]] == [("NCCL_SOCKET_IFNAME", "lo", "record")], w["reads"]
print("ok")
' "$REPO/build/demo/verify.json"
    echo "$output"
    assert_output ok
}

@test "the stop: the server drains first, then its workers; no SIGKILL, the server's exit status" {
    run section "docker stop"
    echo "$output"
    assert_line --index 0 'server: SIGTERM: draining for 1.0 s'
    assert_line --regexp '^server: (8|9) workers stopped, exit statuses (0 ?)+; server exits 0$'
    assert_line --regexp '^    nccl-init: stop: ended by the main child.s own exit after [0-9]+ ms'
    refute_output --partial SIGKILL
    assert_line '  exit status 0'
}

@test "what nccl-init wrote: the record, in the demo's own layers under build/" {
    run section "what nccl-init wrote"
    assert_line '    | NCCL_PROTO=LL'
    assert_line '    | NCCL_SOCKET_IFNAME=lo'
    # in the demo's own copy-on-write layer of /run, under build/ (install's
    # hook and link land in its /etc and /usr layers, unless a current one
    # is there already, as under make test's sandbox after other suites)
    [ -f "$REPO/build/demo/layers/run.upper/nccl-init/profile.env" ]
}

@test "--enforce: NCCL uses the profile's NCCL_SOCKET_IFNAME over the worker's own; without it, the worker's" {
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine ($LIB)"
    run section "--enforce"
    echo "$output"
    local without with
    without=$(sed -n '/without --enforce/,/with --enforce/p' <<<"$output")
    with=$(sed -n '/with --enforce/,$p' <<<"$output")
    [[ $without == *"environment NCCL_SOCKET_IFNAME=eth9"* ]]
    [[ $without == *"not enforced"* ]]
    [[ $without == *"NCCL_SOCKET_IFNAME set by environment to eth9"* ]]
    [[ $without == *"ncclGetUniqueId failed"* ]]
    [[ $with == *"environment NCCL_SOCKET_IFNAME=eth9"* ]]
    [[ $with == *"), enforced"* ]]
    [[ $with == *"NCCL_SOCKET_IFNAME set by environment to lo"* ]]
    [[ $with == *"Bootstrap: Using lo:127.0.0.1"* ]]
    [[ $with == *"ncclGetUniqueId ok"* ]]
}

@test "the typo check: each mistake with its line, exit 2, nothing started" {
    run section "stopped at the door"
    assert_line --partial 'build/demo/typos.env:1: error: NCCL_BUFFSIZE=16M: not a whole number'
    assert_line --partial 'build/demo/typos.env:2: error: NCCL_P2P_LEVEL=sys: levels are case-sensitive'
    assert_line --partial 'build/demo/typos.env:3: error: NCCL_NTHREADS=1024: out of range'
    assert_line --partial 'build/demo/typos.env:4: warning: unknown NCCL variable NCCL_NCHANNELS'
    assert_line '  exit status 2: the server was not started'
}

@test "the README's verify sample (\"Did it work?\") is make demo's output, PIDs and digest aside" {
    # Both sides with the PIDs, the digest and the library's path replaced
    # (under make test's sandbox, overlay on overlay, the kernel's map names
    # it /local/cuda-13.0/...); each README line must be a line of the
    # demo's verify.
    norm() {
        sed -E 's/^[0-9]+ /PID /; s/^pid [0-9]+ /pid PID /; s/digest [0-9a-f]{12}/digest DIGEST/
            s/\[copy ([0-9]+): (v[12]), [^]]*\]$/[copy \1: \2, LIB]/'
    }
    local block demo line n=0
    block=$(awk '/^## Did it work\?/ { on = 1 } on && /^\$ nccl-init verify$/ { grab = 1; next }
        grab && /^```$/ { exit } grab' "$REPO/README.md" | norm)
    [ -n "$block" ] || fail "README.md, \"Did it work?\": no block after '\$ nccl-init verify'"
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine ($LIB): the sample has its row"
    demo=$(section "nccl-init verify" | norm)
    while IFS= read -r line; do
        grep -qxF -- "$line" <<<"$demo" || fail "README.md, \"Did it work?\": not in make demo's verify: $line"
        n=$((n + 1))
    done <<<"$block"
    [ "$n" -ge 4 ]
}

@test "the README: at most 300 lines, the Dockerfile on its first screen, two set-up commands" {
    [ "$(wc -l <"$REPO/README.md")" -le 300 ]
    local at
    at=$(grep -n -m 1 '^```dockerfile$' "$REPO/README.md" | cut -d: -f1)
    [ -n "$at" ] && [ "$at" -le 40 ]
    run awk '/^On a fresh Debian 12 machine/ { on = 1 } on && /^```sh$/ { grab = 1; next }
        grab && /^```$/ { exit } grab { print $1, $2 }' "$REPO/README.md"
    assert_output $'make demo\nmake test'
}
