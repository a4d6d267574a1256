#!/usr/bin/env bats
# The staged stop (supervise.c): the stop signal to the main child alone,
# the rest of the tree SIGTERMed when the main child exits or, at the latest,
# at the cleanup stage a window before the deadline, SIGKILL at the deadline.
# The servers' order is kept (helpers/server_models.py) and a naive tree,
# whose main process waits on a worker that stops only on SIGTERM, is
# cleaned up (helpers/naive_tree.py). Each as PID 1 of a new PID namespace
# and as a subreaper.

load helpers/common

setup() {
    TMP=$(mktemp -d)
    export NI
    if [[ "$BATS_TEST_DESCRIPTION" == *"(pid1)"* ]]; then
        unshare --pid --fork --mount-proc true 2>/dev/null || skip "no PID namespaces here"
    fi
}

teardown() {
    rm -rf "$TMP"
}

# Runs a Python helper of tests/helpers, which prints "ok: ..." on success.
helper() {
    run --separate-stderr timeout 300 python3 "$BATS_TEST_DIRNAME/helpers/$1" "${@:2}"
    echo "$output"
    echo "$stderr" >&2
}

# The naive tree: cleaned up 3 of 3, exit 0 (the main process's own status,
# not 137), the log naming the cleanup stage, the init gone more than a
# second before the deadline. The default window (2 s under --grace 12)
# SIGTERMs the tree at 10 s; without the stage it waits until 12 s and is
# SIGKILLed.
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
    helper naive_tree.py pid1 1 --grace 2 --init-arg=--cleanup=0
    assert_failure 1
    assert_output --partial "the worker never cleaned up (exit 137"
    assert_output --partial "stop: ended by SIGKILL at the deadline, 2"
    assert_output --partial "ms after the stop signal"
}

# The servers' order under a long drain: --grace 10 puts the cleanup stage at
# 8 s; the 5 s drain and the servers' own shutdown end well before it, and
# no engine, worker, scheduler or detokenizer may be signalled before its
# parent stops it.
models() { helper server_models.py "$@" --drain 5 --init-arg=--grace=10; }

@test "vLLM: a 5 s drain under --grace 10 keeps its whole order, 5 stops (pid1)" {
    models pid1 vllm 5
    assert_success
    assert_output --partial "ok: vllm pid1: drain kept 5/5"
}
@test "vLLM: a 5 s drain under --grace 10 keeps its whole order, 5 stops (subreaper)" {
    models subreaper vllm 5
    assert_success
    assert_output --partial "ok: vllm subreaper: drain kept 5/5"
}
@test "SGLang: a 5 s drain under --grace 10 keeps its whole order, 5 stops (pid1)" {
    models pid1 sglang 5
    assert_success
    assert_output --partial "ok: sglang pid1: drain kept 5/5"
}
@test "SGLang: a 5 s drain under --grace 10 keeps its whole order, 5 stops (subreaper)" {
    models subreaper sglang 5
    assert_success
    assert_output --partial "ok: sglang subreaper: drain kept 5/5"
}

# The check above can fail: a window that reaches into the drain (the stage
# at 3 s of a 5 s drain) SIGTERMs the engine and workers before the API
# server stops them, and the model says so.
@test "vLLM: a cleanup window that reaches into the drain breaks the order, and the model sees it (pid1)" {
    helper server_models.py pid1 vllm 1 --drain 5 --init-arg=--grace=10 --init-arg=--cleanup=7
    assert_failure 1
    assert_output --regexp "first failing stop \(#0\): (engine|worker[01]) got SIGTERM before (api's stop-engine|engine's stop-workers)"
}

# A shell stand-in for the naive tree, for the option's cheap checks: the
# main child waits, on SIGTERM, for a worker of its group that stops only on
# SIGTERM, then exits 5. Runs nccl-init with "$@" before the command, sends
# it SIGTERM once the tree is ready; sets status and stderr.
naive_sh() {
    local ready=$TMP/ready
    rm -f "$ready" "$TMP/err"
    # shellcheck disable=SC2016 # $0 and $w are the inner shell's
    "$NI" --sinks none "$@" -- sh -c \
        'sleep 100 & w=$!; trap "wait \$w; exit 5" TERM; touch "$0"; wait' "$ready" 2>"$TMP/err" &
    local pid=$!
    while [ ! -e "$ready" ]; do sleep 0.01; done
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    stderr=$(cat "$TMP/err")
    echo "$stderr"
}

# The stage's time from the log line, checked against [from, to) ms.
stage_between() {
    [[ "$stderr" =~ "stop: ended at the cleanup stage: the tree got SIGTERM "([0-9]+)" ms after the stop signal" ]]
    local ms=${BASH_REMATCH[1]}
    echo "cleanup stage at $ms ms"
    [ "$ms" -ge "$1" ] && [ "$ms" -lt "$2" ]
}

@test "the default window is a quarter of a short grace: --grace 2 SIGTERMs the tree at 1.5 s" {
    naive_sh --grace 2
    [ "$status" -eq 5 ]
    [[ "$stderr" == *", 500 ms before the deadline;"* ]]
    stage_between 1500 2000
}

@test "NCCL_INIT_CLEANUP sets the window; --cleanup wins over it" {
    NCCL_INIT_CLEANUP=1 naive_sh --grace 2
    [ "$status" -eq 5 ]
    [[ "$stderr" == *", 1000 ms before the deadline;"* ]]
    stage_between 1000 2000
    NCCL_INIT_CLEANUP=5 naive_sh --grace 2 --cleanup 1.5
    [ "$status" -eq 5 ]
    [[ "$stderr" == *", 1500 ms before the deadline;"* ]]
    stage_between 500 2000
}

@test "a stop that the main child's exit ends says so, and no cleanup stage comes" {
    # shellcheck disable=SC2016 # $0 is the inner shell's
    "$NI" --sinks none --grace 2 -- sh -c 'sleep 100 & touch "$0"; wait' "$TMP/r2" 2>"$TMP/err" &
    local pid=$!
    while [ ! -e "$TMP/r2" ]; do sleep 0.01; done
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    cat "$TMP/err"
    [ "$status" -eq 143 ]
    grep -Eq "stop: ended by the main child's own exit after [0-9]+ ms; the rest of the tree was empty at [0-9]+ ms" "$TMP/err"
    run ! grep -q "cleanup stage" "$TMP/err"
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
