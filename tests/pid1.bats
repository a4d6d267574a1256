#!/usr/bin/env bats
# PID 1 done right: each scenario runs twice, as PID 1 of a new PID
# namespace and as a subreaper (not PID 1). The scenarios and their timing
# live in helpers/pid1.py.

load helpers/common

setup() {
    export NI ORPHANS="$REPO/build/test/orphans"
    if [[ "$BATS_TEST_DESCRIPTION" == *"(pid1)"* ]]; then
        unshare --pid --fork --mount-proc true 2>/dev/null || skip "no PID namespaces here"
    fi
}

# Runs a Python helper of tests/helpers, which prints "ok: ..." on success.
helper() {
    run --separate-stderr timeout 300 python3 "$BATS_TEST_DIRNAME/helpers/$1" "${@:2}"
    echo "$output"
    echo "$stderr" >&2
    assert_success
    assert_output --partial "ok: "
}

scenario() { helper pid1.py "$@"; }

@test "exit codes 0..255 and 128+N pass through (pid1)" { scenario pid1 exit-codes; }
@test "exit codes 0..255 and 128+N pass through (subreaper)" { scenario subreaper exit-codes; }
@test "TERM INT QUIT HUP USR1 USR2 WINCH and real-time signals reach the child (pid1)" { scenario pid1 forwarding; }
@test "TERM INT QUIT HUP USR1 USR2 WINCH and real-time signals reach the child (subreaper)" { scenario subreaper forwarding; }
@test "a SIGTERM right after the start is never lost, 100 times (pid1)" { scenario pid1 early-term 100; }
@test "a SIGTERM right after the start is never lost, 100 times (subreaper)" { scenario subreaper early-term 100; }
@test "the command's SigBlk and SigIgn equal the launcher's (pid1)" { scenario pid1 sigmask; }
@test "the command's SigBlk and SigIgn equal the launcher's (subreaper)" { scenario subreaper sigmask; }
@test "signals go to the main child alone; --signal-group to its group (pid1)" { scenario pid1 grandchild; }
@test "signals go to the main child alone; --signal-group to its group (subreaper)" { scenario subreaper grandchild; }
@test "a worker with 0.5 s of cleanup finishes when nccl-init gets SIGTERM (pid1)" { scenario pid1 cleanup-on-term; }
@test "a worker with 0.5 s of cleanup finishes when nccl-init gets SIGTERM (subreaper)" { scenario subreaper cleanup-on-term; }
@test "a worker with 0.5 s of cleanup finishes when the main child exits first (pid1)" { scenario pid1 cleanup-on-exit; }
@test "a worker with 0.5 s of cleanup finishes when the main child exits first (subreaper)" { scenario subreaper cleanup-on-exit; }
@test "a worker that ignores SIGTERM is killed at the grace deadline (pid1)" { scenario pid1 stubborn 1; }
@test "a worker that ignores SIGTERM is killed at the grace deadline (subreaper)" { scenario subreaper stubborn 1; }
@test "--kill-exit-code and the log line when stragglers were killed (pid1)" { scenario pid1 kill-exit-code; }
@test "--kill-exit-code and the log line when stragglers were killed (subreaper)" { scenario subreaper kill-exit-code; }
@test "a tree that exits promptly stops nccl-init in under 50 ms (pid1)" { scenario pid1 prompt; }
@test "a tree that exits promptly stops nccl-init in under 50 ms (subreaper)" { scenario subreaper prompt; }
@test "Ctrl-C under a pty gives 130 (pid1)" { scenario pid1 ctrl-c; }
@test "Ctrl-C under a pty gives 130 (subreaper)" { scenario subreaper ctrl-c; }
@test "an orphan storm of 1 leaves no zombie (pid1)" { scenario pid1 orphans 1; }
@test "an orphan storm of 200 leaves no zombie (pid1)" { scenario pid1 orphans 200; }
@test "an orphan storm of 10000 leaves no zombie (pid1)" { scenario pid1 orphans 10000; }
@test "an orphan storm of 1 leaves no zombie (subreaper)" { scenario subreaper orphans 1; }
@test "an orphan storm of 200 leaves no zombie (subreaper)" { scenario subreaper orphans 200; }
@test "an orphan storm of 10000 leaves no zombie (subreaper)" { scenario subreaper orphans 10000; }

# The stop in the servers' own order: models of vLLM's and SGLang's process
# trees and shutdown, written from their sources (helpers/server_models.py).
models() { helper server_models.py "$@"; }

@test "vLLM: the API server drains before EngineCore and workers get SIGTERM, 100 stops (pid1)" { models pid1 vllm 100; }
@test "vLLM: the API server drains before EngineCore and workers get SIGTERM, 100 stops (subreaper)" { models subreaper vllm 100; }
@test "SGLang: the main process drains before schedulers and detokenizer are touched, 100 stops (pid1)" { models pid1 sglang 100; }
@test "SGLang: the main process drains before schedulers and detokenizer are touched, 100 stops (subreaper)" { models subreaper sglang 100; }

# Regressions from the tini and dumb-init suites and the adversarial review
@test "the stop signal reaches the main child once, as rewritten, nothing after it (pid1)" { scenario pid1 exact-stop; }
@test "the stop signal reaches the main child once, as rewritten, nothing after it (subreaper)" { scenario subreaper exact-stop; }
@test "fault signals sent with kill are forwarded; the init lives (pid1)" { scenario pid1 faults; }
@test "fault signals sent with kill are forwarded; the init lives (subreaper)" { scenario subreaper faults; }
@test "QUIT HUP USR1 USR2 WINCH RTMIN start no countdown, QUIT:QUIT neither (pid1)" { scenario pid1 no-countdown; }
@test "QUIT HUP USR1 USR2 WINCH RTMIN start no countdown, QUIT:QUIT neither (subreaper)" { scenario subreaper no-countdown; }
@test "a SIGPIPE the init raised itself is not forwarded and does not loop (pid1)" { scenario pid1 sigpipe; }
@test "a SIGPIPE the init raised itself is not forwarded and does not loop (subreaper)" { scenario subreaper sigpipe; }
@test "a worker that ignores SIGTERM and keeps forking is killed to the last (pid1)" { scenario pid1 forking-stubborn 3; }
@test "a worker that ignores SIGTERM and keeps forking is killed to the last (subreaper)" { scenario subreaper forking-stubborn 3; }
@test "with /proc masked the deadline still kills everything (pid1)" { scenario pid1 proc-masked; }
@test "RSS stays flat over 10000 signals once the main child has exited (pid1)" { scenario pid1 signal-rss 10000; }
@test "RSS stays flat over 1000 signals once the main child has exited (subreaper)" { scenario subreaper signal-rss 1000; }
@test "a second stop signal kills at once and the log says so (pid1)" { scenario pid1 second-stop; }
@test "a second stop signal kills at once and the log says so (subreaper)" { scenario subreaper second-stop; }
