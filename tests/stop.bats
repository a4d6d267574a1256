#!/usr/bin/env bats
# The staged stop (supervise.c): the stop signal to the main child alone,
# the rest of the tree SIGTERMed when the main child exits or, at the latest,
# at the cleanup stage a window before the deadline, SIGKILL at the deadline.
# The servers' order is kept (helpers/server_models.py) and a naive tree,
# whose main process waits on a worker that stops only on SIGTERM, is
# cleaned up (helpers/naive_tree.py). Each as PID 1 of a new PID namespace
# and as a subreaper.
#
# The tests that depend on a stage's timing run it seconds away from the
# deadline (--grace 12 --cleanup 5: the stage at 7 s); the default window is
# tested by the length the log says it has, which involves no race.

load helpers/common

setup() {
    TMP=$(mktemp -d)
    export NI
    if [[ "$BATS_TEST_DESCRIPTION" == *"(pid1)"* ]]; then
        unshare --pid --fork --mount-proc true 2>/dev/null || skip "no PID namespaces here"
    fi
}

teardown() {
    # A test that stops nccl-init (SIGSTOP) and fails leaves it behind.
    if [ -n "${STOPPED_INIT:-}" ]; then
        kill -KILL "$STOPPED_INIT" 2>/dev/null || true
    fi
    # The racer test: its watchdog, the racer's process group (a group kill
    # reaches every link at once, where one by pid could be outrun), and the
    # host's other processes it started.
    if [ -n "${WATCHDOG:-}" ]; then
        kill -KILL "$WATCHDOG" 2>/dev/null || true
    fi
    if [ -n "${RACER_GROUP:-}" ]; then
        kill -KILL -- "-$RACER_GROUP" 2>/dev/null || true
    fi
    if [ -n "${OTHERS:-}" ]; then
        # shellcheck disable=SC2086 # a list of pids
        kill -KILL $OTHERS 2>/dev/null || true
    fi
    rm -rf "$TMP"
}

# Runs a Python helper of tests/helpers, which prints "ok: ..." on success.
helper() {
    run --separate-stderr timeout 300 python3 "$BATS_TEST_DIRNAME/helpers/$1" "${@:2}"
    echo "$output"
    echo "$stderr" >&2
}

# The naive tree: cleaned up 3 of 3, exit 0 (the main process's own status,
# not 137), the log naming the cleanup stage, the init gone at least 2 s
# before the deadline. The helper's --grace 12 --cleanup 5 SIGTERMs the tree
# at 7 s, and the worker's 0.2 s of cleanup ends nearly 5 s before the
# deadline; without the stage the tree waits until 12 s and is SIGKILLed.
@test "naive tree: a non-daemon spawn worker that stops on SIGTERM only cleans up, 3 stops (pid1)" {
    helper naive_tree.py pid1 3
    assert_success
    assert_output --partial "ok: "
}
@test "naive tree: a non-daemon spawn worker that stops on SIGTERM only cleans up, 3 stops (subreaper)" {
    helper naive_tree.py subreaper 3
    assert_success
    assert_output --partial "ok: "
}

# --cleanup 0: no stage; the same tree waits for the deadline and is killed.
@test "--cleanup 0: no cleanup stage, the naive tree is SIGKILLed at the deadline (pid1)" {
    helper naive_tree.py pid1 1 --grace 2 --cleanup 0
    assert_failure 1
    assert_output --partial "the worker never cleaned up (exit 137"
    assert_output --partial "stop: ended by SIGKILL at the deadline, 2"
    assert_output --partial "ms after the stop signal"
}

# The servers' order under a long drain: --grace 12 --cleanup 3 puts the
# cleanup stage at 9 s; the 5 s drain and the servers' own shutdown end well
# before it, and no engine, worker, scheduler or detokenizer may be
# signalled before its parent stops it.
models() { helper server_models.py "$@" --drain 5 --init-arg=--grace=12 --init-arg=--cleanup=3; }

@test "vLLM: a 5 s drain under --grace 12 --cleanup 3 keeps its whole order, 5 stops (pid1)" {
    models pid1 vllm 5
    assert_success
    assert_output --partial "ok: vllm pid1: drain kept 5/5"
}
@test "vLLM: a 5 s drain under --grace 12 --cleanup 3 keeps its whole order, 5 stops (subreaper)" {
    models subreaper vllm 5
    assert_success
    assert_output --partial "ok: vllm subreaper: drain kept 5/5"
}
@test "SGLang: a 5 s drain under --grace 12 --cleanup 3 keeps its whole order, 5 stops (pid1)" {
    models pid1 sglang 5
    assert_success
    assert_output --partial "ok: sglang pid1: drain kept 5/5"
}
@test "SGLang: a 5 s drain under --grace 12 --cleanup 3 keeps its whole order, 5 stops (subreaper)" {
    models subreaper sglang 5
    assert_success
    assert_output --partial "ok: sglang subreaper: drain kept 5/5"
}

# The check above can fail: a window that reaches into the drain (the stage
# at 3 s of a 5 s drain) SIGTERMs the engine and workers before the API
# server stops them, and the model says so.
@test "vLLM: a cleanup window that reaches into the drain breaks the order, and the model sees it (pid1)" {
    helper server_models.py pid1 vllm 1 --drain 5 --init-arg=--grace=12 --init-arg=--cleanup=9
    assert_failure 1
    assert_output --regexp "first failing stop \(#0\): (engine|worker[01]) got SIGTERM before (api's stop-engine|engine's stop-workers)"
}

# Waits up to 30 s for the file $1 that the tree under nccl-init (pid $2)
# writes once it is ready; fails at once when nccl-init has exited.
wait_ready() {
    local i
    for ((i = 0; i < 3000; i++)); do
        [ -e "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || { echo "nccl-init exited before $1 was written" >&2; return 1; }
        sleep 0.01
    done
    echo "$1 was not written in 30 s" >&2
    return 1
}

# Runs nccl-init "$@" over sh -c "$SCRIPT", whose $0 is $TMP/ready, and
# sends it SIGTERM once the tree has written that file; sets status and
# stderr.
stop_sh() {
    local ready=$TMP/ready
    rm -f "$ready" "$TMP/err"
    "$NI" --sinks none "$@" -- sh -c "$SCRIPT" "$ready" 2>"$TMP/err" &
    local pid=$!
    wait_ready "$ready" "$pid"
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    stderr=$(cat "$TMP/err")
    echo "$stderr"
}

# A shell stand-in for the naive tree: the main child waits, on SIGTERM, for
# a worker of its group that stops only on SIGTERM, then exits 5.
# shellcheck disable=SC2016 # $0 and $w are the inner shell's
NAIVE='sleep 100 & w=$!; trap "wait \$w; exit 5" TERM; touch "$0"; wait'
naive_sh() { SCRIPT=$NAIVE stop_sh "$@"; }

# The stage's time from the log line, checked against [from, to) ms: the
# stage never comes early, and late only by the loop's wake-up.
stage_between() {
    [[ "$stderr" =~ "stop: ended at the cleanup stage: the tree got SIGTERM (1 process) "([0-9]+)" ms after the stop signal" ]]
    local ms=${BASH_REMATCH[1]}
    echo "cleanup stage at $ms ms"
    [ "$ms" -ge "$1" ] && [ "$ms" -lt "$2" ]
}

@test "the default window is 2 s at most: --grace 12 SIGTERMs the tree at 10 s" {
    naive_sh --grace 12
    [ "$status" -eq 5 ]
    [[ "$stderr" == *" ms before the deadline (a window of 2000 ms: the default, at most 2 s);"* ]]
    stage_between 10000 11500
}

@test "the default window is a quarter of a short grace: --grace 2 has one of 500 ms" {
    # The stage's own line (-v), whatever ends the stop: the status is not
    # asserted, as a loaded machine may take the 500 ms to the deadline.
    naive_sh -v --grace 2
    [[ "$stderr" == *"stopping at the cleanup stage (a window of 500 ms: the default, a quarter of the grace): SIGTERM to 1 more process, "* ]]
}

@test "NCCL_INIT_CLEANUP sets the window; --cleanup wins over it" {
    NCCL_INIT_CLEANUP=3 naive_sh --grace 6
    [ "$status" -eq 5 ]
    [[ "$stderr" == *" ms before the deadline (a window of 3000 ms: as set);"* ]]
    stage_between 3000 4500
    NCCL_INIT_CLEANUP=5 naive_sh --grace 6 --cleanup 4
    [ "$status" -eq 5 ]
    [[ "$stderr" == *" ms before the deadline (a window of 4000 ms: as set);"* ]]
    stage_between 2000 3500
}

@test "a stop that the main child's exit ends says so, and no cleanup stage comes" {
    # shellcheck disable=SC2016 # $0 is the inner shell's
    SCRIPT='sleep 100 & touch "$0"; wait' stop_sh --grace 12
    [ "$status" -eq 143 ]
    [[ "$stderr" =~ "stop: ended by the main child's own exit after "[0-9]+" ms; the rest of the tree was empty at "[0-9]+" ms" ]]
    [[ "$stderr" != *"cleanup stage"* ]]
}

# A process the main child forks after the cleanup stage gets its SIGTERM
# when the main child exits, as it would without the stage; one that had
# the stage's SIGTERM and still runs then gets no second. The main child
# waits on its worker (which the stage stops), starts "late", waits until
# late's trap is set, and exits 5; "early" lives 2 s past its SIGTERM.
@test "at the main child's exit, what the cleanup stage did not reach gets SIGTERM, and nothing gets a second" {
    cat >"$TMP/tree.sh" <<'EOF'
log=$1 ready=$2
sh -c 'trap "echo early >>\"\$0\"; n=1" TERM; n=0; touch "$0.early"
       while [ $n = 0 ]; do sleep 0.05; done; sleep 2' "$log" &
sleep 100 &
w=$!
trap 'wait $w
      sh -c "trap \"echo late >>\\\"\\\$0\\\"; exit 0\" TERM; touch \"\$0.late\"; while :; do sleep 0.05; done" "$log" &
      while [ ! -e "$log.late" ]; do sleep 0.01; done
      exit 5' TERM
while [ ! -e "$log.early" ]; do sleep 0.01; done
touch "$ready"
wait
EOF
    # shellcheck disable=SC2016 # $0 is the inner shell's
    SCRIPT='exec sh "${0%/*}/tree.sh" "${0%/*}/log" "$0"' stop_sh --grace 12 --cleanup 5
    cat "$TMP/log"
    [ "$status" -eq 5 ]
    [ "$(grep -c early "$TMP/log")" -eq 1 ]
    [ "$(grep -c late "$TMP/log")" -eq 1 ]
    # early, the worker, and early's sleep when it was running then
    [[ "$stderr" =~ "stop: ended at the cleanup stage: the tree got SIGTERM ("[23]" processes) " ]]
    [[ "$stderr" != *"SIGKILL"* ]]
}

# The stage is credited only when it reached a process: a lone main child
# that outlives the stage and then exits by itself ended the stop.
@test "a cleanup stage with nothing to SIGTERM is not what ended the stop" {
    # shellcheck disable=SC2016 # $0 is the inner shell's
    SCRIPT='exec python3 -c "
import signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: (time.sleep(6), sys.exit(3)))
open(sys.argv[1], \"w\").close()
while True: time.sleep(1)" "$0"' stop_sh --grace 8 --cleanup 4
    [ "$status" -eq 3 ]
    [[ "$stderr" =~ "stop: ended by the main child's own exit after "[0-9]+" ms; the rest of the tree was empty at "[0-9]+" ms; the cleanup stage at "[0-9]+" ms found no process to SIGTERM" ]]
    [[ "$stderr" != *"ended at the cleanup stage"* ]]
}

# A process that ignores SIGTERM and moves to a new pid every millisecond
# (helpers/racer.c: it forks, and the parent exits), in a session of its
# own, so that no process group of the main child's holds it. As a
# subreaper nccl-init adopts each link, and the deadline's SIGKILL must end
# it, on a host with a few hundred other processes (300 sleeps here). A
# walk of /proc (what the SIGKILL used to be) lists the pids of its start
# and reads every process of the host; the racer's pid was gone by the
# time it got there, and the stop ran 2 to 30 s past the deadline. The
# chase of the children lists ends it in a few ms: the bounds below leave
# a second, and 3 s to the whole exit.
@test "a process that moves to a new pid every millisecond is killed at the deadline (subreaper)" {
    local i pid t0 t1 others=()
    for ((i = 0; i < 300; i++)); do
        sleep 600 &
        others+=($!)
    done
    OTHERS=${others[*]}
    # shellcheck disable=SC2016 # $0 and $1 are the inner shell's
    "$NI" --sinks none --grace 2 -- sh -c '"$0" "$1" 1000 & exec sleep 100' \
        "$REPO/build/test/racer" "$TMP/ready" 2>"$TMP/err" &
    pid=$!
    STOPPED_INIT=$pid
    wait_ready "$TMP/ready" "$pid"
    RACER_GROUP=$(cat "$TMP/ready")
    # Not a test of patience: a nccl-init still running 20 s after the
    # stop signal is killed, and the test fails below.
    (sleep 20 && kill -KILL "$pid") >/dev/null 2>&1 3>&- &
    WATCHDOG=$!
    t0=$(date +%s%N)
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    t1=$(date +%s%N)
    STOPPED_INIT=
    cat "$TMP/err"
    echo "nccl-init exited $status, $(((t1 - t0) / 1000000)) ms after the stop signal"
    [ "$status" -eq 143 ]
    [ $(((t1 - t0) / 1000000)) -lt 5000 ]
    [[ "$(cat "$TMP/err")" =~ "stop: ended by SIGKILL at the deadline, "([0-9]+)" ms after the stop signal; the tree was empty at "([0-9]+)" ms" ]]
    echo "SIGKILL at ${BASH_REMATCH[1]} ms, the tree empty at ${BASH_REMATCH[2]} ms"
    [ $((BASH_REMATCH[2] - BASH_REMATCH[1])) -lt 1000 ]
    # nothing of the racer's group is left (nccl-init exits only with its
    # tree empty, and the group cannot leave the tree)
    run ! pgrep -g "$RACER_GROUP"
}

# proc_state PID: the state letter of /proc/PID/stat (R, S, T, Z...).
proc_state() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    echo "${stat%% *}"
}

# Waits up to 30 s for process $1 to be in state $2.
wait_state() {
    local i
    for ((i = 0; i < 3000; i++)); do
        [ "$(proc_state "$1")" = "$2" ] && return 0
        sleep 0.01
    done
    echo "process $1 is in state '$(proc_state "$1")', not $2, after 30 s" >&2
    return 1
}

# The SIGKILL's end is logged only when it reached a process. A second stop
# signal read together with the exit of the main child (a zombie the loop
# has yet to reap) kills nothing: nccl-init is stopped (SIGSTOP) while the
# main child exits, then gets the second SIGTERM and SIGCONT, and reads
# both at once. The status is the main child's, with no warning, and the
# line must agree.
@test "a second stop signal that reaches nothing living is not logged as the SIGKILL's end (subreaper)" {
    # shellcheck disable=SC2016 # $0 is the inner shell's
    "$NI" --sinks none --grace 60 -- python3 -c '
import os, signal, sys, time
def on_term(*a):
    open(sys.argv[1] + ".term", "w").close()
    while not os.path.exists(sys.argv[1] + ".go"):
        time.sleep(0.01)
    sys.exit(7)
signal.signal(signal.SIGTERM, on_term)
open(sys.argv[1], "w").close()
while True:
    time.sleep(1)' "$TMP/ready" >/dev/null 2>"$TMP/err" &
    local pid=$! child
    STOPPED_INIT=$pid
    wait_ready "$TMP/ready" "$pid"
    child=$(cat "/proc/$pid/task/$pid/children")
    child=${child%% *} # the file is "PID " with no newline
    kill -TERM "$pid"
    wait_ready "$TMP/ready.term" "$pid"
    kill -STOP "$pid"
    wait_state "$pid" T
    touch "$TMP/ready.go"
    wait_state "$child" Z
    kill -TERM "$pid"
    kill -CONT "$pid"
    status=0
    wait "$pid" || status=$?
    STOPPED_INIT=
    cat "$TMP/err"
    [ "$status" -eq 7 ]
    run ! grep -q "killed" "$TMP/err"
    run ! grep -q "ended by SIGKILL" "$TMP/err"
    grep -Eq "stop: ended by the main child's own exit after [0-9]+ ms" "$TMP/err"
}

@test "a cleanup window not shorter than the grace exits 2 with one line and starts nothing" {
    run --separate-stderr "$NI" --sinks none --grace 8 --cleanup 8 -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: --cleanup 8: the cleanup window must be shorter than the grace of 8000 ms, or 0 for no cleanup stage"
    run --separate-stderr "$NI" --sinks none --cleanup=9.5 -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: --cleanup 9.5: the cleanup window must be shorter than the grace of 8000 ms, or 0 for no cleanup stage"
    # wherever each came from: the grace from its variable, the window from its own
    run --separate-stderr env NCCL_INIT_CLEANUP=3 NCCL_INIT_GRACE=2.5 "$NI" --sinks none -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_CLEANUP=3: the cleanup window must be shorter than the grace of 2500 ms, or 0 for no cleanup stage"
    [ ! -e "$TMP/started" ]
    # 0 is allowed with any grace, 0 included
    run --separate-stderr "$NI" -q --sinks none --grace 0 --cleanup 0 -- true
    assert_success
    run --separate-stderr "$NI" -q --sinks none --grace 0 -- true
    assert_success
}

# Each bad value is one line naming where it came from, exit 2, nothing
# started: no digit at all, a sign, a unit, over a day, and a value above 0
# that would round to 0 ms (which would switch the stage off, or make the
# grace 0).
@test "a bad --grace, --cleanup, NCCL_INIT_GRACE or NCCL_INIT_CLEANUP names its origin, exit 2" {
    local v
    for v in . "" -1 soon 2s 86401 0.0004; do
        run --separate-stderr "$NI" --sinks none --cleanup "$v" -- touch "$TMP/started"
        assert_failure 2
        run --separate-stderr "$NI" --sinks none "--grace=$v" -- touch "$TMP/started"
        assert_failure 2
        [ -z "$v" ] && continue # an empty variable is an unset one
        run --separate-stderr env NCCL_INIT_CLEANUP="$v" "$NI" --sinks none -- touch "$TMP/started"
        assert_failure 2
        run --separate-stderr env NCCL_INIT_GRACE="$v" "$NI" --sinks none -- touch "$TMP/started"
        assert_failure 2
    done
    [ ! -e "$TMP/started" ]
    run --separate-stderr "$NI" --sinks none --cleanup . -- true
    assert_equal "$stderr" "nccl-init: error: --cleanup .: expected seconds, up to 86400"
    run --separate-stderr "$NI" --sinks none --grace soon -- true
    assert_equal "$stderr" "nccl-init: error: --grace soon: expected seconds, up to 86400"
    run --separate-stderr env NCCL_INIT_CLEANUP=-1 "$NI" --sinks none -- true
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_CLEANUP=-1: expected seconds, up to 86400"
    run --separate-stderr env NCCL_INIT_GRACE=2s "$NI" --sinks none -- true
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_GRACE=2s: expected seconds, up to 86400"
    run --separate-stderr "$NI" --sinks none --cleanup 0.0009 -- true
    assert_equal "$stderr" "nccl-init: error: --cleanup 0.0009: under 1 ms, which would be 0; give 0, or at least 0.001"
    run --separate-stderr env NCCL_INIT_GRACE=0.0001 "$NI" --sinks none -- true
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_GRACE=0.0001: under 1 ms, which would be 0; give 0, or at least 0.001"
    # what stays valid: a bare fraction, a trailing point, zeros, 1 ms
    run --separate-stderr "$NI" -q --sinks none --grace .5 --cleanup 0.000 -- true
    assert_success
    run --separate-stderr "$NI" -q --sinks none --grace 3. --cleanup 0.001 -- true
    assert_success
    run --separate-stderr "$NI" -q --sinks none --grace 0.0 -- true
    assert_success
}

# The stop's variables are run mode's: a verb run by docker exec in a
# container whose environment has a bad one still works; the option wins
# over its variable, which is then not read.
@test "verbs that run no command ignore NCCL_INIT_GRACE and NCCL_INIT_CLEANUP" {
    local bad=(env NCCL_INIT_GRACE=soon NCCL_INIT_CLEANUP=-1)
    run --separate-stderr "${bad[@]}" "$NI" check --profile-dir "$PROFILES" none
    assert_success
    run --separate-stderr "${bad[@]}" "$NI" detect --profile-dir "$PROFILES"
    assert_success
    run --separate-stderr "${bad[@]}" "$NI" version
    assert_success
    run --separate-stderr "${bad[@]}" "$NI" --help
    assert_success
    run --separate-stderr "$NI" verify --root "$TMP"
    local want=$stderr want_status=$status
    run --separate-stderr "${bad[@]}" "$NI" verify --root "$TMP"
    assert_equal "$status" "$want_status"
    assert_equal "$stderr" "$want"
    run --separate-stderr "${bad[@]}" "$NI" -q --sinks none --grace 1 --cleanup 0.5 -- true
    assert_success
}

@test "--cleanup is for run mode only" {
    run --separate-stderr "$NI" check --cleanup 1 x
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: option '--cleanup' does not apply to check"
}
