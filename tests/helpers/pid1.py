"""Scenarios for nccl-init as PID 1 and as a subreaper, with the timing done
here rather than in shell.

usage: pid1.py MODE SCENARIO [ARGS...]
  MODE: pid1 (PID 1 of a new PID namespace, via unshare) or subreaper

Every scenario prints "ok ..." and exits 0, or prints what went wrong and
exits 1. NI is the nccl-init binary (environment variable).
"""
import os
import re
import pty
import signal
import subprocess
import sys
import tempfile
import time

NI = os.environ["NI"]
BASE = [NI, "-q", "--sinks", "none"]


def start(mode, args, **kw):
    """Starts nccl-init; returns (Popen, pid of nccl-init in our namespace).
    Output goes nowhere unless asked for: a stray process left by a failed
    scenario must not hold the test runner's pipes open."""
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.DEVNULL)
    kw.setdefault("stderr", subprocess.DEVNULL)
    if mode == "pid1":
        p = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
                             + BASE + args, **kw)
        children = "/proc/%d/task/%d/children" % (p.pid, p.pid)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                with open(children) as f:
                    kids = f.read().split()
            except OSError:
                kids = []
            if kids:
                return p, int(kids[0])
            if p.poll() is not None:
                return p, None  # it has run and finished already
        raise SystemExit("unshare started no child")
    p = subprocess.Popen(BASE + args, **kw)
    return p, p.pid


def wait_for(path, timeout=10):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for " + path)
        time.sleep(0.005)


def fail(msg):
    print(msg)
    sys.exit(1)


def exit_codes(mode):
    for code in range(256):
        p, _ = start(mode, ["sh", "-c", "exit %d" % code])
        if p.wait(10) != code:
            fail("exit %d came back as %d" % (code, p.returncode))
    skip = {signal.SIGKILL, signal.SIGSTOP, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU,
            signal.SIGCHLD, signal.SIGCONT, signal.SIGURG, signal.SIGWINCH}
    sigs = [s for s in range(1, 32) if s not in skip] + [signal.SIGKILL]
    for s in sigs:
        p, _ = start(mode, ["sh", "-c", "kill -%d $$" % s])
        want = 128 + s
        # unshare reports a killed child as 128+N too
        if p.wait(10) != want:
            fail("signal %d came back as %d, want %d" % (s, p.returncode, want))
    print("ok: exit codes 0..255 and %d fatal signals" % len(sigs))


def forwarding(mode, tmp):
    log = os.path.join(tmp, "log")
    ready = os.path.join(tmp, "ready")
    child = """
import os, signal, sys, time
log = open(sys.argv[1], "a", buffering=1)
def note(s, f):
    log.write("%d\\n" % s)
    if s in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        sys.exit(0)
for s in list(range(1, 32)) + list(range(signal.SIGRTMIN, signal.SIGRTMAX + 1)):
    if s not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD, signal.SIGSEGV, signal.SIGBUS,
                 signal.SIGILL, signal.SIGFPE, signal.SIGABRT, signal.SIGTRAP, signal.SIGSYS,
                 signal.SIGCONT):
        signal.signal(s, note)
open(sys.argv[2], "w").close()
while True:
    time.sleep(1)
"""
    want = [signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGWINCH,
            signal.SIGRTMIN, signal.SIGRTMIN + 5, signal.SIGRTMAX]
    results = []
    for stop in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        for f in (log, ready):
            if os.path.exists(f):
                os.unlink(f)
        p, pid = start(mode, [sys.executable, "-c", child, log, ready])
        wait_for(ready)
        for s in want:
            os.kill(pid, s)
            time.sleep(0.02)
        os.kill(pid, stop)
        rc = p.wait(10)
        got = [int(x) for x in open(log).read().split()]
        if got != [int(s) for s in want] + [int(stop)] or rc != 0:
            fail("sent %s then %d, child saw %s, exit %d" % ([int(s) for s in want], stop, got, rc))
        results.append(int(stop))
    print("ok: HUP USR1 USR2 WINCH RTMIN RTMIN+5 RTMAX and then TERM/INT/QUIT reached the child")


def running_init(pid):
    """True once pid runs nccl-init and has blocked its signals."""
    try:
        with open("/proc/%d/status" % pid) as f:
            status = f.read()
    except OSError:
        return True  # gone, or going: nothing more to wait for
    return status.startswith("Name:\tnccl-init") and "SigBlk:\t0000000000000000" not in status


def early_term(mode, reps):
    # As PID 1 the signal is sent the moment nccl-init runs with its signals
    # blocked (a few microseconds after exec): before that, unshare's child
    # is a PID 1 without a handler and the kernel drops the signal before
    # nccl-init exists. As a subreaper it is sent right after exec, before
    # nccl-init blocks anything: then nccl-init dies of it (-15) or forwards
    # it (143), and either way the signal is not lost.
    for i in range(int(reps)):
        t0 = time.monotonic()
        p, pid = start(mode, ["sleep", "30"])
        if mode == "pid1":
            while not running_init(pid):
                pass
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            fail("run %d: nccl-init was gone before the signal (exit %s)" % (i, p.poll()))
        sent = (time.monotonic() - t0) * 1000
        try:
            rc = p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("run %d: a SIGTERM sent %.2f ms after the start was lost" % (i, sent))
        if rc not in (128 + signal.SIGTERM, -signal.SIGTERM):
            fail("run %d: exit %d, want 143" % (i, rc))
    print("ok: %s early SIGTERMs, none lost" % reps)


def sig_status(pid="self"):
    out = {}
    for line in open("/proc/%s/status" % pid):
        k, _, v = line.partition(":")
        if k in ("SigBlk", "SigIgn"):
            out[k] = v.strip()
    return out


def sigmask(mode, tmp):
    # The launcher blocks and ignores a few signals (glibc's SIGRTMIN, 34,
    # is one that musl itself will not block) and execs nccl-init directly:
    # subprocess would reset some of them. The command must start with
    # exactly the launcher's SigBlk and SigIgn.
    out = os.path.join(tmp, "out")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2, signal.SIGRTMIN, signal.SIGTSTP})
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.write(w, repr(sig_status()).encode())
        os.close(w)
        fd = os.open(out, os.O_WRONLY | os.O_CREAT, 0o644)
        os.dup2(fd, 1)
        # grep reads its own status; a shell would not do (dash clears its mask)
        args = BASE + ["grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"]
        if mode == "pid1":
            args = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"] + args
        os.execvp(args[0], args)
    os.close(w)
    mine = eval(os.read(r, 4096).decode())
    os.waitpid(pid, 0)
    theirs = dict((l.split(":")[0], l.split(":")[1].strip()) for l in open(out).read().splitlines())
    if theirs != mine:
        fail("launcher %s, command %s" % (mine, theirs))
    print("ok: SigBlk %s SigIgn %s" % (mine["SigBlk"], mine["SigIgn"]))


def group(mode, tmp, *opts):
    got = os.path.join(tmp, "grandchild-got-usr1")
    ready = os.path.join(tmp, "ready")
    script = ("trap 'touch %s; exit 0' USR1; touch %s; while :; do sleep 0.05; done" % (got, ready))
    # The main child survives USR1 (a handler, which its children do not
    # inherit) and waits for the grandchild.
    main = ("trap 'true' USR1; sh -c \"$0\" & "
            "while kill -0 $! 2>/dev/null; do sleep 0.05; done")
    p, pid = start(mode, list(opts) + ["sh", "-c", main, script])
    wait_for(ready)
    os.kill(pid, signal.SIGUSR1)
    time.sleep(0.3)
    reached = os.path.exists(got)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass  # the tree finished on its own
    p.wait(10)
    return reached


def grandchild(mode, tmp):
    if not group(mode, tmp):
        fail("SIGUSR1 did not reach the grandchild in the child's group")
    os.unlink(os.path.join(tmp, "ready"))
    os.unlink(os.path.join(tmp, "grandchild-got-usr1"))
    if group(mode, tmp, "--signal-child"):
        fail("--signal-child: SIGUSR1 reached the grandchild")
    print("ok: the group gets the signal; with --signal-child only the child")


WORKER = ("trap 'sleep 0.5; echo done > %s; exit 0' TERM; touch %s; "
          "while :; do sleep 0.05; done")


def cleanup(mode, tmp, trigger):
    done = os.path.join(tmp, "done")
    ready = os.path.join(tmp, "ready")
    worker = WORKER % (done, ready)
    if trigger == "term":
        # The worker runs beside the main child, in its group.
        args = ["sh", "-c", "sh -c \"$0\" & wait", worker]
    else:
        # The main child starts the worker in a new session (a daemon) and
        # exits at once: the worker is an orphan the init adopts.
        args = ["sh", "-c", "setsid sh -c \"$0\" </dev/null >/dev/null 2>&1 & "
                "while [ ! -e %s ]; do sleep 0.01; done; exit 7" % ready, worker]
    t0 = time.monotonic()
    p, pid = start(mode, args)
    wait_for(ready)
    if trigger == "term":
        t0 = time.monotonic()
        os.kill(pid, signal.SIGTERM)
    rc = p.wait(15)
    took = time.monotonic() - t0
    if not os.path.exists(done):
        fail("the worker's 0.5 s cleanup was cut short (exit %d after %.2f s)" % (rc, took))
    want = 128 + signal.SIGTERM if trigger == "term" else 7
    if rc != want:
        fail("exit %d, want %d" % (rc, want))
    print("ok: cleanup finished, nccl-init exited %d after %.2f s" % (rc, took))


def stubborn(mode, tmp, grace):
    ready = os.path.join(tmp, "ready")
    gone = os.path.join(tmp, "main-exits")
    worker = "trap '' TERM; touch %s; while :; do sleep 0.05; done" % ready
    args = ["--grace", grace, "sh", "-c",
            "setsid sh -c \"$0\" </dev/null >/dev/null 2>&1 & "
            "while [ ! -e %s ]; do sleep 0.01; done; touch %s; exit 3" % (ready, gone), worker]
    p, pid = start(mode, args, stderr=subprocess.PIPE, text=True)
    wait_for(gone)
    t0 = time.monotonic()
    _, err = p.communicate(timeout=float(grace) + 10)
    took = time.monotonic() - t0
    if p.returncode != 3:
        fail("exit %d, want the main child's 3" % p.returncode)
    if abs(took - float(grace)) > 0.1:
        fail("killed %.3f s after the main child exited, want %s s +- 0.1" % (took, grace))
    print("ok: killed after %.3f s; exit %d" % (took, p.returncode))


def kill_exit_code(mode, tmp):
    ready = os.path.join(tmp, "ready")
    worker = "trap '' TERM; touch %s; while :; do sleep 0.05; done" % ready
    p, pid = start(mode, ["--grace", "0.2", "--kill-exit-code", "99", "sh", "-c",
                          "setsid sh -c \"$0\" </dev/null >/dev/null 2>&1 & "
                          "while [ ! -e %s ]; do sleep 0.01; done; exit 0" % ready, worker],
                   stderr=subprocess.PIPE, text=True)
    _, err = p.communicate(timeout=10)
    if p.returncode != 99 or not re.search(r"grace time of 200 ms over: killed [0-9]+ process(es)? still running", err):
        fail("exit %d, stderr %r" % (p.returncode, err))
    print("ok: --kill-exit-code 99 and one log line: " + err.strip().splitlines()[-1])


def prompt(mode, tmp):
    ready = os.path.join(tmp, "ready")
    p, pid = start(mode, ["sh", "-c", "sleep 100 & sleep 100 & touch %s; wait" % ready])
    wait_for(ready)
    t0 = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    rc = p.wait(10)
    took = (time.monotonic() - t0) * 1000
    if took > 50:
        fail("an idle tree took %.1f ms to stop" % took)
    print("ok: stopped in %.1f ms (exit %d)" % (took, rc))


def ctrl_c(mode):
    pid, fd = pty.fork()
    if pid == 0:
        args = BASE + ["sleep", "30"]
        if mode == "pid1":
            args = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"] + args
        os.execvp(args[0], args)
    # Wait until sleep leads the terminal's foreground group.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            pg = os.tcgetpgrp(fd)
            if pg != pid and open("/proc/%d/comm" % pg).read().strip() == "sleep":
                break
        except OSError:
            pass
        time.sleep(0.01)
    else:
        fail("sleep never became the terminal's foreground group")
    os.write(fd, b"\x03")
    _, status = os.waitpid(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    if rc != 130:
        fail("Ctrl-C gave %d, want 130" % rc)
    print("ok: Ctrl-C gave 130")


def orphans(mode, n):
    helper = os.environ["ORPHANS"]
    count = ("i=0; while [ $i -lt 100 ]; do "
             "z=$(grep -l '^State:.Z' /proc/[0-9]*/status 2>/dev/null | wc -l); "
             "[ \"$z\" = 0 ] && break; i=$((i+1)); sleep 0.05; done; echo zombies=$z")
    p, _ = start(mode, ["sh", "-c", "%s %s && %s" % (helper, n, count)],
                 stdout=subprocess.PIPE, text=True)
    out, _ = p.communicate(timeout=120)
    if p.returncode != 0 or out.strip() != "zombies=0":
        fail("%s orphans: %r, exit %d" % (n, out, p.returncode))
    print("ok: %s orphans reaped" % n)


def main():
    mode, scenario, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        table = {
            "exit-codes": lambda: exit_codes(mode),
            "forwarding": lambda: forwarding(mode, tmp),
            "early-term": lambda: early_term(mode, *args),
            "sigmask": lambda: sigmask(mode, tmp),
            "grandchild": lambda: grandchild(mode, tmp),
            "cleanup-on-term": lambda: cleanup(mode, tmp, "term"),
            "cleanup-on-exit": lambda: cleanup(mode, tmp, "exit"),
            "stubborn": lambda: stubborn(mode, tmp, *args),
            "kill-exit-code": lambda: kill_exit_code(mode, tmp),
            "prompt": lambda: prompt(mode, tmp),
            "ctrl-c": lambda: ctrl_c(mode),
            "orphans": lambda: orphans(mode, *args),
        }
        table[scenario]()


if __name__ == "__main__":
    main()
