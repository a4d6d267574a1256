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
    stop_writers
    for p in "${PIDS[@]}"; do
        kill -TERM "$p" 2>/dev/null || true
    done
    for p in "${PIDS[@]}"; do
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$TMP"
}

# Starts the tree of helpers/tree.py under nccl-init with SINKS, run by
# PYTHON (default /usr/bin/python3; its spawn workers run the same
# program); waits until its 4 workers run.
start_tree() {
    env -i PATH=/usr/bin:/bin "$@" "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks "$SINKS" -- \
        "${PYTHON:-/usr/bin/python3}" "$BATS_TEST_DIRNAME/helpers/tree.py" "$TMP/ready" 4 2>"$TMP/init.log" &
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

@test "a Python whose executable is not named python*: known by the runtime inside it, its values site" {
    # Debian's python3.11 has the runtime inside the executable (no
    # libpython mapped): a copy of it under another name is what a server
    # with a Python of its own looks like
    mkdir "$TMP/bin"
    cp "$(readlink -f /usr/bin/python3)" "$TMP/bin/myserver"
    PYTHON=$TMP/bin/myserver SINKS=all start_tree
    read -r w1 w2 w3 w4 <"$TMP/ready"
    run grep -c libpython "/proc/$w4/maps"
    assert_output 0
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    assert_line --regexp "^$w1 +myserver +env +env +env +env +env$"
    assert_line --regexp "^$w4 +myserver +site +site +site +site +site$"
    assert_line --regexp "^6 processes checked, 6 with every value "
    # named with --pid too: the hook's descriptor counts in it
    run --separate-stderr "$NI" verify --pid "$w4"
    assert_success
    assert_line --regexp "^$w4 +myserver +site +site +site +site +site$"
}

@test "a Python at a path longer than 255 bytes is recognised, its values site" {
    d=$TMP
    for i in 1 2 3 4 5 6; do d=$d/$(printf "level${i}_%040d" 0); done
    mkdir -p "$d"
    cp "$(readlink -f /usr/bin/python3)" "$d/python3"
    (( ${#d} + 8 > 255 ))
    PYTHON=$d/python3 SINKS=all start_tree
    [ "$(readlink "/proc/$(cut -d' ' -f4 "$TMP/ready")/exe")" = "$d/python3" ]
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    read -r w1 w2 w3 w4 <"$TMP/ready"
    assert_line --regexp "^$w4 +python3 +site +site +site +site +site$"
    assert_line --regexp "^6 processes checked, 6 with every value "
}

@test "a program that embeds Python through libpython3.N.so, whatever its name: site" {
    command -v pkg-config >/dev/null && pkg-config --exists python3-embed ||
        skip "no python3-embed (make deps installs python3-dev and pkg-config)"
    # Py_BytesMain: the interpreter's own command line, so that the
    # tree's spawn workers run this program too
    printf '#include <Python.h>\nint main(int argc, char **argv) { return Py_BytesMain(argc, argv); }\n' >"$TMP/embed.c"
    gcc -o "$TMP/embedded-llm" "$TMP/embed.c" $(pkg-config --cflags --libs python3-embed)
    # the runtime is the library's: the program itself only calls it
    run nm -D --defined-only "$TMP/embedded-llm"
    assert_success
    refute_output --regexp ' Py_Initialize$'
    PYTHON=$TMP/embedded-llm SINKS=all start_tree
    read -r w1 w2 w3 w4 <"$TMP/ready"
    grep -q '/libpython3\.[0-9]*\.so' "/proc/$w4/maps"
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    assert_line --regexp "^$w1 +embedded-llm +env +env +env +env +env$"
    assert_line --regexp "^$w4 +embedded-llm +site +site +site +site +site$"
    assert_line --regexp "^6 processes checked, 6 with every value "
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

@test "an enforced record (--enforce): the hook's value beats the exec environment's, site" {
    keep_writer --enforce --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record
    grep -qx NCCL_INIT_ENFORCE=1 /run/nccl-init/profile.env
    env NCCL_ALGO=Tree NCCL_PROTO=Simple /usr/bin/python3 -c 'import sys, time; open(sys.argv[1], "w").close(); time.sleep(60)' "$TMP/held" &
    PIDS+=($!)
    other=$!
    for _ in $(seq 200); do [ -e "$TMP/held" ] && break; sleep 0.05; done
    run --separate-stderr "$NI" verify --pid "$other"
    assert_success
    assert_line --regexp "^$other +python3 +site +site +site +site +site$"
    # the same process, its hook held by a record without the enforce line
    # (a restart without --enforce): the exec environment's values win
    sed -i /NCCL_INIT_ENFORCE/d /run/nccl-init/profile.env
    env NCCL_ALGO=Tree /usr/bin/python3 -c 'import sys, time; open(sys.argv[1], "w").close(); time.sleep(60)' "$TMP/held2" &
    PIDS+=($!)
    plain=$!
    for _ in $(seq 200); do [ -e "$TMP/held2" ] && break; sleep 0.05; done
    run --separate-stderr "$NI" verify --pid "$plain"
    assert_failure 1
    assert_line --regexp "^$plain +python3 +CONFLICT +site +site +site +site$"
}

@test "a descriptor of a record no reader would take is no evidence: MISSING" {
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    # the record made group-writable and the process opens it itself: the
    # hook refuses such a record, so a descriptor of it proves nothing
    chmod g+w /run/nccl-init/profile.env
    env -i /usr/bin/python3 -S -c 'import os, sys, time; f = os.open("/run/nccl-init/profile.env", os.O_RDONLY); open(sys.argv[1], "w").close(); time.sleep(60)' "$TMP/held" &
    PIDS+=($!)
    other=$!
    for _ in $(seq 200); do [ -e "$TMP/held" ] && break; sleep 0.05; done
    # as the current record it is no set to judge by at all
    run --separate-stderr "$NI" verify --pid "$other"
    assert_failure 2
    [[ "$stderr" == *"is uid 0's, mode 0664, 1 link(s): another user could have written it"* ]]
    # replaced by one the readers take, the process still holds the old one
    cp /run/nccl-init/profile.env /run/nccl-init/new
    chmod 0644 /run/nccl-init/new
    mv /run/nccl-init/new /run/nccl-init/profile.env
    run --separate-stderr "$NI" verify --pid "$other"
    assert_failure 1
    assert_line --regexp "^$other +python3 +MISSING +MISSING +MISSING +MISSING +MISSING$"
    # a process holding the current one
    rm "$TMP/held"
    env -i /usr/bin/python3 -S -c 'import os, sys, time; f = os.open("/run/nccl-init/profile.env", os.O_RDONLY); open(sys.argv[1], "w").close(); time.sleep(60)' "$TMP/held" &
    PIDS+=($!)
    other=$!
    for _ in $(seq 200); do [ -e "$TMP/held" ] && break; sleep 0.05; done
    run --separate-stderr "$NI" verify --pid "$other"
    assert_success
    assert_line --regexp "^$other +python3 +site +site +site +site +site$"
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
assert p["variables"]["NCCL_PROTO"] == {"via": "nccl.conf", "value": "LL", "nccl": {"asked": False}}, p
print("ok")' "$output" "$nccl"
    assert_output ok
}

# Starts python3 -S under nccl-init (record sink only); it loads the library
# $1 and stays. Sets LOADED to its pid.
start_loader() {
    env -i PATH=/usr/bin:/bin "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks record -- \
        /usr/bin/python3 -S -c "import ctypes, os, sys, time; ctypes.CDLL(sys.argv[1]); open(sys.argv[2], 'w').write(str(os.getpid())); time.sleep(60)" \
        "$1" "$TMP/loaded" 2>"$TMP/init.log" &
    PIDS+=($!)
    for _ in $(seq 200); do [ -s "$TMP/loaded" ] && break; sleep 0.05; done
    LOADED=$(cat "$TMP/loaded")
    rm -f "$TMP/loaded"
}

@test "verify names the libnccl version each NCCL process loaded, next to the one the rules describe" {
    lib=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$lib" ] || skip "no libnccl.so.2 on this machine"
    command -v strings >/dev/null || skip "no strings (binutils)"
    # the version, read from the library independently of nccl-init
    want=$(strings -a "$lib" | grep -m1 -E '^NCCL version [0-9][^ ]*$')
    want=${want#NCCL version }
    [ -n "$want" ]
    real=$(readlink -f "$lib")
    start_loader "$lib"
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +ALGO +BUFFSIZE +MAX_NCHANN +P2P_LEVEL +PROTO +LIBNCCL$'
    assert_line --regexp "^$LOADED +python3 +env +env +env +env +env +${want//+/\\+}$"
    if [[ "$want" =~ ^(2\.28\.9|2\.29\.7|2\.30\.7)(\+|$) ]]; then
        assert_line "libnccl $want in 1 process ($real): NCCL ${BASH_REMATCH[1]}, a release whose rules check and run know (--nccl-lib, or --nccl-version ${BASH_REMATCH[1]})"
    else
        assert_line --regexp "^libnccl ${want//+/\\+} in 1 process \(.*\): (newer than|not) "
    fi
    run --separate-stderr "$NI" verify --json
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["nccl_releases"] == ["2.28.9", "2.29.7", "2.30.7"], d
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])][0]
assert p["libnccl"] == {"path": sys.argv[3], "version": sys.argv[4]}, p
print("ok")' "$output" "$LOADED" "$real" "$want"
    assert_output ok
}

@test "libnccl versions: another release, none, and one library read once for the processes that map it" {
    command -v gcc >/dev/null || skip "no gcc"
    mkdir "$TMP/other" "$TMP/none"
    echo 'const char nccl_version[] = "NCCL version 2.99.0+cuda99.9";' >"$TMP/v.c"
    gcc -shared -fPIC -o "$TMP/other/libnccl.so.2" "$TMP/v.c"
    echo 'const char nccl_version[] = "NCCL version %d.%d.%d";' >"$TMP/n.c"
    gcc -shared -fPIC -o "$TMP/none/libnccl.so.2" "$TMP/n.c"
    start_loader libc.so.6 # no libnccl at all
    plain=$LOADED
    start_loader "$TMP/other/libnccl.so.2"
    a=$LOADED
    start_loader "$TMP/other/libnccl.so.2"
    b=$LOADED
    start_loader "$TMP/none/libnccl.so.2"
    c=$LOADED
    run --separate-stderr "$NI" verify --pid "$plain" --pid "$a" --pid "$b" --pid "$c"
    echo "$output"
    assert_success
    assert_line --regexp "^$plain +python3 +env +env +env +env +env +-$"
    assert_line --regexp "^$a +python3 +env +env +env +env +env +2\.99\.0\+cuda99\.9$"
    assert_line --regexp "^$b +python3 .* 2\.99\.0\+cuda99\.9$"
    assert_line --regexp "^$c +python3 .* \?$"
    assert_line "libnccl 2.99.0+cuda99.9 in 2 processes ($TMP/other/libnccl.so.2): newer than the releases check and run know (2.28.9, 2.29.7, 2.30.7): --nccl-lib applies 2.30.7's rules"
    assert_line "libnccl of unknown version in 1 process ($TMP/none/libnccl.so.2: no NCCL version string in it): check and run apply every known release's rules (2.28.9, 2.29.7, 2.30.7)"
    # each library is opened once, however many processes map it
    if command -v strace >/dev/null; then
        strace -f -e trace=open,openat -o "$TMP/trace" "$NI" verify --pid "$a" --pid "$b" --pid "$c" >/dev/null
        [ "$(grep -c 'map_files/' "$TMP/trace")" = 2 ]
    fi
    run --separate-stderr "$NI" verify --json --pid "$c" --pid "$plain"
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
p = {p["pid"]: p for p in d["processes"]}
assert p[int(sys.argv[2])]["libnccl"] == {"path": sys.argv[3], "version": None}, p
assert p[int(sys.argv[4])]["libnccl"] is None, p
print("ok")' "$output" "$c" "$TMP/none/libnccl.so.2" "$plain"
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
assert p["python"] is True and p["variables"]["NCCL_BUFFSIZE"] == {"via": "site", "value": "16777216", "nccl": {"asked": False}}, p
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
    # another user's processes are not readable: not verified, with the
    # reason, and exit 1 (it used to be a note and exit 0: "0 processes
    # checked" passed what it could not read)
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify --pid "$w1"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$w1 +python3 +not verified: permission denied$"
    assert_line "pid $w1: not verified: cannot read its environment (/proc/$w1/environ): Permission denied"
    assert_line --partial "1 process checked, 0 with every value, 1 not verified"
}

@test "no resolved set: a usage error" {
    rm -rf /run/nccl-init
    run --separate-stderr "$NI" verify
    assert_failure 2
    [[ "$stderr" == *"verify: no resolved set in /run/nccl-init/profile.env"* ]]
}

@test "a record with no pair, or one that cannot be read: a usage error naming it, nothing on stdout" {
    mkdir -p /run/nccl-init
    printf '# nothing\n' >/run/nccl-init/profile.env
    run --separate-stderr "$NI" verify
    assert_failure 2
    assert_output ""
    [[ "$stderr" == "nccl-init: error: verify: no resolved set in /run/nccl-init/profile.env (is nccl-init running here?)" ]]
    rm /run/nccl-init/profile.env
    mkdir /run/nccl-init/profile.env
    run --separate-stderr "$NI" verify --json
    assert_failure 2
    assert_output ""
    echo "stderr: $stderr"
    [[ "$stderr" == "nccl-init: error: verify: cannot read the resolved set, /run/nccl-init/profile.env: "* ]]
}

@test "a record another user could have written is not the set to judge by: a usage error naming its owner" {
    # an emptyDir record directory (0777) that another user filled with a
    # record of no keys: every process would pass against it
    mkdir -p -m 0777 /run/nccl-init
    printf 'NCCL_INIT_DIGEST=0\n' >/run/nccl-init/profile.env
    chown 65534:65534 /run/nccl-init/profile.env
    run --separate-stderr "$NI" verify --pid $$
    assert_failure 2
    assert_output ""
    [[ "$stderr" == "nccl-init: error: verify: the resolved set in /run/nccl-init/profile.env is uid 65534's, mode 0644, 1 link(s): another user could have written it;"* ]]
    # root's, but writable by its group; one with a second link
    chown 0:0 /run/nccl-init/profile.env
    chmod 0664 /run/nccl-init/profile.env
    run --separate-stderr "$NI" verify --pid $$
    assert_failure 2
    [[ "$stderr" == *"is uid 0's, mode 0664, 1 link(s): another user"* ]]
    chmod 0644 /run/nccl-init/profile.env
    ln /run/nccl-init/profile.env /run/nccl-init/other
    run --separate-stderr "$NI" verify --pid $$
    assert_failure 2
    [[ "$stderr" == *"is uid 0's, mode 0644, 2 link(s): another user"* ]]
}

# --- The site hook's record: a descriptor, not a note (issue 11) ---
#
# The hook keeps /run/nccl-init/profile.env open for the life of the
# process; verify finds it in /proc/PID/fd. The tests below reproduce what
# went wrong with the notes in /run/nccl-init/applied (one symlink per PID):
# reused PIDs, another user's names, growth, and what verify could not read.

# Runs the bash script $1 as PID 1 of a new PID namespace with its own
# /proc, where /proc/sys/kernel/ns_last_pid makes PIDs repeat on demand
# without touching the machine's own allocation. The script gets $NI,
# $PROFILES, $HELPERS, $TMP, and nap (50 ms without a fork: the PIDs stay
# where the script puts them).
in_pid_ns() {
    command -v unshare >/dev/null || skip "no unshare"
    unshare --pid --fork --mount-proc true 2>/dev/null || skip "cannot make a PID namespace here"
    mkfifo "$TMP/never"
    NI=$NI PROFILES=$PROFILES HELPERS=$BATS_TEST_DIRNAME/helpers TMP=$TMP \
        unshare --pid --fork --mount-proc bash -c '
set -eu
exec 9<>"$TMP/never"
nap() { read -t "${1:-0.05}" -u 9 || true; }
'"$1"
}

# The tree under nccl-init in a PID namespace (tree.py: 4 spawn workers, the
# last two from a scrubbed parent), started as run $1; waits for it without
# forking, so that the same start makes the same PIDs. Without nccl.conf,
# whose NCCL_* lines would cover for a hook that verify cannot see.
NS_TREE='
tree() {
    env -i PATH=/usr/bin:/bin "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record -- \
        /usr/bin/python3 "$HELPERS/tree.py" "$TMP/ready.$1" 4 2>>"$TMP/init.log" &
    NIPID=$!
    for ((i = 0; i < 1200; i++)); do [ -e "$TMP/ready.$1" ] && return 0; nap; done
    return 1
}
stop() { kill -TERM "$NIPID"; wait "$NIPID" || true; }
'

@test "a restart with /run kept, the workers on the PIDs of the first run: every worker passes" {
    # A container restart keeps /run and starts the same tree again, so
    # its processes get the PIDs of the last run. Notes named by PID
    # existed already, so 3 of 4 workers could not write theirs: MISSING.
    run --separate-stderr in_pid_ns "$NS_TREE"'
# the first start writes and byte-compiles the hook (one more process):
# done once before, so that both runs start the same processes
"$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record -- true 2>/dev/null
read -r last </proc/sys/kernel/ns_last_pid
tree 1
"$NI" verify >"$TMP/verify.1" || echo "run 1: verify exit $?"
stop
nap 3   # a restart takes seconds: the old notes are not fresh any more
echo "$last" >/proc/sys/kernel/ns_last_pid
tree 2
"$NI" verify >"$TMP/verify.2" || echo "run 2: verify exit $?"
stop
echo "run 1 workers: $(cat "$TMP/ready.1")"
echo "run 2 workers: $(cat "$TMP/ready.2")"'
    echo "$output"; echo "$stderr"
    cat "$TMP/verify.1" "$TMP/verify.2"
    assert_success
    # the same PIDs: the restart is reproduced, not hoped for
    assert_equal "$(cat "$TMP/ready.2")" "$(cat "$TMP/ready.1")"
    refute_line --partial "verify exit"
    read -r w1 w2 w3 w4 <"$TMP/ready.2"
    grep -Eq "^$w4 +python3 +site +site +site +site +site$" "$TMP/verify.2"
    grep -Eq "^6 processes checked, 6 with every value " "$TMP/verify.2"
}

@test "PIDs reused over and over: every hooked interpreter verifiable while alive" {
    # 10 000 starts lost 11.9% of the notes to PID reuse. Here every round
    # reuses the PIDs of the round before (ns_last_pid set back), the worst
    # case; VERIFY_ROUNDS x VERIFY_PER_ROUND starts (default 10 x 100).
    rounds=${VERIFY_ROUNDS:-10} per=${VERIFY_PER_ROUND:-100}
    run --separate-stderr "$NI" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    # the record's writer in the namespace, where its readers look for it
    run --separate-stderr in_pid_ns '
"$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks record -- sleep 1000 &
until grep -qx "NCCL_INIT_PID=$!" /run/nccl-init/profile.env 2>/dev/null; do nap; done
read -r base </proc/sys/kernel/ns_last_pid
for ((r = 1; r <= '"$rounds"'; r++)); do
    echo "$base" >/proc/sys/kernel/ns_last_pid
    pids=()
    for ((i = 0; i < '"$per"'; i++)); do
        env -i /usr/bin/python3 -c "import sys, time; open(sys.argv[1], \"w\").close(); time.sleep(600)" \
            "$TMP/up.$r.$i" &
        pids+=($!)
    done
    for ((i = 0, t = 0; i < '"$per"' && t < 2400; t++)); do
        if [ -e "$TMP/up.$r.$i" ]; then i=$((i + 1)); else nap; fi
    done
    args=()
    for p in "${pids[@]}"; do args+=(--pid "$p"); done
    "$NI" verify "${args[@]}" >"$TMP/verify.$r" || echo "round $r: verify exit $?"
    echo "round $r: pids ${pids[0]}..${pids[-1]}: $(tail -n 1 "$TMP/verify.$r")"
    kill "${pids[@]}"
    wait "${pids[@]}" || true
done'
    echo "$output"; echo "$stderr"
    assert_success
    refute_line --partial "verify exit"
    [ "$(grep -c "processes checked, $per with every value " <<<"$output")" = "$rounds" ]
    # every round on the same PIDs
    [ "$(grep -o 'pids [0-9.]*' <<<"$output" | sort -u | wc -l)" = 1 ]
}

@test "another user cannot plant a name or reach a root worker's descriptors: it still passes" {
    command -v setpriv >/dev/null || skip "no setpriv"
    # As uid 65534, 32 768 names in the 1777 notes directory made every
    # root worker MISSING. Now there is no directory anyone else can write,
    # and the evidence is in the worker's own descriptor table.
    run --separate-stderr in_pid_ns "$NS_TREE"'
"$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks record -- true 2>/dev/null
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
# every name the old hook would have used for the next 3000 PIDs, then
# anything at all in /run/nccl-init
nobody /usr/bin/python3 -S -c "
import os
planted = 0
for p in range(2, 3001):
    try:
        os.symlink(\"x:NCCL_PROTO\", \"/run/nccl-init/applied/%d\" % p)
        planted += 1
    except OSError:
        pass
print(\"planted names:\", planted)
try:
    open(\"/run/nccl-init/planted\", \"w\")
    print(\"planted a file\")
except OSError:
    print(\"cannot write /run/nccl-init\")"
tree 1
read -r w1 w2 w3 w4 <"$TMP/ready.1"
nobody ls "/proc/$w4/fd" >/dev/null 2>&1 && echo "read the fd table" || echo "cannot read the fd table of $w4"
nobody /usr/bin/python3 -S -c "import os, sys; os.open(\"/proc/%s/fd/3\" % sys.argv[1], os.O_RDONLY)" "$w4" 2>/dev/null &&
    echo "opened a descriptor" || echo "cannot open its descriptors"
"$NI" verify >"$TMP/verify" || echo "verify exit $?"
stop'
    echo "$output"; echo "$stderr"
    cat "$TMP/verify"
    assert_success
    assert_line "planted names: 0"
    assert_line "cannot write /run/nccl-init"
    assert_line --regexp "^cannot read the fd table of [0-9]+$"
    assert_line "cannot open its descriptors"
    refute_line --partial "verify exit"
    read -r w1 w2 w3 w4 <"$TMP/ready.1"
    grep -Eq "^$w4 +python3 +site +site +site +site +site$" "$TMP/verify"
    grep -Eq "^6 processes checked, 6 with every value " "$TMP/verify"
}

@test "no growth: 1000 Python starts leave /run/nccl-init as it was" {
    # Each start used to leave a 4 KiB note that nothing pruned.
    n=${VERIFY_GROWTH_STARTS:-1000}
    SINKS=all start_tree
    listing() { find /run/nccl-init -printf '%P %y %m %s\n' | LC_ALL=C sort; }
    before=$(listing)
    size=$(du -sb /run/nccl-init | cut -f1)
    seq "$n" | xargs -P 4 -I{} env -i /usr/bin/python3 -c pass
    echo "du -sb /run/nccl-init: $size before, $(du -sb /run/nccl-init | cut -f1) after $n starts"
    assert_equal "$(listing)" "$before"
    assert_equal "$(du -sb /run/nccl-init | cut -f1)" "$size"
    [ ! -e /run/nccl-init/applied ]
    # the hook did run in them: an interpreter has the values and the record
    run env -i /usr/bin/python3 -c 'import os, sitecustomize as s; print(os.environ["NCCL_PROTO"], os.readlink("/proc/self/fd/%d" % s._nccl_record))'
    assert_output "LL /run/nccl-init/profile.env"
}

@test "an environment over 1 MB is read in full" {
    SINKS=record start_tree
    # 16 variables of 100 kB (one string may not exceed 128 KiB), then the
    # profile's values: a read cut at 1 MB would not see them.
    /usr/bin/python3 -S -c '
import os, sys
env = {"BIG%02d" % i: "x" * 100000 for i in range(16)}
for line in open("/run/nccl-init/profile.env"):
    k, _, v = line.rstrip("\n").partition("=")
    env[k] = v
os.execve("/usr/bin/python3", ["python3", "-c", "import sys, time; open(sys.argv[1], \"w\").close(); time.sleep(60)", sys.argv[1]], env)' \
        "$TMP/big" &
    PIDS+=($!)
    big=$!
    for _ in $(seq 200); do [ -e "$TMP/big" ] && break; sleep 0.05; done
    [ "$(wc -c </proc/$big/environ)" -gt 1600000 ]
    run --separate-stderr "$NI" verify --pid "$big"
    echo "$output"
    assert_success
    assert_line --regexp "^$big +python3 +env +env +env +env +env$"
    assert_line --partial "1 process checked, 1 with every value"
}

@test "an environment over 32 MiB is not verified, with the reason, exit 1" {
    SINKS=record start_tree
    /usr/bin/python3 -S "$BATS_TEST_DIRNAME/helpers/big-environ.py" $((33 << 20)) "$TMP/huge" >"$TMP/huge.out" &
    PIDS+=($!)
    huge=$!
    for _ in $(seq 200); do [ -e "$TMP/huge" ] || [ -s "$TMP/huge.out" ] && break; sleep 0.05; done
    if grep -q unsupported "$TMP/huge.out"; then skip "$(cat "$TMP/huge.out")"; fi
    run --separate-stderr "$NI" verify --pid "$huge"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$huge +python3 +not verified: environment over 32 MiB$"
    assert_line "pid $huge: not verified: cannot read its environment (/proc/$huge/environ): larger than 32 MiB"
    assert_line --partial "1 process checked, 0 with every value, 1 not verified"
    run --separate-stderr "$NI" verify --json --pid "$huge"
    assert_failure 1
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
p = d["processes"][0]
assert d["ok"] is False and d["checked"] == 1 and d["not_verified"] == 1, d
assert p["verified"] is False and p["reason"] == "environment over 32 MiB", p
print("ok")' "$output"
    assert_output ok
}

@test "as another user without --pid: the tree it cannot read fails, it does not pass" {
    command -v setpriv >/dev/null || skip "no setpriv"
    SINKS=all start_tree
    read -r w1 w2 w3 w4 <"$TMP/ready"
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$w4 +python3 +not verified: permission denied$"
    refute_line --regexp "^0 processes checked"
}

@test "a process named with --pid that has exited, or no such process: a note each, exit 1" {
    SINKS=all start_tree
    # a zombie: exited, not reaped by its parent
    /usr/bin/python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os._exit(0)
open(sys.argv[1], "w").write("%d\n" % pid)
time.sleep(60)' "$TMP/zombie" &
    PIDS+=($!)
    for _ in $(seq 200); do [ -s "$TMP/zombie" ] && break; sleep 0.05; done
    read -r z <"$TMP/zombie"
    read -r w1 _ <"$TMP/ready"
    run --separate-stderr "$NI" verify --pid "$z" --pid "$w1" --pid 999999999
    echo "$output"
    # the user asked about them, and they were not shown to have the set
    assert_failure 1
    assert_line "pid $z: has exited"
    assert_line "pid 999999999: no such process"
    assert_line --partial "1 process checked, 1 with every value, 2 named with --pid not checked"
    run --separate-stderr "$NI" verify --pid "$w1"
    assert_success
}

@test "control bytes in a value or a command name print escaped; JSON escapes them too" {
    SINKS=all start_tree
    env NCCL_ALGO=$'\e[31mRing\e[0m\r' /usr/bin/python3 -c '
import sys, time
open("/proc/self/comm", "w").write("py\x1b[2Jx")
open(sys.argv[1], "w").close()
time.sleep(60)' "$TMP/esc" &
    PIDS+=($!)
    esc=$!
    for _ in $(seq 200); do [ -e "$TMP/esc" ] && break; sleep 0.05; done
    run --separate-stderr "$NI" verify --pid "$esc"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$esc +py\\\\x1b\[2Jx +CONFLICT +site"
    assert_line 'pid '"$esc"': NCCL_ALGO=\x1b[31mRing\x1b[0m\x0d, the profile says Ring'
    # no raw control byte reaches the terminal
    ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$output"
    run --separate-stderr "$NI" verify --json --pid "$esc"
    ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$output"
    run python3 -c '
import json, sys
p = json.loads(sys.argv[1])["processes"][0]
assert p["command"] == "py\x1b[2Jx", p
assert p["variables"]["NCCL_ALGO"] == {"via": "CONFLICT", "value": "\x1b[31mRing\x1b[0m\r", "nccl": {"asked": False}}, p
print("ok")' "$output"
    assert_output ok
}

@test "a process hooked with an older record: its values are read through its descriptor" {
    SINKS=all start_tree
    env -i /usr/bin/python3 -c 'import sys, time; open(sys.argv[1], "w").close(); time.sleep(60)' "$TMP/old" &
    PIDS+=($!)
    old=$!
    for _ in $(seq 200); do [ -e "$TMP/old" ] && break; sleep 0.05; done
    # another start with another value replaces the record (by rename) and
    # the hook: the old process holds the old record, "(deleted)"
    NCCL_ALGO=Tree keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record
    [[ "$(ls -l /proc/$old/fd)" == *"/run/nccl-init/profile.env (deleted)"* ]]
    env -i /usr/bin/python3 -c 'import sys, time; open(sys.argv[1], "w").close(); time.sleep(60)' "$TMP/new" &
    PIDS+=($!)
    new=$!
    for _ in $(seq 200); do [ -e "$TMP/new" ] && break; sleep 0.05; done
    run --separate-stderr "$NI" verify --pid "$old" --pid "$new"
    echo "$output"
    assert_failure 1
    # the old record's NCCL_ALGO is Ring: a conflict; the rest are the same
    # values, so they are right, whichever record set them
    assert_line --regexp "^$old +python3 +CONFLICT +site +site +site +site$"
    # the older record's digest: the profile's own, without the override
    digest=$("$NI" render --profile-dir "$PROFILES" -p pcie-8gpu | sed -n 's/^NCCL_INIT_DIGEST=//p')
    assert_line --regexp "^pid $old: NCCL_ALGO=Ring \(by the site hook, from an older record, digest ${digest:0:12}\), the profile says Tree$"
    assert_line --regexp "^$new +python3 +site +site +site +site +site$"
    run --separate-stderr "$NI" verify --json --pid "$old"
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
p = d["processes"][0]
assert p["site_digest"] == sys.argv[2] and d["digest"] != p["site_digest"], (d["digest"], p)
assert p["variables"]["NCCL_ALGO"] == {"via": "CONFLICT", "value": "Ring", "nccl": {"asked": False}}, p
print("ok")' "$output" "$digest"
    assert_output ok
}

@test "fork and forkserver children hold their parent's record: site" {
    # Without nccl.conf: a fork child has no note of its own (other PID),
    # so it used to show MISSING although it has the values.
    SINKS=python,record start_tree
    cat >"$TMP/mp.py" <<'PY'
import multiprocessing as mp, os, sys, time
def worker(q):
    q.put(os.getpid())
    time.sleep(60)
if __name__ == "__main__":
    pids = []
    for method in ("fork", "forkserver"):
        ctx = mp.get_context(method)
        q = ctx.Queue()
        p = ctx.Process(target=worker, args=(q,))
        p.start()
        pids.append(q.get(timeout=60))
    child = os.fork()
    if child == 0:
        time.sleep(60)
        os._exit(0)
    pids.append(child)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(" ".join(map(str, pids)) + "\n")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(60)
PY
    env -i /usr/bin/python3 "$TMP/mp.py" "$TMP/mp" &
    PIDS+=($!)
    for _ in $(seq 600); do [ -e "$TMP/mp" ] && break; sleep 0.05; done
    read -r fork fs osfork <"$TMP/mp"
    run --separate-stderr "$NI" verify --pid "$fork" --pid "$fs" --pid "$osfork"
    echo "$output"
    assert_success
    # fork children: the parent's (empty) exec environment and its record
    assert_line --regexp "^$fork +python3 +site +site +site +site +site$"
    assert_line --regexp "^$osfork +python3 +site +site +site +site +site$"
    # the forkserver is started by exec with the parent's os.environ, which
    # the hook had filled: its children have the values in the environment
    assert_line --regexp "^$fs +python3 +env +env +env +env +env$"
}

# NCCL reads $NCCL_CONF_FILE, or else ~/.nccl.conf of the process's uid
# (getpwuid, not $HOME), before /etc/nccl.conf, and the first file with a key
# wins: a user's file overrides the block nccl-init writes to /etc/nccl.conf.

@test "a ~/.nccl.conf of the worker's user (from /etc/passwd) that overrides the profile: CONFLICT naming it, exit 1" {
    # root's home, in the copy-on-write /etc only, moved to a temporary
    # directory (the sandbox does not overlay /root)
    cp /etc/passwd "$TMP/passwd.orig"
    mkdir "$TMP/home"
    sed -i "s|^root:\([^:]*\):0:\([^:]*\):\([^:]*\):[^:]*:|root:\1:0:\2:\3:$TMP/home:|" /etc/passwd
    printf 'NCCL_PROTO=Simple\n' >"$TMP/home/.nccl.conf"
    SINKS=record,nccl-conf start_tree
    run --separate-stderr "$NI" verify
    cp "$TMP/passwd.orig" /etc/passwd
    echo "$output"
    assert_failure 1
    read -r w1 w2 w3 w4 <"$TMP/ready"
    # the scrubbed workers have no HOME: the password database names the file
    assert_line --regexp "^$w4 +python3 +nccl.conf +nccl.conf +nccl.conf +nccl.conf +CONFLICT"
    assert_line "pid $w4: NCCL_PROTO=Simple (from $TMP/home/.nccl.conf, read before /etc/nccl.conf), the profile says LL"
    # the workers that inherited the values are not affected
    assert_line --regexp "^$w1 +python3 +env +env +env +env +env"
}

@test "NCCL_CONF_FILE in a worker's environment with another value: CONFLICT naming it; the same value: nccl.conf" {
    SINKS=record,nccl-conf start_tree
    printf '# a comment\nNCCL_PROTO=Simple\nNCCL_PROTO=LL\n' >"$TMP/other.conf"
    printf 'NCCL_PROTO=LL\n' >"$TMP/same.conf"
    env -i NCCL_CONF_FILE="$TMP/other.conf" /usr/bin/python3 -c 'import time; time.sleep(60)' &
    PIDS+=($!)
    other=$!
    # relative to the process's working directory, as NCCL opens it
    (cd "$TMP" && exec env -i NCCL_CONF_FILE=other.conf /usr/bin/python3 -c 'import time; time.sleep(60)') &
    PIDS+=($!)
    rel=$!
    env -i NCCL_CONF_FILE="$TMP/same.conf" /usr/bin/python3 -c 'import time; time.sleep(60)' &
    PIDS+=($!)
    same=$!
    sleep 0.3
    run --separate-stderr "$NI" verify --pid "$other" --pid "$rel"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$other +python3 +nccl.conf +nccl.conf +nccl.conf +nccl.conf +CONFLICT"
    assert_line "pid $other: NCCL_PROTO=Simple (from $TMP/other.conf, read before /etc/nccl.conf), the profile says LL"
    assert_line "pid $rel: NCCL_PROTO=Simple (from other.conf, read before /etc/nccl.conf), the profile says LL"
    run --separate-stderr "$NI" verify --pid "$same"
    echo "$output"
    assert_success
    assert_line --regexp "^$same +python3 +nccl.conf +nccl.conf +nccl.conf +nccl.conf +nccl.conf"
    run --separate-stderr "$NI" verify --json --pid "$other"
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
v = d["processes"][0]["variables"]["NCCL_PROTO"]
assert v == {"via": "CONFLICT", "value": "Simple", "file": sys.argv[2], "nccl": {"asked": False}}, v
print("ok")' "$output" "$TMP/other.conf"
    assert_output ok
}

@test "a user's conf file that exists but cannot be read: not verified, exit 1" {
    SINKS=record,nccl-conf start_tree
    head -c 2000000 /dev/zero | tr '\0' '#' >"$TMP/big.conf"
    env -i NCCL_CONF_FILE="$TMP/big.conf" /usr/bin/python3 -c 'import time; time.sleep(60)' &
    PIDS+=($!)
    big=$!
    sleep 0.3
    run --separate-stderr "$NI" verify --pid "$big"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$big +python3 +not verified: too large"
    assert_line --partial "pid $big: not verified: cannot read its NCCL conf file (/proc/$big/root$TMP/big.conf): larger than 1 MiB"
}

# --- nccl-init's NCCL env plugin (issue 24) ---
#
# Once the plugin has trusted and parsed the record at NCCL's first init, it
# keeps an O_PATH descriptor of it for the life of the process; the hook's
# is O_RDONLY. The processes below leave the same evidence by hand (python3
# -S: no hook), with a stand-in libnccl.so.2 mapped where NCCL must be.

# Writes the record /run/nccl-init/profile.env from the lines "$@" (root,
# 0644), replacing the one there by rename as the record sink does.
write_record() {
    mkdir -p /run/nccl-init
    { printf '%s\n' "$@"; record_writer_lines; } >/run/nccl-init/.profile.env.tmp
    chmod 0644 /run/nccl-init/.profile.env.tmp
    mv -f /run/nccl-init/.profile.env.tmp /run/nccl-init/profile.env
}

D1=1111111111111111111111111111111111111111111111111111111111111111
D2=2222222222222222222222222222222222222222222222222222222222222222
RECORD=/run/nccl-init/profile.env

# $TMP/lib/libnccl.so.2: a library that says it is NCCL 2.28.9.
fake_libnccl() {
    command -v gcc >/dev/null || skip "no gcc"
    mkdir -p "$TMP/lib"
    echo 'const char nccl_version[] = "NCCL version 2.28.9+cuda13.0";' >"$TMP/lib/v.c"
    gcc -shared -fPIC -o "$TMP/lib/libnccl.so.2" "$TMP/lib/v.c"
}

# $TMP/hold.py READY STEP...: takes the steps in order: lib=PATH loads a
# library, plugin=FILE loads the env plugin (build/libnccl-env.so), opens
# FILE O_PATH|O_CLOEXEC as it does (its descriptor) and makes a witness of
# its own with no ask in it (as the plugin will, at NCCL's first init: the
# keys are judged as before NCCL asks for them), pathfd=FILE only opens
# FILE so, site=FILE opens it read-only (the hook's), mark=FILE creates
# FILE, wait=FILE waits until FILE exists. Then it writes its pid to READY
# and stays.
hold_script() {
    [ -r "$REPO/build/libnccl-env.so" ] || fail "no $REPO/build/libnccl-env.so: make all builds it"
    printf 'PLUGIN_SO = "%s"\n' "$REPO/build/libnccl-env.so" >"$TMP/hold.py"
    cat >>"$TMP/hold.py" <<'PY'
import ctypes, os, sys, time
keep = []
# the witness the plugin makes at NCCL's first init: its own, no ask yet
def witness():
    fd = os.memfd_create("nccl-init-witness", os.MFD_CLOEXEC)
    start = open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19]
    os.write(fd, ("nccl-init-witness 1 pid=%d start=%s\nnccl copy=1 version=2.28.9 suffix= "
                  "interface=v1 lib=?\n" % (os.getpid(), start)).encode())
    return fd
for step in sys.argv[2:]:
    kind, _, arg = step.partition("=")
    if kind == "lib":
        keep.append(ctypes.CDLL(arg))
    elif kind == "plugin":
        keep.append(ctypes.CDLL(PLUGIN_SO))
        keep.append(os.open(arg, os.O_PATH | os.O_CLOEXEC))
        keep.append(witness())
    elif kind == "pathfd":
        keep.append(os.open(arg, os.O_PATH | os.O_CLOEXEC))
    elif kind == "site":
        keep.append(os.open(arg, os.O_RDONLY | os.O_CLOEXEC))
    elif kind == "mark":
        open(arg, "w").close()
    elif kind == "wait":
        while not os.path.exists(arg):
            time.sleep(0.02)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
PY
}

# hold_start [ENV...] -- STEP...: hold.py under python3 -S (no hook) in the
# environment ENV only; held_wait waits for its steps and sets HELD to its
# pid. hold: both.
hold_start() {
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    [ -e "$TMP/hold.py" ] || hold_script
    rm -f "$TMP/held"
    env -i "${envs[@]}" /usr/bin/python3 -S "$TMP/hold.py" "$TMP/held" "$@" &
    PIDS+=($!)
}

held_wait() {
    for _ in $(seq 400); do [ -e "$TMP/held" ] && break; sleep 0.02; done
    HELD=$(cat "$TMP/held")
}

hold() {
    hold_start "$@"
    held_wait
}

# the fields of process $2 in verify's JSON $1, checked by the Python
# expression $3 (p: the process); not through run, so that $output stays
json_check() {
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])][0]
assert eval(sys.argv[3]), p' "$@"
}

@test "env plugin: a key absent from a tree process's environment, the plugin's descriptor held: plugin" {
    # under nccl-init (record sink only): the child drops NCCL_PROTO from
    # its environment and holds the record as the plugin does; found as a
    # Python process in the tree, no libnccl mapped
    hold_script
    env -i PATH=/usr/bin:/bin "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks record -- \
        env -u NCCL_PROTO /usr/bin/python3 -S "$TMP/hold.py" "$TMP/child" "plugin=$RECORD" 2>"$TMP/init.log" &
    PIDS+=($!)
    for _ in $(seq 400); do [ -e "$TMP/child" ] && break; sleep 0.02; done
    child=$(cat "$TMP/child")
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    assert_line --regexp "^$child +python3 +env +env +env +env +plugin$"
    assert_line --regexp "^1 process checked, 1 with every value "
    run --separate-stderr "$NI" verify --json
    json_check "$output" "$child" 'p["variables"]["NCCL_PROTO"] == {"via": "plugin", "value": "LL", "nccl": {"asked": False}}'
    digest=$(sed -n 's/^NCCL_INIT_DIGEST=//p' "$RECORD")
    json_check "$output" "$child" 'p["env_plugin"] == {"record": "'"$digest"'", "enforce": False, "setting": None} and p["site_digest"] is None'
    # without the descriptor the same process would be MISSING: the
    # evidence is the O_PATH descriptor, not the record's existence
    hold NCCL_ALGO=Ring -- "site=$RECORD"
    run --separate-stderr "$NI" verify --pid "$HELD"
    assert_line --regexp "^$HELD +python3 +env +site +site +site +site$"
}

@test "env plugin: an enforced record beats the process's own value (plugin, exit 0); not enforced: CONFLICT, exit 1" {
    fake_libnccl
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_ENFORCE=1 NCCL_INIT_PROFILE=hand
    # every key in its environment, one of them another value: the
    # descriptors are looked at because it maps a libnccl
    hold NCCL_ALGO=Tree NCCL_PROTO=LL -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    enforced=$HELD
    run --separate-stderr "$NI" verify --pid "$enforced"
    echo "$output"
    assert_success
    # NCCL_INIT_ENFORCE is no variable of the resolved set: no column
    assert_line --regexp '^PID +COMMAND +ALGO +PROTO +LIBNCCL$'
    assert_line --regexp "^$enforced +python3 +plugin +plugin +2\.28\.9\+cuda13\.0$"
    refute_line --partial "the profile says"
    assert_line --partial "1 process checked, 1 with every value"
    run --separate-stderr "$NI" verify --json --pid "$enforced"
    assert_success
    json_check "$output" "$enforced" 'p["variables"] == {"NCCL_ALGO": {"via": "plugin", "value": "Ring", "nccl": {"asked": False}}, "NCCL_PROTO": {"via": "plugin", "value": "LL", "nccl": {"asked": False}}} and p["env_plugin"] == {"record": "'"$D1"'", "enforce": True, "setting": None} and p["ok"]'
    # the same record without the enforce line: the plugin gives NCCL the
    # environment's value first
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    hold NCCL_ALGO=Tree NCCL_PROTO=LL -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    plain=$HELD
    run --separate-stderr "$NI" verify --pid "$plain"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$plain +python3 +CONFLICT +env +2\.28\.9\+cuda13\.0$"
    assert_line "pid $plain: NCCL_ALGO=Tree, the profile says Ring"
    run --separate-stderr "$NI" verify --json --pid "$plain"
    assert_failure 1
    json_check "$output" "$plain" 'p["env_plugin"]["enforce"] is False and p["variables"]["NCCL_ALGO"] == {"via": "CONFLICT", "value": "Tree", "nccl": {"asked": False}}'
}

@test "env plugin: the keys NCCL reads before the plugin loads (NCCL_DEBUG) are never plugin" {
    fake_libnccl
    write_record NCCL_DEBUG=WARN NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_ENFORCE=1 NCCL_INIT_PROFILE=hand
    # enforced, and its own NCCL_DEBUG: NCCL's getenv reads that one
    hold NCCL_DEBUG=INFO NCCL_PROTO=Simple -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    own=$HELD
    # neither in its environment: nothing gives it NCCL_DEBUG
    hold -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    none=$HELD
    run --separate-stderr "$NI" verify --pid "$own" --pid "$none"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^PID +COMMAND +DEBUG +PROTO +LIBNCCL$'
    assert_line --regexp "^$own +python3 +CONFLICT +plugin +2\.28\.9"
    assert_line "pid $own: NCCL_DEBUG=INFO, the profile says WARN"
    assert_line --regexp "^$none +python3 +MISSING +plugin +2\.28\.9"
    assert_line --partial "2 processes checked, 0 with every value"
}

@test "env plugin: /etc/nccl.conf with another value beats the plugin's record: nccl.conf CONFLICT; enforced: plugin" {
    fake_libnccl
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    # NCCL applies nccl.conf with setenv before the plugin answers
    printf 'NCCL_PROTO=Simple\nNCCL_ALGO=Ring\n' >/etc/nccl.conf
    hold -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_failure 1
    # the same value in both: the plugin's
    assert_line --regexp "^$HELD +python3 +plugin +CONFLICT +2\.28\.9"
    assert_line "pid $HELD: NCCL_PROTO=Simple (from /etc/nccl.conf, which NCCL applies before its env plugin answers), the profile says LL"
    run --separate-stderr "$NI" verify --json --pid "$HELD"
    json_check "$output" "$HELD" 'p["variables"]["NCCL_PROTO"] == {"via": "CONFLICT", "value": "Simple", "nccl": {"asked": False}} and p["variables"]["NCCL_ALGO"]["via"] == "plugin"'
    # enforced: the record's value whatever nccl.conf set
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_ENFORCE=1 NCCL_INIT_PROFILE=hand
    hold -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_success
    assert_line --regexp "^$HELD +python3 +plugin +plugin +2\.28\.9"
    # without the plugin's descriptor: nccl.conf as before
    hold -- "lib=$TMP/lib/libnccl.so.2"
    run --separate-stderr "$NI" verify --pid "$HELD"
    assert_failure 1
    assert_line --regexp "^$HELD +python3 +nccl.conf +CONFLICT +2\.28\.9"
    assert_line "pid $HELD: NCCL_PROTO=Simple, the profile says LL"
}

@test "env plugin: the hook's read-only descriptor is still site; a process holding both, of one record or of two" {
    fake_libnccl
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    hold -- "site=$RECORD"
    site=$HELD
    # both, of the same record, the key absent: the hook set it (the
    # plugin then gives NCCL the environment's value)
    hold -- "lib=$TMP/lib/libnccl.so.2" "site=$RECORD" "plugin=$RECORD"
    both=$HELD
    run --separate-stderr "$NI" verify --pid "$site" --pid "$both"
    echo "$output"
    assert_success
    assert_line --regexp "^$site +python3 +site +site +-$"
    assert_line --regexp "^$both +python3 +site +site +2\.28\.9"
    run --separate-stderr "$NI" verify --json --pid "$site" --pid "$both"
    json_check "$output" "$site" 'p["site_digest"] == "'"$D1"'" and p["env_plugin"] is None'
    json_check "$output" "$both" 'p["site_digest"] == "'"$D1"'" and p["env_plugin"]["record"] == "'"$D1"'"'
    # of two: the hook took the first record, a restart replaced it before
    # NCCL's init, and the plugin took the second, enforced
    hold_start -- "lib=$TMP/lib/libnccl.so.2" "site=$RECORD" "mark=$TMP/opened" "wait=$TMP/go" "plugin=$RECORD"
    for _ in $(seq 400); do [ -e "$TMP/opened" ] && break; sleep 0.02; done
    write_record NCCL_ALGO=Tree NCCL_PROTO=LL NCCL_INIT_DIGEST=$D2 NCCL_INIT_ENFORCE=1 NCCL_INIT_PROFILE=hand
    touch "$TMP/go"
    held_wait
    two=$HELD
    [[ "$(ls -l /proc/$two/fd)" == *"$RECORD (deleted)"* ]]
    run --separate-stderr "$NI" verify --pid "$two"
    echo "$output"
    assert_success
    assert_line --regexp "^$two +python3 +plugin +plugin +2\.28\.9"
    run --separate-stderr "$NI" verify --json --pid "$two"
    json_check "$output" "$two" 'p["site_digest"] == "'"$D1"'" and p["env_plugin"] == {"record": "'"$D2"'", "enforce": True, "setting": None}'
}

@test "env plugin: the same record without enforce, two records held: the hook's older value is what NCCL gets" {
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    fake_libnccl
    hold_start -- "lib=$TMP/lib/libnccl.so.2" "site=$RECORD" "mark=$TMP/opened" "wait=$TMP/go" "plugin=$RECORD"
    for _ in $(seq 400); do [ -e "$TMP/opened" ] && break; sleep 0.02; done
    write_record NCCL_ALGO=Tree NCCL_PROTO=LL NCCL_INIT_DIGEST=$D2 NCCL_INIT_PROFILE=hand
    touch "$TMP/go"
    held_wait
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$HELD +python3 +CONFLICT +site +2\.28\.9"
    assert_line "pid $HELD: NCCL_ALGO=Ring (by the site hook, from an older record, digest 111111111111), the profile says Tree"
}

@test "env plugin: only the plugin holds an older record: its value, CONFLICT naming that record" {
    fake_libnccl
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    hold -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    write_record NCCL_ALGO=Tree NCCL_PROTO=LL NCCL_INIT_DIGEST=$D2 NCCL_INIT_PROFILE=hand
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$HELD +python3 +CONFLICT +plugin +2\.28\.9"
    assert_line "pid $HELD: NCCL_ALGO=Ring (by the env plugin, from an older record, digest 111111111111), the profile says Tree"
}

@test "env plugin: NCCL_ENV_PLUGIN without the plugin's descriptor gives a note; the exit status stays" {
    fake_libnccl
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    hold NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_ENV_PLUGIN=None -- "lib=$TMP/lib/libnccl.so.2"
    none=$HELD
    hold NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_ENV_PLUGIN=$'/opt/x/libnccl-env-\e[2J.so' -- "lib=$TMP/lib/libnccl.so.2"
    other=$HELD
    # unset: nothing to say (NCCL looks for libnccl-env.so)
    hold NCCL_ALGO=Ring NCCL_PROTO=LL -- "lib=$TMP/lib/libnccl.so.2"
    unset_=$HELD
    # no libnccl: NCCL is not there to read it
    hold NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_ENV_PLUGIN=none --
    nolib=$HELD
    # with the plugin's descriptor: nccl-init's plugin answers, whatever the name
    hold NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_ENV_PLUGIN=/usr/local/lib/nccl-init/libnccl-env.so -- "lib=$TMP/lib/libnccl.so.2" "plugin=$RECORD"
    plugin=$HELD
    run --separate-stderr "$NI" verify --pid "$none" --pid "$other" --pid "$unset_" --pid "$nolib" --pid "$plugin"
    echo "$output"
    assert_success
    assert_line "pid $none: NCCL_ENV_PLUGIN=None (in its environment): NCCL reads its environment directly, not through nccl-init's env plugin"
    assert_line 'pid '"$other"': NCCL_ENV_PLUGIN=/opt/x/libnccl-env-\x1b[2J.so (in its environment): NCCL loads that env plugin, and no nccl-init env plugin holds the record'
    [ "$(grep -c NCCL_ENV_PLUGIN <<<"$output")" = 2 ]
    ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$output"
    assert_line --partial "5 processes checked, 5 with every value"
    # from /etc/nccl.conf, which NCCL applies before it looks for a plugin
    printf 'NCCL_ENV_PLUGIN=none\n' >/etc/nccl.conf
    run --separate-stderr "$NI" verify --pid "$unset_"
    assert_success
    assert_line "pid $unset_: NCCL_ENV_PLUGIN=none (from /etc/nccl.conf): NCCL reads its environment directly, not through nccl-init's env plugin"
    run --separate-stderr "$NI" verify --json --pid "$none" --pid "$unset_" --pid "$nolib" --pid "$plugin"
    assert_success
    json_check "$output" "$none" 'p["env_plugin"] == {"record": None, "enforce": False, "setting": {"value": "None", "from": "env"}}'
    json_check "$output" "$unset_" 'p["env_plugin"] == {"record": None, "enforce": False, "setting": {"value": "none", "from": "nccl.conf"}}'
    json_check "$output" "$nolib" 'p["env_plugin"] is None'
    json_check "$output" "$plugin" 'p["env_plugin"] == {"record": "'"$D1"'", "enforce": False, "setting": {"value": "/usr/local/lib/nccl-init/libnccl-env.so", "from": "env"}} and p["variables"]["NCCL_ALGO"]["via"] == "env"'
}

# --- Exited processes, blocking files, nothing checked, inherited evidence (issue 26) ---

@test "processes that exit while verify runs are not counted: never not verified, and every run passes" {
    # every process of a new PID namespace has the profile in its
    # environment; four loops fork short-lived subshells the whole time
    local vals
    vals=$("$NI" render -q --profile-dir "$PROFILES" -p pcie-8gpu --format env | grep -v '^NCCL_INIT_' | tr '\n' ' ')
    # the record's writer runs in the namespace, where verify looks for it
    run --separate-stderr env -i PATH=/usr/bin:/bin $vals unshare --pid --fork --mount-proc bash -c '
        "$1" -q --profile-dir "$3" -p pcie-8gpu --sinks record -- sleep 1000 &
        until grep -qx "NCCL_INIT_PID=$!" /run/nccl-init/profile.env 2>/dev/null; do sleep 0.05; done
        for j in 1 2 3 4; do (while :; do (:); done) & done
        for i in $(seq 40); do "$1" verify --all >"$2.$i"; echo "run $i: exit $?"; done
        kill $(jobs -p)' sh "$NI" "$TMP/out" "$PROFILES"
    echo "$output"
    cat "$TMP"/out.* | grep -v '^[0-9]' | sort | uniq -c
    # the exit of a process is not a failure to read it
    ! grep -h 'not verified' "$TMP"/out.*
    [ "$(grep -c ': exit 0$' <<<"$output")" = 40 ]
}

@test "a FIFO bind-mounted over the mapped libnccl in the process's mount namespace: verify does not block" {
    command -v setpriv >/dev/null || skip "no setpriv"
    lib=$(readlink -f "${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}")
    if [ ! -r "$lib" ]; then
        fake_libnccl
        lib=$TMP/lib/libnccl.so.2
    fi
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    mkfifo "$TMP/fifo"
    chmod 711 "$TMP"
    mkdir -m 1777 "$TMP/n"
    # nobody maps the library, then its mount namespace puts the FIFO
    # where the library was; verify, as nobody too, has no CAP_SYS_ADMIN for
    # /proc/PID/map_files and reads through /proc/PID/root
    unshare -m --propagation private bash -c '
        setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -S -c "
import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2], \"w\").close()
time.sleep(60)" "$1" "$2/n/mapped" &
        for _ in $(seq 200); do [ -e "$2/n/mapped" ] && break; sleep 0.05; done
        mount --bind "$2/fifo" "$1"
        echo $! >"$2/held"
        wait' sh "$lib" "$TMP" &
    PIDS+=($!)
    for _ in $(seq 200); do [ -s "$TMP/held" ] && break; sleep 0.05; done
    held=$(cat "$TMP/held")
    PIDS+=("$held")
    run --separate-stderr timeout 20 setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify --pid "$held"
    echo "$output"
    [ "$status" != 124 ]
    assert_failure 1
    assert_line --regexp "^$held +python3 +MISSING"
    assert_line --partial "in 1 process ($lib: not a regular file)"
    # outside that namespace the same path is the library itself
    run --separate-stderr timeout 20 "$NI" verify --pid "$held"
    [ "$status" != 124 ]
}

@test "nothing checked is no pass: a record left behind, another PID namespace, only PIDs that are gone" {
    # a record left behind: its writer is gone (in a PID namespace of its
    # own, so that no other process on the machine that maps a libnccl is
    # checked); verify, as the readers, takes no record of a run that has
    # ended: exit 2, not a pass over nothing
    run --separate-stderr unshare --pid --fork --mount-proc bash -c '
        "$1" -q --profile-dir "$2" -p pcie-8gpu --sinks record -- true || exit
        "$1" verify; echo "exit $?"' sh "$NI" "$PROFILES"
    echo "$output"
    echo "$stderr"
    assert_success
    assert_line "exit 2"
    refute_output --partial "processes checked"
    [[ "$stderr" == *"verify: the resolved set in /run/nccl-init/profile.env was written by nccl-init pid "*", which is not running in this PID namespace"* ]]
    # a tree that runs, seen from another PID namespace: its writer is not
    # there either
    SINKS=all start_tree
    run --separate-stderr unshare --pid --fork --mount-proc "$NI" verify
    echo "$stderr"
    assert_failure 2
    [[ "$stderr" == *"run verify in the server's PID namespace, while nccl-init runs"* ]]
    # from its own namespace, its processes pass
    read -r w1 _ <"$TMP/ready"
    run --separate-stderr "$NI" verify --json --pid "$w1"
    assert_success
    json_nothing=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["nothing_checked"])' "$output")
    [ "$json_nothing" = None ]
    # only processes that are gone
    run --separate-stderr "$NI" verify --pid 999999999
    echo "$output"
    assert_failure 3
    assert_line "pid 999999999: no such process"
    assert_line "no process checked: none of the processes named with --pid could be checked"
}

# A worker exec'd by a parent that ran the hook, handed the hook's (or the
# plugin's) descriptor but not the values: python3 -S, its environment
# scrubbed. The hook and the plugin open the record O_CLOEXEC, so a
# descriptor that crossed an exec lacks the flag and proves nothing.
spawner_script() {
    cat >"$TMP/spawn.py" <<'PY'
import ctypes, os, subprocess, sys, time
ready, how, kind = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "site":
    import sitecustomize
    fd = sitecustomize._nccl_record
else:  # the env plugin, as NCCL loads it, its O_PATH descriptor and its witness
    lib = ctypes.CDLL(sys.argv[4])
    fd = os.open(sys.argv[5], os.O_PATH | os.O_CLOEXEC)
    wfd = os.memfd_create("nccl-init-witness", os.MFD_CLOEXEC)
    start = open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19]
    os.write(wfd, ("nccl-init-witness 1 pid=%d start=%s\n" % (os.getpid(), start)).encode())
assert fd is not None
env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL_")}
worker = [sys.executable, "-S", "-c", "import time; time.sleep(60)"]
if how == "pass_fds":
    w = subprocess.Popen(worker, env=env, pass_fds=(fd,))
else:
    os.set_inheritable(fd, True)
    w = subprocess.Popen(worker, env=env, close_fds=False)
while not os.path.exists("/proc/%d/fd/%d" % (w.pid, fd)) or \
        os.readlink("/proc/%d/exe" % w.pid) != os.path.realpath(sys.executable):
    time.sleep(0.02)
time.sleep(0.2)
with open(ready + ".tmp", "w") as f:
    f.write("%d %d\n" % (os.getpid(), w.pid))
os.rename(ready + ".tmp", ready)
time.sleep(60)
PY
}

# spawn HOW KIND [ARGS...]: the parent under the hook (no -S); sets PARENT and WORKER.
spawn() {
    [ -e "$TMP/spawn.py" ] || spawner_script
    rm -f "$TMP/spawned"
    env -i PATH=/usr/bin:/bin /usr/bin/python3 "$TMP/spawn.py" "$TMP/spawned" "$@" &
    PIDS+=($!)
    for _ in $(seq 400); do [ -e "$TMP/spawned" ] && break; sleep 0.02; done
    read -r PARENT WORKER <"$TMP/spawned"
}

@test "a python3 -S worker that inherited the hook's descriptor but never ran the hook: MISSING, not site" {
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record
    spawn pass_fds site
    run --separate-stderr "$NI" verify --pid "$WORKER"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$WORKER +python3 +MISSING +MISSING +MISSING +MISSING +MISSING$"
    # its parent ran the hook and still holds its descriptor, O_CLOEXEC
    run --separate-stderr "$NI" verify --pid "$PARENT"
    echo "$output"
    assert_success
    assert_line --regexp "^$PARENT +python3 +site +site +site +site +site$"
    # the descriptor made inheritable in the parent (close_fds=False): the
    # worker holds no evidence, and neither does the parent any more
    spawn inherit site
    run --separate-stderr "$NI" verify --pid "$WORKER" --pid "$PARENT"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$WORKER +python3 +MISSING +MISSING +MISSING +MISSING +MISSING$"
    assert_line --regexp "^$PARENT +python3 +MISSING +MISSING +MISSING +MISSING +MISSING$"
}

@test "env plugin: a worker that inherited the plugin's descriptor, or a process that opened one without the plugin: no plugin" {
    so=$REPO/build/libnccl-env.so
    [ -r "$so" ] || fail "no $so: make all builds it"
    write_record NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_INIT_DIGEST=$D1 NCCL_INIT_PROFILE=hand
    spawn pass_fds plugin "$so" "$RECORD"
    run --separate-stderr "$NI" verify --pid "$WORKER" --pid "$PARENT"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$PARENT +python3 +plugin +plugin$"
    assert_line --regexp "^$WORKER +python3 +MISSING +MISSING$"
    # the record held O_PATH by a process that maps no env plugin: NCCL
    # has no plugin to ask
    hold -- "pathfd=$RECORD"
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$HELD +python3 +MISSING +MISSING$"
}

# --- review 2: evidence, threads, conf files, kernel threads, --json, libraries ---

# Waits until $1 exists (up to 20 s).
wait_for() {
    for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.05; done
    return 1
}

@test "a record descriptor is the hook's only in a Python process: a perl that opens it read-only, O_CLOEXEC, is MISSING" {
    command -v perl >/dev/null || skip "no perl"
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    # perl sets close-on-exec above $^F (2), as the hook and the env
    # plugin's brief read-only open do: the descriptor has the hook's flags
    env -i /usr/bin/perl -e 'open(my $f, "<", $ARGV[0]) or die; open(my $m, ">", $ARGV[1]); close $m; sleep 60' \
        "$RECORD" "$TMP/held" &
    PIDS+=($!)
    held=$!
    wait_for "$TMP/held"
    fd=$(for f in /proc/$held/fd/*; do [ "$(readlink "$f")" = "$RECORD" ] && basename "$f"; done)
    [ -n "$fd" ]
    flags=$(awk '/^flags:/ { print $2 }' "/proc/$held/fdinfo/$fd")
    (( (8#$flags & 8#2000000) != 0 && (8#$flags & 8#10000000) == 0 ))
    run --separate-stderr "$NI" verify --pid "$held"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$held +perl +MISSING +MISSING +MISSING +MISSING +MISSING$"
}

# $TMP/zl.py READY: its main thread exits (pthread_exit) while a second
# thread runs, so that the thread-group leader is a zombie ("Zl" in ps) and
# the process runs on; the second thread writes the pid to READY once the
# leader shows Z, and stays.
zl_script() {
    cat >"$TMP/zl.py" <<'PY'
import ctypes, os, sys, threading, time
def leader_state():
    with open("/proc/%d/stat" % os.getpid()) as f:
        return f.read().rsplit(")", 1)[1].split()[0]
def worker():
    while leader_state() != "Z":
        time.sleep(0.02)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(60)
threading.Thread(target=worker).start()
ctypes.CDLL(None).pthread_exit(None)
PY
}

@test "a process whose main thread has exited while another runs (Zl) is checked through that thread" {
    zl_script
    # in nccl-init's tree, without --pid: it was silently skipped
    env -i PATH=/usr/bin:/bin "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record -- \
        /usr/bin/python3 -S "$TMP/zl.py" "$TMP/zl1" 2>"$TMP/init.log" &
    PIDS+=($!)
    wait_for "$TMP/zl1"
    zl1=$(cat "$TMP/zl1")
    PIDS+=("$zl1")
    [ "$(awk '/^State:/ { print $2 }' "/proc/$zl1/status")" = Z ]
    [ "$(awk '/^Threads:/ { print $2 }' "/proc/$zl1/status")" = 2 ]
    run --separate-stderr "$NI" verify
    echo "$output"
    assert_success
    assert_line --regexp "^$zl1 +python3 +env +env +env +env +env$"
    # outside the tree, its values from the hook: its descriptor is read
    # through the live thread; named with --pid it "has exited" no more
    env -i /usr/bin/python3 "$TMP/zl.py" "$TMP/zl2" &
    PIDS+=($!)
    zl2=$!
    wait_for "$TMP/zl2"
    run --separate-stderr "$NI" verify --pid "$zl1" --pid "$zl2"
    echo "$output"
    assert_success
    assert_line --regexp "^$zl2 +python3 +site +site +site +site +site$"
    refute_output --partial "has exited"
    assert_line --partial "2 processes checked, 2 with every value"
}

@test "a user's conf file flipped between a regular file and a symbolic link to a FIFO: verify never opens the FIFO" {
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    mkfifo "$TMP/fifo"
    printf 'NCCL_PROTO=LL\n' >"$TMP/plain"
    ln -s "$TMP/fifo" "$TMP/conf"
    # no value in its environment and no hook: verify reads its conf file
    env -i NCCL_CONF_FILE="$TMP/conf" /usr/bin/python3 -S -c 'import time; time.sleep(60)' &
    PIDS+=($!)
    user=$!
    # a writer that blocks until some reader opens the FIFO (a device in
    # its place would act on that open)
    /usr/bin/python3 -S -c 'import sys; open(sys.argv[1], "w"); open(sys.argv[2], "w").close()' \
        "$TMP/fifo" "$TMP/opened" &
    PIDS+=($!)
    # the user flips the name, each step a rename
    /usr/bin/python3 -S -c '
import os, sys
conf, fifo, plain, stop = sys.argv[1:]
while not os.path.exists(stop):
    os.symlink(fifo, conf + ".l")
    os.rename(conf + ".l", conf)
    os.link(plain, conf + ".r")
    os.rename(conf + ".r", conf)' "$TMP/conf" "$TMP/fifo" "$TMP/plain" "$TMP/stop" &
    PIDS+=($!)
    sleep 0.2
    for i in $(seq 400); do
        "$NI" verify --pid "$user" >"$TMP/out.$i" 2>&1 || true
        [ -e "$TMP/opened" ] && break
    done
    touch "$TMP/stop"
    echo "verify runs: $i"
    [ ! -e "$TMP/opened" ]
    # both states were seen: the race was run
    grep -Eq "^$user +python3 +MISSING +MISSING +MISSING +MISSING +nccl.conf$" "$TMP"/out.*
    grep -Eq "^$user +python3 +MISSING +MISSING +MISSING +MISSING +MISSING$" "$TMP"/out.*
}

@test "a user's conf file that is an absolute symbolic link resolves in the process's root, not verify's" {
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    mkdir "$TMP/ns"
    # in its own mount namespace $TMP/ns holds the conf file and a link to
    # it by absolute path; in verify's, $TMP/ns is empty
    unshare -m --propagation private bash -c '
        mount -t tmpfs tmpfs "$1/ns"
        printf "NCCL_PROTO=Simple\n" >"$1/ns/real.conf"
        ln -s "$1/ns/real.conf" "$1/ns/link"
        env -i NCCL_CONF_FILE="$1/ns/link" /usr/bin/python3 -S -c "
import os, sys, time
open(sys.argv[1], \"w\").write(str(os.getpid()))
time.sleep(60)" "$1/up.tmp" &
        wait' sh "$TMP" &
    PIDS+=($!)
    until [ -s "$TMP/up.tmp" ]; do sleep 0.05; done
    held=$(cat "$TMP/up.tmp")
    PIDS+=("$held")
    [ ! -e "$TMP/ns/real.conf" ]
    run --separate-stderr "$NI" verify --pid "$held"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$held +python3 +MISSING +MISSING +MISSING +MISSING +CONFLICT$"
    assert_line "pid $held: NCCL_PROTO=Simple (from $TMP/ns/link, read before /etc/nccl.conf), the profile says LL"
}

@test "a kernel thread is known by PF_KTHREAD, not by an unreadable environment: never checked" {
    [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || skip "no kernel thread in this PID namespace"
    (( ($(awk '{ print $9 }' /proc/2/stat) & 0x00200000) != 0 ))
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    run --separate-stderr "$NI" verify --pid 2
    echo "$output"
    assert_failure 3
    refute_output --partial "not verified"
    assert_line "pid 2: a kernel thread: it runs no program of its own, nothing to check"
    # --all does not list them
    run --separate-stderr "$NI" verify --all --json
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not [p for p in d["processes"] if p["pid"] == 2], d
print("ok")' "$output"
    assert_output ok
}

@test "--json names the processes it did not check; a --pid that is gone makes the exit 1" {
    SINKS=all start_tree
    read -r w1 _ <"$TMP/ready"
    run --separate-stderr "$NI" verify --json --pid "$w1" --pid 999999999
    echo "$output"
    assert_failure 1
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["checked"] == 1 and d["ok"] is False, d
assert d["not_checked"] == [{"pid": 999999999, "why": "no such process"}], d
print("ok")' "$output"
    assert_output ok
    if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
        run --separate-stderr "$NI" verify --json --pid 2
        assert_failure 3
        run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["not_checked"] == [{"pid": 2, "why": "a kernel thread"}] and d["ok"] is False, d
print("ok")' "$output"
        assert_output ok
    fi
    run --separate-stderr "$NI" verify --json --pid "$w1"
    assert_success
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["not_checked"] == [] and d["ok"] is True, d
print("ok")' "$output"
    assert_output ok
}

@test "a file at the library's path with the mapped inode number on another file system is not the library mapped" {
    command -v setpriv >/dev/null || skip "no setpriv"
    command -v gcc >/dev/null || skip "no gcc"
    keep_writer --profile-dir "$PROFILES" -p pcie-8gpu --sinks record
    echo 'const char nccl_version[] = "NCCL version 2.28.9+cuda13.0";' >"$TMP/v.c"
    gcc -shared -fPIC -o "$TMP/mapped.so" "$TMP/v.c"
    echo 'const char nccl_version[] = "NCCL version 2.99.9+other";' >"$TMP/o.c"
    gcc -shared -fPIC -o "$TMP/other.so" "$TMP/o.c"
    chmod 711 "$TMP"
    mkdir -m 1777 "$TMP/n" "$TMP/lib"
    # two fresh tmpfs mounts number their first file alike: the library is
    # mapped from the first, then the second is mounted over it (in the
    # process's mount namespace) with a file of the same inode number
    unshare -m --propagation private bash -c '
        mount -t tmpfs tmpfs "$1/lib" && cp "$1/mapped.so" "$1/lib/libnccl.so.2"
        stat -c %i "$1/lib/libnccl.so.2" >"$1/ino.1"
        setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -S -c "
import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2], \"w\").close()
time.sleep(60)" "$1/lib/libnccl.so.2" "$1/n/mapped" &
        until [ -e "$1/n/mapped" ]; do sleep 0.05; done
        mount -t tmpfs tmpfs "$1/lib" && cp "$1/other.so" "$1/lib/libnccl.so.2"
        stat -c %i "$1/lib/libnccl.so.2" >"$1/ino.2"
        echo $! >"$1/held"
        wait' sh "$TMP" &
    PIDS+=($!)
    until [ -s "$TMP/held" ]; do sleep 0.05; done
    held=$(cat "$TMP/held")
    PIDS+=("$held")
    [ "$(cat "$TMP/ino.1")" = "$(cat "$TMP/ino.2")" ]
    # as nobody: no /proc/PID/map_files, the path through /proc/PID/root
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify --pid "$held"
    echo "$output"
    refute_output --partial "2.99.9"
    assert_line --partial "in 1 process ($TMP/lib/libnccl.so.2: the file at that path is not the one mapped)"
    # the library at its path, on the file system it was mapped from: read
    mkdir -m 755 "$TMP/n/plain.d"
    cp "$TMP/mapped.so" "$TMP/n/plain.d/libnccl.so.2"
    env -i setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -S -c "
import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2], 'w').close()
time.sleep(60)" "$TMP/n/plain.d/libnccl.so.2" "$TMP/n/plain" &
    PIDS+=($!)
    plain=$!
    wait_for "$TMP/n/plain"
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups "$NI" verify --pid "$plain"
    echo "$output"
    assert_line --regexp "^$plain +python3 .* 2\.28\.9\+cuda13\.0$"
}

# --- the witness: what NCCL itself read (issue 35) ---

H='nccl-init-witness 1 pid={pid} start={start}'
N1='nccl copy=1 version=2.28.9 suffix= interface=v1 lib=/usr/local/cuda/lib64/libnccl.so.2'
N2='nccl copy=2 version=2.27.3 suffix= interface=v2 lib=/opt/wheel/nvidia/nccl/lib/libnccl.so.2'

# $TMP/profiles/sock.env: a tuning key and the one NCCL asks at its init.
sock_profile() {
    mkdir -p "$TMP/profiles"
    printf 'NCCL_ALGO=Ring\nNCCL_PROTO=LL\nNCCL_SOCKET_IFNAME=lo\n' >"$TMP/profiles/sock.env"
}

# maker [ENV...] -- ARG...: helpers/witness-maker.py under python3 -S (no
# hook) in the environment ENV only; MADE: its pid, once its witnesses are
# written (and, with --exec, once it runs the program it exec'd).
maker() {
    local envs=() _
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    rm -f "$TMP/made"
    env -i "${envs[@]}" /usr/bin/python3 -S "$BATS_TEST_DIRNAME/helpers/witness-maker.py" "$TMP/made" "$@" &
    PIDS+=($!)
    for _ in $(seq 400); do [ -e "$TMP/made" ] && break; sleep 0.02; done
    MADE=$(cat "$TMP/made")
    if [[ " $* " == *" --exec "* ]]; then
        for _ in $(seq 400); do grep -q 'import time' "/proc/$MADE/cmdline" && break; sleep 0.02; done
    fi
}

# the profile's values in a maker's environment
SOCK_ENV=(NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_SOCKET_IFNAME=lo)

@test "witness: NCCL read the profile's value from the record: nccl:rec, the phrase, the keys not asked yet; exit 0" {
    sock_profile
    # the witness maker is nccl-init's child, without NCCL_SOCKET_IFNAME in
    # its environment: NCCL got it from the plugin's record
    env -i PATH=/usr/bin:/bin "$NI" -q --profile-dir "$TMP/profiles" -p sock --sinks record -- \
        env -u NCCL_SOCKET_IFNAME /usr/bin/python3 -S "$BATS_TEST_DIRNAME/helpers/witness-maker.py" "$TMP/made" \
        "$H" "record path=/run/nccl-init/profile.env digest=abc profile=sock enforced=0 values=3" "$N1" \
        "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo" \
        "ask copy=1 name=NCCL_COMM_ID from=none" 2>"$TMP/init.log" &
    PIDS+=($!)
    for _ in $(seq 400); do [ -e "$TMP/made" ] && break; sleep 0.02; done
    MADE=$(cat "$TMP/made")
    # --pid: other NCCL processes on this machine may have witnesses too
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +ALGO +PROTO +SOCKET_IFN'
    assert_line --regexp "^$MADE +python3 +env +env +nccl:rec$"
    assert_output --partial "NCCL 2.28.9 read NCCL_SOCKET_IFNAME=lo from the record"
    assert_line "pid $MADE (python3): NCCL 2.28.9 read NCCL_SOCKET_IFNAME=lo from the record; not asked yet: NCCL_ALGO NCCL_PROTO (NCCL asks the tuning keys at its first communicator) [copy 1: v1, /usr/local/cuda/lib64/libnccl.so.2]"
    assert_line --regexp "^1 process checked, 1 with every value "
    run --separate-stderr "$NI" verify --json --pid "$MADE"
    assert_success
    json_check "$output" "$MADE" 'p["witness"]["trusted"] and p["witness"]["why"] is None and p["witness"]["pid"] == '"$MADE"
    json_check "$output" "$MADE" 'p["witness"]["record"] == {"path": "/run/nccl-init/profile.env", "digest": "abc", "profile": "sock", "enforced": False} and p["witness"]["no_record"] is None'
    json_check "$output" "$MADE" 'p["witness"]["copies"] == [{"copy": 1, "version": "2.28.9", "suffix": "", "interface": "v1", "lib": "/usr/local/cuda/lib64/libnccl.so.2"}]'
    # the reads of the profile's keys only; NCCL_COMM_ID is none of them
    json_check "$output" "$MADE" 'p["witness"]["reads"] == [{"copy": 1, "name": "NCCL_SOCKET_IFNAME", "value": "lo", "from": "record", "own": None, "record": None, "cut": False}]'
    json_check "$output" "$MADE" 'p["variables"]["NCCL_SOCKET_IFNAME"] == {"via": "nccl:rec", "value": "lo", "nccl": {"asked": True, "copy": 1, "value": "lo", "from": "record"}}'
    json_check "$output" "$MADE" 'p["variables"]["NCCL_ALGO"] == {"via": "env", "value": "Ring", "nccl": {"asked": False}}'
    # --all: every name NCCL asked for
    run --separate-stderr "$NI" verify --json --all
    json_check "$output" "$MADE" '[r["name"] for r in p["witness"]["reads"]] == ["NCCL_SOCKET_IFNAME", "NCCL_COMM_ID"] and p["witness"]["reads"][1]["value"] is None'
}

@test "witness: NCCL read the process's own value: CONFLICT naming the key, the value and --enforce, exit 1; enforced: nccl:enf, exit 0" {
    sock_profile
    keep_writer --profile-dir "$TMP/profiles" -p sock --sinks record
    # its environment says lo, as the profile: NCCL's word is what counts
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=eth9 record=lo"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$MADE +python3 +env +env +CONFLICT$"
    assert_line "pid $MADE (python3): NCCL 2.28.9 read NCCL_SOCKET_IFNAME=eth9 from its own environment, not the profile's lo: the process set it itself; start nccl-init with --enforce to make NCCL read the profile's"
    assert_line --regexp "^1 process checked, 0 with every value "
    run --separate-stderr "$NI" verify --pid "$MADE" --json
    assert_failure 1
    json_check "$output" "$MADE" 'p["variables"]["NCCL_SOCKET_IFNAME"] == {"via": "CONFLICT", "value": "eth9", "nccl": {"asked": True, "copy": 1, "value": "eth9", "from": "own"}} and not p["ok"]'
    # the profile's value over its own: nccl:enf
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=enforced value=lo own=eth9"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_success
    assert_line --regexp "^$MADE +python3 +env +env +nccl:enf$"
    assert_output --partial "NCCL 2.28.9 read NCCL_SOCKET_IFNAME=lo from the record, enforced over its own eth9"
    # its own, the profile's value: nccl:own; nothing: MISSING, exit 1
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=lo" \
        "ask copy=1 name=NCCL_PROTO from=none"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$MADE +python3 +env +MISSING +nccl:own$"
    assert_line "pid $MADE (python3): NCCL 2.28.9 read nothing for NCCL_PROTO (NCCL's default), not the profile's LL: the record the env plugin serves lacks it"
    # the last ask of a name is what NCCL read last
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=eth9" \
        "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo"
    run --separate-stderr "$NI" verify --pid "$MADE"
    assert_success
    assert_line --regexp "^$MADE +python3 +env +env +nccl:rec$"
}

@test "witness: two NCCL copies are both listed; one that read another value fails the process" {
    sock_profile
    keep_writer --profile-dir "$TMP/profiles" -p sock --sinks record
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "$N2" "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo" \
        "ask copy=2 name=NCCL_SOCKET_IFNAME from=record value=lo" "ask copy=2 name=NCCL_ALGO from=record value=Ring"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_success
    assert_line --regexp "^$MADE +python3 +nccl:rec +env +nccl:rec$"
    assert_line --partial "pid $MADE (python3): NCCL 2.28.9 read NCCL_SOCKET_IFNAME=lo from the record; not asked yet: NCCL_ALGO NCCL_PROTO"
    assert_line --partial "pid $MADE (python3): NCCL 2.27.3 read NCCL_ALGO=Ring from the record; NCCL 2.27.3 read NCCL_SOCKET_IFNAME=lo from the record; not asked yet: NCCL_PROTO"
    run --separate-stderr "$NI" verify --pid "$MADE" --json
    json_check "$output" "$MADE" '[c["copy"] for c in p["witness"]["copies"]] == [1, 2] and len(p["witness"]["reads"]) == 3'
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "$N2" "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo" \
        "ask copy=2 name=NCCL_SOCKET_IFNAME from=own value=eth9 record=lo"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$MADE +python3 +env +env +CONFLICT$"
    assert_line --partial "pid $MADE (python3): NCCL 2.27.3 read NCCL_SOCKET_IFNAME=eth9 from its own environment, not the profile's lo"
}

@test "witness: truncated, malformed, of an unknown format, another pid's, inherited across an exec: not trusted, said so, never a crash" {
    sock_profile
    keep_writer --profile-dir "$TMP/profiles" -p sock --sinks record
    own_ask="ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=eth9"
    check_untrusted() { # WHY MAKER-ARG...: not trusted with WHY; the key judged by its environment
        local why=$1; shift
        maker "${SOCK_ENV[@]}" -- "$@"
        run --separate-stderr "$NI" verify --pid "$MADE"
        echo "$output"
        assert_success
        assert_line --regexp "^$MADE +python3 +env +env +env$"
        assert_line "pid $MADE (python3): witness not trusted: $why"
        run --separate-stderr "$NI" verify --pid "$MADE" --json
        assert_success
        json_check "$output" "$MADE" 'p["witness"]["trusted"] is False and p["witness"]["why"] == sys.argv[4] and p["witness"]["reads"] == [] and p["variables"]["NCCL_SOCKET_IFNAME"]["nccl"] == {"asked": False}' "$why"
    }
    check_untrusted "truncated (the witness reached 256 KiB)" "$H" "$N1" "$own_ask" truncated
    check_untrusted "malformed at line 3: from=own takes value= and record=" "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=own"
    check_untrusted "malformed at line 2: a byte outside printable ASCII" "$H" $'ask copy=0 name=NCCL_SOCKET_IFNAME from=own value=\x1b[2J'
    check_untrusted "unknown format 2" 'nccl-init-witness 2 pid={pid} start={start}' "$N1" "$own_ask"
    check_untrusted "unknown format (no nccl-init-witness header)" "$N1" "$own_ask"
    check_untrusted "made by pid 1 (inherited)" 'nccl-init-witness 1 pid=1 start={start}' "$N1" "$own_ask"
    check_untrusted "made by pid $((1 << 30)) (inherited)" "nccl-init-witness 1 pid=$((1 << 30)) start=1" "$N1" "$own_ask"
    check_untrusted "empty (being written)" --partial "nccl-init-witness 1 pid="
    # inheritable, then an exec: the program it runs never wrote it (same
    # pid, same start time: only close-on-exec tells)
    check_untrusted "inherited across an exec (no close-on-exec)" --no-cloexec "$H" "$N1" "$own_ask" --exec
    # a line being written (no newline yet) is left out; the rest is trusted
    maker "${SOCK_ENV[@]}" -- "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo" --partial "ask copy=1 name=NCCL_SOCK"
    run --separate-stderr "$NI" verify --pid "$MADE"
    assert_success
    assert_line --regexp "^$MADE +python3 +env +env +nccl:rec$"
}

@test "witness: several in one process: its own is taken, the others named" {
    sock_profile
    keep_writer --profile-dir "$TMP/profiles" -p sock --sinks record
    maker "${SOCK_ENV[@]}" -- 'nccl-init-witness 1 pid=1 start=1' --witness \
        "$H" "$N1" "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo" --witness "$H" --witness truncated
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_success
    assert_line --regexp "^$MADE +python3 +env +env +nccl:rec$"
    assert_line --regexp "^pid $MADE \(python3\): other witness descriptors, not taken: fd [0-9]+: made by pid 1 \(inherited\); fd [0-9]+: a second witness of its own; fd [0-9]+: unknown format \(no nccl-init-witness header\)$"
}

@test "witness: a mapped empty libnccl-env.so is no env plugin any more; a witness of the process's own is" {
    sock_profile
    keep_writer --profile-dir "$TMP/profiles" -p sock --sinks record
    : >"$TMP/libnccl-env.so"
    # the record held O_PATH, as the plugin keeps it, and an empty file
    # named as the plugin mapped: no witness, so no plugin
    maker NCCL_ALGO=Ring NCCL_PROTO=LL -- --map "$TMP/libnccl-env.so" --pathfd "$RECORD"
    grep -q "$TMP/libnccl-env.so" "/proc/$MADE/maps"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_failure 1
    assert_line --regexp "^$MADE +python3 +env +env +MISSING$"
    run --separate-stderr "$NI" verify --pid "$MADE" --json
    json_check "$output" "$MADE" 'p["witness"] is None and p["env_plugin"]["record"] is None'
    # the same with a witness of its own (NCCL has not asked the key yet):
    # the plugin's record gives it
    maker NCCL_ALGO=Ring NCCL_PROTO=LL -- "$H" "$N1" --map "$TMP/libnccl-env.so" --pathfd "$RECORD"
    run --separate-stderr "$NI" verify --pid "$MADE"
    echo "$output"
    assert_success
    assert_line --regexp "^$MADE +python3 +env +env +plugin$"
    assert_line "pid $MADE (python3): NCCL 2.28.9 has read none of the profile's keys yet; not asked yet: NCCL_ALGO NCCL_PROTO NCCL_SOCKET_IFNAME (NCCL asks the tuning keys at its first communicator) [copy 1: v1, /usr/local/cuda/lib64/libnccl.so.2]"
    # a witness that is not its own: no plugin
    maker NCCL_ALGO=Ring NCCL_PROTO=LL -- 'nccl-init-witness 1 pid=1 start=1' "$N1" --pathfd "$RECORD"
    run --separate-stderr "$NI" verify --pid "$MADE"
    assert_failure 1
    assert_line --regexp "^$MADE +python3 +env +env +MISSING$"
}
