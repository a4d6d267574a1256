#!/usr/bin/env bats
# The env plugin's witness (plugin/witness.c; doc/env-plugin.md, "The
# witness"): what NCCL asked the plugin for and what it got, in every
# process, under the real libnccl 2.28.9 (ncclGetUniqueId, no GPU), and
# through tests/helpers/plugin-harness.c where NCCL cannot run here (its
# communicator init, the v2 interface of 2.30): the harness is named in
# those tests. The record is /run/nccl-init/profile.env (copy-on-write in
# the sandbox), written by the binary under test, whose run stays until
# the test ends.

load helpers/common
load helpers/prefix

LIBNCCL=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
ENVPROBE=$BATS_TEST_DIRNAME/helpers/nccl-env-probe.py
HARNESS=$REPO/build/test/plugin-harness
DENY=$REPO/build/test/deny-syscall
RECORD=/run/nccl-init/profile.env

setup_file() {
    install_scratch_prefix
}

setup() {
    [ "$(id -u)" = 0 ] || skip "writes /run/nccl-init (copy-on-write in the sandbox)"
    [ -f "$LIBNCCL" ] || skip "no $LIBNCCL"
    unset_nccl_env
    export LC_ALL=C
    TMP=$(mktemp -d)
    PIDS=()
    rm -rf /run/nccl-init /etc/nccl.conf
    remove_python_hooks
}

teardown() {
    local p
    stop_writers
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "${TMP:-/nonexistent}" /run/nccl-init
}

# The record of the lo profile (NCCL_SOCKET_IFNAME=lo, NCCL_BUFFSIZE), its
# writer kept running; $@: more options (--enforce).
write_record() {
    keep_writer --profile-dir "$PDIR" --sinks record -p lo "$@"
}

# probe [VAR=VALUE...] MODE...: the probe in an empty environment, NCCL's
# debug output on, NCCL_ENV_PLUGIN naming the installed plugin.
probe() {
    local -a vars=(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP "NCCL_ENV_PLUGIN=$SO")
    while [[ ${1:-} == *=* ]]; do vars+=("$1"); shift; done
    run timeout 30 env -i "${vars[@]}" /usr/bin/python3 -I "$ENVPROBE" "$@" "$LIBNCCL"
    echo "$output"
}

# after FILE PREFIX: what follows "PREFIX " on FILE's first such line, once
# there is one (15 s at most).
after() {
    local v _
    for _ in $(seq 300); do
        v=$(sed -n "s/^$2 //p" "$1" | head -n1)
        [ -n "$v" ] && { echo "$v"; return 0; }
        sleep 0.05
    done
    cat "$1" >&2
    return 1
}

# start BACKGROUND-COMMAND...: runs it with its output in $TMP/out.N and
# waits for its "held PID" line; HELD: that pid.
start() {
    local out=$TMP/out.${#PIDS[@]}
    "$@" >"$out" 2>&1 &
    PIDS+=("$!")
    HELD=$(after "$out" held)
}

@test "an env -i process: the witness names its pid, the record, NCCL 2.28.9 (v1) and its library, and NCCL_SOCKET_IFNAME=lo from the record" {
    write_record
    probe witness
    assert_success
    local d
    d=$(sed -n 's/^NCCL_INIT_DIGEST=//p' "$RECORD")
    assert_line --regexp '^witness: nccl-init-witness 1 pid=[0-9]+ start=[0-9]+$'
    assert_line "witness: record path=$RECORD digest=$d profile=lo enforced=0 values=2"
    assert_line --regexp "^witness: nccl copy=1 version=2\.28\.9 suffix= interface=v1 lib=/.*/libnccl\.so\.2$"
    assert_line 'witness: ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo'
    # what ncclGetUniqueId asks besides (issue 35), each once
    assert_line 'witness: ask copy=1 name=NCCL_COMM_ID from=none'
    [ "$(grep -c 'name=NCCL_COMM_ID ' <<<"$output")" = 1 ]
    # NCCL reads NCCL_DEBUG with getenv, never through the plugin
    refute_output --partial 'name=NCCL_DEBUG'
    # the tuning keys: not asked without a communicator
    refute_output --partial 'name=NCCL_BUFFSIZE'
}

@test "a process's own NCCL_SOCKET_IFNAME: the witness says from=own with the record's value beside it; enforced: the record's, with its own beside it" {
    write_record
    probe NCCL_SOCKET_IFNAME=eth9 witness
    assert_failure # NCCL finds no eth9 here
    assert_line 'witness: ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=eth9 record=lo'
    stop_writers
    write_record --enforce
    probe NCCL_SOCKET_IFNAME=eth9 witness
    assert_success
    assert_line --regexp '^witness: record path=.* enforced=1 values=2$'
    assert_line 'witness: ask copy=1 name=NCCL_SOCKET_IFNAME from=enforced value=lo own=eth9'
}

@test "no record: the witness says why, and NCCL's answers are the process's own" {
    probe NCCL_SOCKET_IFNAME=lo witness
    assert_success
    assert_line 'witness: no-record level=info why=no\x20/run/nccl-init'
    assert_line 'witness: ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=lo'
}

@test "a value with spaces, a newline and an escape byte: one line, each such byte as \\xHH" {
    write_record
    probe NCCL_GDRCOPY_ENABLE=$'0 \n\x1b[31m\\' witness
    assert_line 'witness: ask copy=1 name=NCCL_GDRCOPY_ENABLE from=own value=0\x20\x0a\x1b[31m\x5c'
}

@test "two libnccl copies in one process (another path, as a wheel's): one plugin, each copy's init and asks under its own number" {
    write_record
    cp "$(readlink -f "$LIBNCCL")" "$TMP/libnccl.so.2"
    start env -i NCCL_ENV_PLUGIN="$SO" /usr/bin/python3 -I "$ENVPROBE" copies "$TMP/libnccl.so.2" "$LIBNCCL"
    run witness_of "$HELD"
    echo "$output"
    assert_line --regexp "^nccl copy=1 version=2\.28\.9 suffix= interface=v1 lib=/usr/.*/libnccl\.so\.2$"
    assert_line "nccl copy=2 version=2.28.9 suffix= interface=v1 lib=$TMP/libnccl.so.2"
    assert_line 'ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo'
    assert_line 'ask copy=2 name=NCCL_SOCKET_IFNAME from=record value=lo'
    # one record line: the second init shares what the first loaded
    [ "$(grep -c '^record ' <<<"$output")" = 1 ]
}

@test "a forked child (os.fork after NCCL's init) holds a witness of its own, with its parent's lines; the parent's has none of the child's" {
    write_record
    start env -i NCCL_ENV_PLUGIN="$SO" /usr/bin/python3 -I "$ENVPROBE" fork "$LIBNCCL"
    local child
    child=$(after "$TMP/out.0" child)
    [ -n "$child" ]
    run witness_of "$child"
    echo "$output"
    [ "$(grep -c '^nccl-init-witness' <<<"$output")" = 1 ]
    assert_line --regexp "^nccl-init-witness 1 pid=$child start=[0-9]+\$"
    assert_line "fork parent=$HELD"
    assert_line 'ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo'
    run witness_of "$HELD"
    assert_line --regexp "^nccl-init-witness 1 pid=$HELD "
    refute_output --partial 'fork parent'
}

@test "plugin-harness (not NCCL): fork(3) and a raw clone(2) that runs no atfork handler each get their own witness; the parent's keeps only its own asks" {
    write_record
    run "$HARNESS" fork "$SO"
    echo "$output"
    assert_success
    local parent child clone
    parent=$(sed -n 's/^parent pid //p' <<<"$output")
    child=$(sed -n 's/^child pid //p' <<<"$output")
    clone=$(sed -n 's/^clone pid //p' <<<"$output")
    assert_line --regexp "^child: nccl-init-witness 1 pid=$child "
    assert_line "child: fork parent=$parent"
    assert_line 'child: ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo'
    assert_line 'child: ask copy=1 name=NCCL_CHILD_ASK from=none'
    assert_line --regexp "^parent: nccl-init-witness 1 pid=$parent "
    assert_line 'parent: ask copy=1 name=NCCL_PARENT_ASK from=none'
    refute_line --partial 'parent: ask copy=1 name=NCCL_CHILD_ASK'
    refute_line --partial 'parent: ask copy=1 name=NCCL_CLONE_ASK'
    assert_line --regexp "^clone: nccl-init-witness 1 pid=$clone "
    assert_line "clone: fork parent=$parent"
    assert_line 'clone: ask copy=1 name=NCCL_CLONE_ASK from=none'
}

@test "plugin-harness (not NCCL): v2 as NCCL 2.30's communicator init calls it, from 4 threads: the six tuning keys once each in the witness, from the record" {
    keep_writer --profile-dir "$PROFILES" --sinks record -p pcie-8gpu -p "$PDIR/lo.env"
    start "$HARNESS" comm-init "$SO"
    run witness_of "$HELD"
    echo "$output"
    assert_line --regexp '^nccl copy=1 version=2\.30\.7 suffix= interface=v2 lib=.*/plugin-harness$'
    local k v
    for k in NCCL_PROTO=LL NCCL_ALGO=Ring NCCL_P2P_LEVEL=SYS NCCL_MAX_NCHANNELS=16 NCCL_BUFFSIZE=8388608; do
        v=${k#*=} k=${k%%=*}
        assert_line "ask copy=1 name=$k from=record value=$v"
        # asked by 4 threads, 3 times for PROTO and ALGO: one line, the same answer
        [ "$(grep -c "name=$k " <<<"$output")" = 1 ]
    done
    # not in the profile: asked, and answered with nothing
    assert_line 'ask copy=1 name=NCCL_NTHREADS from=none'
}

@test "no memfd (a seccomp filter fails memfd_create): NCCL's answers are the same, one WARN line says so, and there is no witness" {
    write_record
    run timeout 30 "$DENY" memfd_create env -i NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP \
        "NCCL_ENV_PLUGIN=$SO" /usr/bin/python3 -I "$ENVPROBE" witness "$LIBNCCL"
    echo "$output"
    assert_success
    assert_line 'witness: none'
    assert_output --partial 'NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo'
    assert_output --regexp 'NCCL INFO Bootstrap: Using lo:'
    [ "$(grep -c 'nccl-init: no witness' <<<"$output")" = 1 ]
    assert_line --regexp '^[^ ]+:[0-9]+:[0-9]+ NCCL WARN nccl-init: no witness \(memfd_create: Function not implemented\): verify cannot show what NCCL reads$'
    # v2: through NCCL's logger, at WARN (2)
    run timeout 30 "$DENY" memfd_create env -i /usr/bin/python3 -I "$ENVPROBE" v2 "$SO" NCCL_SOCKET_IFNAME "$LIBNCCL"
    echo "$output"
    assert_success
    assert_line 'getEnv: lo'
    assert_line --regexp '^log 2 0x81 .*: nccl-init: no witness \(memfd_create: Function not implemented\)'
}

@test "more names than the witness holds: it ends with one truncated line, and every answer is still right" {
    write_record
    run timeout 60 env -i NCCL_ENV_PLUGIN="$SO" NCCL_T_2999=set /usr/bin/python3 -I - "$SO" <<'PY'
import ctypes, sys
class Env(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("init", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint8,
                ctypes.c_uint8, ctypes.c_uint8, ctypes.c_char_p)), ("finalize", ctypes.c_void_p),
                ("getEnv", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_char_p))]
env = Env.in_dll(ctypes.CDLL(sys.argv[1]), "ncclEnvPlugin_v1")
env.init(2, 28, 9, b"")
got = [env.getEnv(b"NCCL_T_%d" % i) for i in range(3000)]
print("answers:", sum(g is None for g in got), "none,", got[2999].decode())
print("ifname:", env.getEnv(b"NCCL_SOCKET_IFNAME").decode())
import os
for fd in os.listdir("/proc/self/fd"):
    try:
        if os.readlink("/proc/self/fd/" + fd) == "/memfd:nccl-init-witness (deleted)":
            lines = open("/proc/self/fd/" + fd).read().splitlines()
            print("lines:", len(lines), "last:", lines[-1], "truncated:", lines.count("truncated"))
    except OSError:
        pass
PY
    echo "$output"
    assert_success
    assert_line 'answers: 2999 none, set'
    assert_line 'ifname: lo'
    assert_line --regexp '^lines: [0-9]+ last: truncated truncated: 1$'
}

# verify, from NCCL's own word: the witness decides each key NCCL asked
# for (doc/verify.md, "What NCCL read").

# The pids of the "worker PID: RESULT" lines of $TMP/out.N ($1), once
# there are $2 of them.
workers_of() {
    local out=$TMP/out.$1 n=$2 _
    for _ in $(seq 300); do
        [ "$(grep -c '^worker [0-9]*: ' "$out")" -ge "$n" ] && break
        sleep 0.05
    done
    sed -n 's/^worker \([0-9]*\): .*/\1/p' "$out"
}

@test "scrubbed spawn workers and a C program under nccl-init --sinks record: verify says NCCL 2.28.9 read NCCL_SOCKET_IFNAME=lo from the record, exit 0" {
    # the plugin found by NCCL's own dlopen("libnccl-env.so"): the workers
    # keep no NCCL_* at all
    start "$NI" -q --profile-dir "$PDIR" -p lo --sinks record -- \
        env LD_LIBRARY_PATH="$P/lib/nccl-init" /usr/bin/python3 -I "$ENVPROBE" workers 2 "$LIBNCCL"
    local w c
    w=$(workers_of 0 2)
    [ "$(wc -w <<<"$w")" = 2 ]
    start "$NI" -q --profile-dir "$PDIR" -p lo --sinks record -- \
        env -i LD_LIBRARY_PATH="$P/lib/nccl-init" "$HARNESS" uid "$LIBNCCL" hold
    c=$HELD
    run --separate-stderr "$NI" verify $(printf -- '--pid %s ' $w $c)
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +BUFFSIZE +SOCKET_IFN +LIBNCCL$'
    for p in $w; do
        # no NCCL_* in its environment: the key NCCL read is NCCL's word, the other the plugin's record
        run tr '\0' '\n' <"/proc/$p/environ"
        refute_output --regexp '^NCCL_'
        run --separate-stderr "$NI" verify $(printf -- '--pid %s ' $w $c)
        assert_line --regexp "^$p +python3 +plugin +nccl:rec +2\.28\.9"
        assert_line --regexp "^pid $p \(python3\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record; not asked yet: NCCL_BUFFSIZE "
    done
    assert_line --regexp "^$c +plugin-harness +plugin +nccl:rec +2\.28\.9"
    assert_line --regexp "^pid $c \(plugin-harness\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record"
    assert_line --regexp '^3 processes checked, 3 with every value '
}

@test "a worker that sets its own NCCL_SOCKET_IFNAME: verify exits 1 naming it, NCCL's value and the --enforce hint; under --enforce NCCL reads the record's, exit 0" {
    start "$NI" -q --profile-dir "$PDIR" -p lo --sinks record -- \
        env LD_LIBRARY_PATH="$P/lib/nccl-init" /usr/bin/python3 -I "$ENVPROBE" workers 1 NCCL_SOCKET_IFNAME=eth9 "$LIBNCCL"
    local w
    w=$(workers_of 0 1)
    [ -n "$w" ]
    run --separate-stderr "$NI" verify --pid "$w"
    echo "$output"
    [ "$status" = 1 ]
    assert_line --regexp "^$w +python3 +plugin +CONFLICT "
    assert_output --regexp "pid $w \(python3\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=eth9 from its own environment, not the profile's lo.*--enforce"
    # the same under --enforce
    kill -TERM "${PIDS[0]}"
    wait "${PIDS[0]}" || true
    start "$NI" -q --enforce --profile-dir "$PDIR" -p lo --sinks record -- \
        env LD_LIBRARY_PATH="$P/lib/nccl-init" /usr/bin/python3 -I "$ENVPROBE" workers 1 NCCL_SOCKET_IFNAME=eth9 "$LIBNCCL"
    w=$(workers_of 1 1)
    grep -q "^worker $w: ok" "$TMP/out.1"
    run --separate-stderr "$NI" verify --pid "$w"
    echo "$output"
    assert_success
    assert_line --regexp "^$w +python3 +plugin +nccl:enf "
}

@test "verify over two libnccl copies in one process: both NCCLs' reads" {
    write_record
    cp "$(readlink -f "$LIBNCCL")" "$TMP/libnccl.so.2"
    start env -i NCCL_ENV_PLUGIN="$SO" /usr/bin/python3 -I "$ENVPROBE" copies "$TMP/libnccl.so.2" "$LIBNCCL"
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_success
    assert_line --regexp "^$HELD +python3 +plugin +nccl:rec "
    assert_output --partial "$TMP/libnccl.so.2"
    [ "$(grep -o 'NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record' <<<"$output" | wc -l)" = 2 ]
    run --separate-stderr "$NI" verify --json --pid "$HELD"
    python3 -c '
import json, sys
row = [r for r in json.load(sys.stdin)["processes"] if r["pid"] == int(sys.argv[1])][0]
w = row["witness"]
assert w["trusted"], w
assert [c["copy"] for c in w["copies"]] == [1, 2], w["copies"]
assert {(r["copy"], r["name"], r["value"], r["from"]) for r in w["reads"]} == \
    {(1, "NCCL_SOCKET_IFNAME", "lo", "record"), (2, "NCCL_SOCKET_IFNAME", "lo", "record")}, w["reads"]
' "$HELD" <<<"$output"
}

@test "verify over a forked child: its own witness is trusted, and NCCL read lo from the record" {
    write_record
    start env -i NCCL_ENV_PLUGIN="$SO" /usr/bin/python3 -I "$ENVPROBE" fork "$LIBNCCL"
    local child
    child=$(after "$TMP/out.0" child)
    run --separate-stderr "$NI" verify --pid "$child" --pid "$HELD"
    echo "$output"
    assert_success
    refute_output --partial 'not trusted'
    assert_line --regexp "^pid $child \(python3\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record"
    assert_line --regexp "^pid $HELD \(python3\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record"
}

@test "plugin-harness (not NCCL): 4 threads write new names into the witness while verify reads it 20 times: trusted every time, exit 0" {
    write_record
    start "$HARNESS" threads "$SO" 4
    local i
    for i in $(seq 20); do
        run --separate-stderr "$NI" verify --pid "$HELD"
        [ "$status" = 0 ] || { echo "$output"; false; }
        refute_output --partial 'not trusted'
        assert_line --regexp "^pid $HELD \(plugin-harness\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from the record"
        sleep 0.1
    done
    # lines were being added meanwhile
    [ "$(witness_of "$HELD" | grep -c 'name=NCCL_HARNESS_T')" -gt 40 ]
}

@test "plugin-harness (not NCCL): v2, the six tuning keys asked as a communicator init asks them: verify shows nccl:rec for each key of the profile, exit 0" {
    keep_writer --profile-dir "$PROFILES" --sinks record -p pcie-8gpu -p "$PDIR/lo.env"
    start "$HARNESS" comm-init "$SO"
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +ALGO +BUFFSIZE +MAX_NCHANN +P2P_LEVEL +PROTO +SOCKET_IFN'
    assert_line --regexp "^$HELD +plugin-harness +nccl:rec +nccl:rec +nccl:rec +nccl:rec +nccl:rec +plugin"
    assert_line --regexp "^pid $HELD \(plugin-harness\): NCCL 2\.30\.7 read NCCL_ALGO=Ring from the record"
    assert_output --regexp 'not asked yet: NCCL_SOCKET_IFNAME'
}
