#!/usr/bin/env bats
# verify against real processes: a Python tree under nccl-init whose workers
# start from a scrubbed environment, with and without the site hook.

load helpers/common

setup() {
    [ "$(id -u)" = 0 ] || skip "writes /run and the stdlib (copy-on-write in the sandbox)"
    TMP=$(mktemp -d)
    PIDS=()
    # a clean /run/nccl-init and no stdlib hook for each test
    rm -rf /run/nccl-init /etc/nccl.conf
    remove_python_hooks
}

teardown() {
    for p in "${PIDS[@]}"; do
        kill -TERM "$p" 2>/dev/null || true
    done
    for p in "${PIDS[@]}"; do
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$TMP"
}

# Starts the tree of helpers/tree.py under nccl-init with SINKS; waits until
# its 4 workers run.
start_tree() {
    env -i PATH=/usr/bin:/bin "$@" "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks "$SINKS" -- \
        /usr/bin/python3 "$BATS_TEST_DIRNAME/helpers/tree.py" "$TMP/ready" 4 2>"$TMP/init.log" &
    PIDS+=($!)
    for _ in $(seq 300); do [ -e "$TMP/ready" ] && return 0; sleep 0.05; done
    cat "$TMP/init.log" >&2
    return 1
}

@test "a Python tree with scrubbed workers under nccl-init: all good, exit 0" {
    SINKS=all start_tree
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +ALGO +BUFFSIZE +MAX_NCHANN +P2P_LEVEL +PROTO'
    # the first two workers inherit the values, the last two get them from the hook
    read -r w1 w2 w3 w4 <"$TMP/ready"
    assert_line --regexp "^$w1 +python3 +env +env +env +env +env"
    assert_line --regexp "^$w4 +python3 +site +site +site +site +site"
    assert_line --regexp "^6 processes checked, 6 with every value \(profile pcie-8gpu, digest [0-9a-f]{12}\)$"
}

@test "the same tree without the site hook: MISSING, exit 1" {
    SINKS=record start_tree
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_failure 1
    read -r w1 w2 w3 w4 <"$TMP/ready"
    assert_line --regexp "^$w1 +python3 +env +env"
    assert_line --regexp "^$w4 +python3 +MISSING +MISSING +MISSING +MISSING +MISSING"
    assert_line --partial "6 processes checked, 4 with every value"
}

@test "without the hook, nccl.conf still covers the NCCL variables" {
    SINKS=record,nccl-conf start_tree
    run --separate-stderr "$NI" verify
    assert_success
    read -r w1 w2 w3 w4 <"$TMP/ready"
    assert_line --regexp "^$w4 +python3 +nccl.conf +nccl.conf"
}

@test "an explicit conflicting value: CONFLICT, with the value" {
    SINKS=all start_tree NCCL_ALGO=Tree
    run --separate-stderr "$NI" verify
    assert_success
    read -r w1 w2 w3 w4 <"$TMP/ready"
    # the operator's override is the resolved value: the scrubbed workers get it too
    assert_line --regexp "^$w4 +python3 +site"
    # a process started by hand with another value
    env NCCL_ALGO=Ring NCCL_INIT_DIGEST=x /usr/bin/python3 -c 'import time; time.sleep(60)' &
    PIDS+=($!)
    other=$!
    sleep 0.3
    run --separate-stderr "$NI" verify --pid "$other"
    assert_failure 1
    assert_line --regexp "^$other +python3 +CONFLICT"
    assert_line "pid $other: NCCL_ALGO=Ring, the profile says Tree"
}

@test "a process that has loaded libnccl.so.2 is found, wherever it came from" {
    lib=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$lib" ] || skip "no libnccl.so.2 on this machine"
    SINKS=all start_tree
    env -i /usr/bin/python3 -S -c "import ctypes, sys, time; ctypes.CDLL(sys.argv[1]); open(sys.argv[2], 'w').close(); time.sleep(60)" \
        "$lib" "$TMP/loaded" &
    PIDS+=($!)
    nccl=$!
    for _ in $(seq 200); do [ -e "$TMP/loaded" ] && break; sleep 0.05; done
    run --separate-stderr "$NI" verify --json
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])][0]
assert p["nccl"] is True, p
# python -S: no site hook; nothing inherited; only nccl.conf reaches it
assert p["variables"]["NCCL_PROTO"] == {"via": "nccl.conf", "value": "LL"}, p
print("ok")' "$output" "$nccl"
    assert_output ok
}

@test "--json and --pid" {
    SINKS=all start_tree
    read -r w1 w2 w3 w4 <"$TMP/ready"
    run --separate-stderr "$NI" verify --json --pid "$w3"
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["checked"] == 1 and d["ok"] is True, d
p = d["processes"][0]
assert p["python"] is True and p["variables"]["NCCL_BUFFSIZE"] == {"via": "site", "value": "16777216"}, p
print("ok")' "$output"
    assert_output ok
}

@test "as a non-root user, on its own processes" {
    command -v setpriv >/dev/null || skip "no setpriv"
    SINKS=all start_tree
    setpriv --reuid 65534 --regid 65534 --clear-groups env -i NCCL_PROTO=LL /usr/bin/python3 -c 'import time; time.sleep(60)' &
    PIDS+=($!)
    mine=$!
    sleep 0.5
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify --pid "$mine"
    echo "$output"
    [ "$status" -le 1 ]
    assert_line --regexp "^$mine +python3 +"
    # another user's processes are not readable: reported, not a crash
    read -r w1 _ <"$TMP/ready"
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify --pid "$w1"
    assert_line --partial "pid $w1: cannot read its environment: Permission denied"
}

@test "no resolved set: a usage error" {
    rm -rf /run/nccl-init
    run --separate-stderr "$NI" verify
    assert_failure 2
    [[ "$stderr" == *"verify: no resolved set in /run/nccl-init/profile.env"* ]]
}
