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
BASE = [NI, os.environ.get("NI_LOG", "-q"), "--sinks", "none"]
UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]


def start(mode, args, **kw):
    """Starts nccl-init; returns (Popen, pid of nccl-init in our namespace).
    Output goes nowhere unless asked for: a stray process left by a failed
    scenario must not hold the test runner's pipes open."""
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.DEVNULL)
    kw.setdefault("stderr", subprocess.DEVNULL)
    if mode == "pid1":
        p = subprocess.Popen(UNSHARE + BASE + args, **kw)
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
    if group(mode, tmp):
        fail("by default SIGUSR1 reached the grandchild: it is for the main child alone")
    os.unlink(os.path.join(tmp, "ready"))
    if not group(mode, tmp, "--signal-group"):
        fail("--signal-group: SIGUSR1 did not reach the grandchild in the child's group")
    print("ok: the main child alone gets the signal; with --signal-group its group")


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
    m = re.search(r"^.*the grace time of 200 ms is over: killed [0-9]+ process(es)? still running$",
                  err, re.M)
    if p.returncode != 99 or not m:
        fail("exit %d, stderr %r" % (p.returncode, err))
    print("ok: --kill-exit-code 99 and the warning: " + m.group(0))


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
    # Zombies whose parent is the init ($PPID of the main child): a
    # subreaper shares the machine, whose other zombies are not its own.
    count = ("i=0; while [ $i -lt 100 ]; do "
             "z=$(awk -v init=$PPID '/^State:/ { s = $2 } /^PPid:/ { if (s == \"Z\" && $2 == init) n++ } "
             "END { print n + 0 }' /proc/[0-9]*/status 2>/dev/null); "
             "[ \"$z\" = 0 ] && break; i=$((i+1)); sleep 0.05; done; echo zombies=$z")
    p, _ = start(mode, ["sh", "-c", "%s %s && %s" % (helper, n, count)],
                 stdout=subprocess.PIPE, text=True)
    out, _ = p.communicate(timeout=120)
    if p.returncode != 0 or out.strip() != "zombies=0":
        fail("%s orphans: %r, exit %d" % (n, out, p.returncode))
    print("ok: %s orphans reaped" % n)


# A child that writes down every signal it gets, one number a line, and
# exits 0 on SIGTERM, SIGINT or SIGQUIT when asked to.
LOGGER = """
import os, signal, sys, time
log = open(sys.argv[1], "a", buffering=1)
stops = [int(x) for x in sys.argv[3].split(",") if x]
def note(s, f):
    log.write("%d\\n" % s)
    if s in stops:
        sys.exit(0)
for s in list(range(1, 32)) + list(range(signal.SIGRTMIN, signal.SIGRTMAX + 1)):
    if s not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
        signal.signal(s, note)
open(sys.argv[2], "w").close()
while True:
    time.sleep(1)
"""


def logger(mode, tmp, opts, stops="15,2,3", **kw):
    """Starts nccl-init OPTS over LOGGER; returns (Popen, init pid, log path)."""
    log, ready = os.path.join(tmp, "log"), os.path.join(tmp, "ready")
    for f in (log, ready):
        if os.path.exists(f):
            os.unlink(f)
    p, pid = start(mode, list(opts) + [sys.executable, "-c", LOGGER, log, ready, stops], **kw)
    wait_for(ready)
    return p, pid, log


def seen(log):
    return [int(x) for x in open(log).read().split()]


def exact_stop(mode, tmp):
    # The stop signal reaches the main child once, as rewritten, and nothing
    # of the init's own making follows it: no second SIGTERM, no SIGCONT.
    cases = [([], 15), (["--signal-child"], 15), (["--rewrite", "15:3"], 3),
             (["--signal-child", "--rewrite", "15:3"], 3), (["--signal-group"], 15),
             (["--signal-group", "--rewrite", "TERM:QUIT"], 3)]
    for opts, want in cases:
        p, pid, log = logger(mode, tmp, opts)
        os.kill(pid, signal.SIGTERM)
        rc = p.wait(10)
        if seen(log) != [want] or rc != 0:
            fail("%s: SIGTERM to the init, the child saw %s (want [%d]), exit %d"
                 % (" ".join(opts) or "default", seen(log), want, rc))
    print("ok: the child saw exactly the stop signal, as rewritten, in %d setups" % len(cases))


FAULTS = [signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGSEGV,
          signal.SIGSYS, signal.SIGTRAP]


def faults(mode, tmp):
    # Fault signals sent with kill(2) are requests like any other: forwarded,
    # and the init lives on.
    p, pid, log = logger(mode, tmp, [])
    for s in FAULTS:
        os.kill(pid, s)
        time.sleep(0.02)
    time.sleep(0.2)
    if p.poll() is not None:
        fail("the init died of a fault signal sent with kill: exit %d" % p.returncode)
    os.kill(pid, signal.SIGTERM)
    rc = p.wait(10)
    want = [int(s) for s in FAULTS] + [15]
    if seen(log) != want or rc != 0:
        fail("sent %s then TERM; the child saw %s, exit %d" % (want[:-1], seen(log), rc))
    print("ok: ABRT BUS FPE ILL SEGV SYS TRAP forwarded, the init still running")


def no_countdown(mode, tmp):
    # QUIT (a thread dump), HUP, USR1/2, WINCH and real-time signals are
    # forwarded and start no stop: with a 0.2 s grace the child must still
    # run a second later. --rewrite QUIT:QUIT changes nothing.
    for opts in ([], ["--rewrite", "QUIT:QUIT"]):
        p, pid, log = logger(mode, tmp, ["--grace", "0.2"] + opts, stops="15")
        sent = [signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGWINCH,
                signal.SIGRTMIN, signal.SIGQUIT]
        for s in sent:
            os.kill(pid, s)
            time.sleep(0.02)
        time.sleep(1)
        if p.poll() is not None:
            fail("%s: the child was stopped after %s (exit %d)" % (opts, seen(log), p.returncode))
        os.kill(pid, signal.SIGTERM)
        rc = p.wait(10)
        if seen(log) != [int(s) for s in sent] + [15] or rc != 0:
            fail("%s: the child saw %s, exit %d" % (opts, seen(log), rc))
    print("ok: QUIT HUP USR1 USR2 WINCH RTMIN forwarded, no countdown")


def cpu_ticks(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])  # utime + stime


def sigpipe(mode, tmp):
    # Logging to a reader that went away raises SIGPIPE in the init itself.
    # It must not be forwarded (or logged, which raises it again): the loop
    # stays idle and a SIGTERM still stops the tree.
    p, pid, log = logger(mode, tmp, ["-vv"], stderr=subprocess.PIPE)  # -q -vv: debug
    p.stderr.close()
    os.kill(pid, signal.SIGUSR1)  # forwarded, and logged at debug
    time.sleep(0.1)
    t0 = cpu_ticks(pid)
    time.sleep(0.5)
    busy = cpu_ticks(pid) - t0
    if busy > 10:
        fail("the init used %d ticks of CPU in 0.5 s after a log write hit EPIPE" % busy)
    os.kill(pid, signal.SIGTERM)
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("SIGTERM was not handled after the SIGPIPE")
    if signal.SIGPIPE in seen(log) or seen(log) != [signal.SIGUSR1, 15] or rc != 0:
        fail("the child saw %s, exit %d" % (seen(log), rc))
    print("ok: %d ticks of CPU in 0.5 s, no SIGPIPE forwarded, exit %d" % (busy, rc))


def pids_with(token):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if token.encode() in open("/proc/%s/cmdline" % d, "rb").read():
                    out.append(int(d))
            except OSError:
                pass
    return out


def forking_stubborn(mode, tmp, trials):
    # A worker that ignores SIGTERM and keeps forking children that do the
    # same: the deadline's SIGKILL must be repeated until the tree is empty.
    for t in range(int(trials)):
        token = "nccl-init-forker-%d-%d" % (os.getpid(), t)
        forker = ("trap '' TERM; while :; do sh -c \"trap '' TERM; sleep 100\" %s & "
                  "sleep 0.002; done" % token)
        main = ("setsid sh -c \"$0\" %s </dev/null >/dev/null 2>&1 & sleep 0.3; exit 5" % token)
        p, _ = start(mode, ["--grace", "0.3", "sh", "-c", main, forker])
        try:
            rc = p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("trial %d: the init was still running 15 s after its main child exited" % t)
        time.sleep(0.2)
        left = pids_with(token)
        if rc != 5 or left:
            fail("trial %d: exit %d, %d processes left: %s" % (t, rc, len(left), left[:10]))
    print("ok: %s trials, the forking worker and all its children killed" % trials)


def proc_masked(mode, tmp):
    # As PID 1 with /proc masked (a tmpfs over it), the stop still reaches
    # everything: kill(-1) needs no /proc.
    ready = os.path.join(tmp, "ready")
    worker = "trap '' TERM; touch %s; while :; do sleep 0.05; done" % ready
    main = ("setsid sh -c \"$0\" </dev/null >/dev/null 2>&1 & "
            "while [ ! -e %s ]; do sleep 0.01; done; exit 4" % ready)
    inner = "mount -t tmpfs none /proc && exec \"$@\""
    args = UNSHARE + ["sh", "-c", inner, "sh"] + BASE + ["--grace", "0.3", "sh", "-c", main, worker]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        _, err = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("with /proc masked the stubborn worker was never killed")
    if p.returncode != 4 or "no /proc to count it" not in err:
        fail("exit %d, want 4; stderr %r" % (p.returncode, err))
    print("ok: /proc masked, the worker killed through kill(-1), exit 4")


def status_kb(pid, field):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def drained(pid):
    """True once the init has no signal pending."""
    for line in open("/proc/%d/status" % pid):
        if line.startswith(("ShdPnd:", "SigPnd:")) and int(line.split()[1], 16):
            return False
    return True


def signal_rss(mode, tmp, n):
    # Once the main child has exited, every signal is forwarded to what is
    # left by a walk over /proc. The walk allocates nothing: the init's RSS
    # stays flat over N real-time signals.
    ready = os.path.join(tmp, "ready")
    worker = ("import signal, time, sys\n"
              "for s in (signal.SIGTERM, signal.SIGRTMIN): signal.signal(s, signal.SIG_IGN)\n"
              "open(sys.argv[1], 'w').close()\n"
              "while True: time.sleep(1)\n")
    main = ("setsid \"$0\" -c \"$1\" \"$2\" </dev/null >/dev/null 2>&1 & "
            "while [ ! -e \"$2\" ]; do sleep 0.01; done; exit 0")
    p, pid = start(mode, ["--grace", "300", "sh", "-c", main, sys.executable, worker, ready])
    wait_for(ready)
    # Until the main child has gone, the signals would be for it.
    deadline = time.monotonic() + 10
    while True:
        kids = open("/proc/%d/task/%d/children" % (pid, pid)).read().split()
        try:
            # A child listed here may exit and be reaped before its cmdline
            # is read: the shell that is the main child does exactly that.
            alone = len(kids) == 1 and open("/proc/%s/cmdline" % kids[0], "rb").read(
            ).startswith(sys.executable.encode())
        except OSError:
            alone = False
        if alone:
            break
        if time.monotonic() > deadline:
            fail("the main child did not exit")
        time.sleep(0.01)

    def burst(k):
        for _ in range(k):
            os.kill(pid, signal.SIGRTMIN)
        deadline = time.monotonic() + 120
        while not drained(pid):
            if time.monotonic() > deadline:
                fail("the init did not take its signals in 120 s")
            time.sleep(0.01)

    burst(100)  # the first walks touch the buffers once
    before = status_kb(pid, "VmRSS")
    burst(int(n))
    after = status_kb(pid, "VmRSS")
    # Two stops, apart: a second SIGTERM sent while the first is still
    # pending would merge into it.
    os.kill(pid, signal.SIGTERM)
    burst(0)
    os.kill(pid, signal.SIGTERM)
    rc = p.wait(10)
    if after - before > 4 or rc != 0:
        fail("VmRSS %d kB before %s signals, %d kB after; exit %d" % (before, n, after, rc))
    print("ok: VmRSS %d kB before and %d kB after %s signals during the stop (exit %d)"
          % (before, after, n, rc))


def second_stop(mode, tmp):
    # A second stop signal kills at once, and the log says so, not that a
    # grace time ran out.
    p, pid, log = logger(mode, tmp, ["--grace", "120"], stops="", stderr=subprocess.PIPE,
                         text=True)
    os.kill(pid, signal.SIGTERM)
    # The second only once the child has logged the first: the init having
    # taken it (else the second would merge into it) is not enough on a
    # loaded machine, where the kill could come before the child's handler.
    deadline = time.monotonic() + 10
    while not drained(pid) or seen(log) != [15]:
        if time.monotonic() > deadline:
            fail("the child did not log the first SIGTERM: %s" % seen(log))
        time.sleep(0.01)
    t0 = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    _, err = p.communicate(timeout=10)
    took = time.monotonic() - t0
    if p.returncode != 128 + signal.SIGKILL or "a second stop signal: killed 1 process still running" \
            not in err or "grace time" in err or seen(log) != [15]:
        fail("exit %d after %.2f s, child saw %s, stderr %r" % (p.returncode, took, seen(log), err))
    warning = next(l for l in err.splitlines() if "a second stop signal: killed" in l)
    print("ok: killed %.0f ms after the second SIGTERM: %s" % (took * 1000, warning))


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
            "exact-stop": lambda: exact_stop(mode, tmp),
            "faults": lambda: faults(mode, tmp),
            "no-countdown": lambda: no_countdown(mode, tmp),
            "sigpipe": lambda: sigpipe(mode, tmp),
            "forking-stubborn": lambda: forking_stubborn(mode, tmp, *args),
            "proc-masked": lambda: proc_masked(mode, tmp),
            "signal-rss": lambda: signal_rss(mode, tmp, *args),
            "second-stop": lambda: second_stop(mode, tmp),
        }
        table[scenario]()


if __name__ == "__main__":
    main()
