"""A naive Python server tree, stopped under an init: does its worker get the
SIGTERM it needs, with time to clean up, before the SIGKILL deadline?

usage: naive_tree.py MODE N [--grace S] [--cleanup S] [--cleanup-work S] [--init-arg ARG]...
       naive_tree.py serve DIR CLEANUP_WORK
  MODE   pid1 (the init is PID 1 of a new PID namespace, via unshare) or
         subreaper (the init runs directly)
  N      stops, all at once
  --grace         the init's --grace (default 12 s)
  --cleanup       the init's --cleanup (default 5 s: the stage at 7 s, and the
                  stop's end nearly 5 s before the deadline, which a loaded
                  machine does not eat; 0: no stage)
  --cleanup-work  how long the worker's cleanup takes after its SIGTERM (0.2 s)
  --init-arg      one more nccl-init option (repeatable), e.g. --init-arg=-v
The init is $NI --sinks none --grace S --cleanup S [--init-arg...] --, logging
at info.

The tree is the one nothing but a staged stop cleans up:
- the main process handles SIGTERM by exiting (sys.exit(0), as a server
  built on an event loop does). Leaving the interpreter runs
  multiprocessing's exit handler (multiprocessing/util.py, _exit_function),
  which terminates daemonic children but *joins* the others, without a
  timeout;
- its worker is a non-daemon multiprocessing "spawn" child (a new
  interpreter, in the main process's group) that serves until SIGTERM,
  ignores SIGINT, and on SIGTERM cleans up for CLEANUP_WORK seconds, then
  writes DIR/cleaned and exits 0.
So the main process waits on its worker, and the worker waits for a SIGTERM
that nobody in the tree sends. Under an init that signals the rest of the
tree only once the main process has exited, both wait until the SIGKILL
deadline: the cleanup never happens and the status is 137.

Prints "ok: ..." and exits 0 when every stop cleaned up, exited 0 (the main
process's own status), with the main process stopped exactly once, the
init's log naming the cleanup stage, and the init gone at least MARGIN (2 s)
before the deadline; otherwise the counts and the first failing stop, exit 1.
"""
import multiprocessing
import os
import select
import signal
import sys
import time

UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
GRACE = 12.0
CLEANUP = 5.0
CLEANUP_WORK = 0.2
LIFETIME = 120      # no process of the tree outlives this, whatever happens
READY_TIMEOUT = 30
MARGIN = 2.0        # the init must be gone this long before the deadline


def note(path, text):
    """One line, one write(2), O_APPEND: the two processes' lines interleave whole."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, ("%s %.6f\n" % (text, time.monotonic())).encode())
    os.close(fd)


def worker(work, cleanup_work):
    log = os.path.join(work, "log")
    r, w = os.pipe()
    os.set_blocking(w, False)
    signal.set_wakeup_fd(w)  # a SIGTERM between two checks still wakes select

    def on_term(signum, frame):
        note(log, "worker SIGTERM")
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # stops on SIGTERM only
    note(log, "worker ready")
    if not select.select([r], [], [], LIFETIME)[0]:
        sys.exit(1)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one cleanup, whatever comes after
    time.sleep(cleanup_work)  # flushing, closing, unlinking: the cleanup
    with open(os.path.join(work, "cleaned"), "w") as f:
        f.write("cleaned\n")
    note(log, "worker cleaned")


def serve(work, cleanup_work):
    log = os.path.join(work, "log")

    def on_term(signum, frame):
        note(log, "main SIGTERM")
        sys.exit(0)
    signal.signal(signal.SIGTERM, on_term)
    p = multiprocessing.get_context("spawn").Process(
        target=worker, args=(work, cleanup_work), name="worker", daemon=False)
    p.start()
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline and "worker ready" not in read(log):
        time.sleep(0.01)
    note(log, "main ready")
    time.sleep(LIFETIME)  # the server; SIGTERM leaves through sys.exit, then the join


# --- the driver -------------------------------------------------------------

def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            kids = []
        out += kids
        todo += kids
    return out


def init_pid(p, mode):
    if mode != "pid1":
        return p.pid
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and p.poll() is None:
        kids = descendants(p.pid)
        if kids:
            return kids[0]
        time.sleep(0.002)
    return None


def events(text):
    """{event: its first monotonic time} from the tree's log."""
    out = {}
    for line in text.splitlines():
        parts = line.rsplit(" ", 1)
        if len(parts) == 2:
            out.setdefault(parts[0], float(parts[1]))
    return out


def stop_once(init, mode, grace, cleanup_work, work):
    """Starts the tree under the init, waits until both processes are ready,
    sends SIGTERM to the init; returns a dict with the verdict and timings."""
    import subprocess
    log, err_path = os.path.join(work, "log"), os.path.join(work, "stderr")
    argv = init + [sys.executable, "-I", "-S", os.path.abspath(__file__), "serve", work,
                   str(cleanup_work)]
    if mode == "pid1":
        argv = UNSHARE + argv
    with open(err_path, "w") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    res = dict(ok=False, rc=None, secs=None, term_at=None)
    try:
        ipid = init_pid(p, mode)
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline and p.poll() is None and "main ready" not in read(log):
            time.sleep(0.02)
        if ipid is None or "main ready" not in read(log):
            res["reason"] = "the tree was not ready (init exit %s)" % p.poll()
            return res
        t0 = time.monotonic()
        os.kill(ipid, signal.SIGTERM)
        try:
            res["rc"] = p.wait(grace + 30)
        except subprocess.TimeoutExpired:
            res["reason"] = "the init did not exit within %.0f s of SIGTERM" % (grace + 30)
            return res
        res["secs"] = time.monotonic() - t0
        ev = events(read(log))
        if "worker SIGTERM" in ev:
            res["term_at"] = ev["worker SIGTERM"] - t0
        res["ok"], res["reason"] = judge(res, ev, read(log), read(err_path), grace, work)
        return res
    finally:
        if p.poll() is None:
            for q in [p.pid] + descendants(p.pid):
                try:
                    os.kill(q, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            p.wait()
        res["log"], res["stderr"] = read(log), read(err_path)


def judge(res, ev, log, stderr, grace, work):
    if not os.path.exists(os.path.join(work, "cleaned")):
        return False, "the worker never cleaned up (exit %s after %.2f s)" % (res["rc"], res["secs"])
    if res["rc"] != 0:
        return False, "exit %s, want the main process's own 0" % res["rc"]
    if log.count("main SIGTERM") != 1:
        return False, "the main process got SIGTERM %d times, want once" % log.count("main SIGTERM")
    if "stop: ended at the cleanup stage" not in stderr:
        return False, "the init's log does not say that the cleanup stage ended the stop"
    if res["secs"] > grace - MARGIN:
        return False, "the init exited %.2f s after SIGTERM, want under %.2f s (the deadline %.0f s)" % (
            res["secs"], grace - MARGIN, grace)
    return True, "cleaned up"


def main():
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2], float(sys.argv[3]))
        return
    import argparse
    import concurrent.futures
    import statistics
    import tempfile
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("pid1", "subreaper"))
    ap.add_argument("n", type=int)
    ap.add_argument("--grace", type=float, default=GRACE)
    ap.add_argument("--cleanup", type=float, default=CLEANUP)
    ap.add_argument("--cleanup-work", type=float, default=CLEANUP_WORK)
    ap.add_argument("--init-arg", action="append", default=[])
    a = ap.parse_args()
    init = [os.environ["NI"], "--sinks", "none", "--grace", str(a.grace), "--cleanup",
            str(a.cleanup), *a.init_arg, "--"]
    with tempfile.TemporaryDirectory(prefix="naive-tree-") as tmp:
        def one(i):
            work = os.path.join(tmp, str(i))
            os.mkdir(work)
            return stop_once(init, a.mode, a.grace, a.cleanup_work, work)
        with concurrent.futures.ThreadPoolExecutor(a.n) as pool:
            results = list(pool.map(one, range(a.n)))
    good = sum(r["ok"] for r in results)
    secs = [r["secs"] for r in results if r["secs"] is not None]
    terms = [r["term_at"] for r in results if r["term_at"] is not None]
    line = ("naive %s: cleaned up in time %d/%d, exit %s, worker SIGTERM at %s s, init gone at %s s "
            "(median, max), grace %.1f s, cleanup window %.1f s") % (
        a.mode, good, a.n, "/".join(sorted({str(r["rc"]) for r in results})),
        "%.2f, %.2f" % (statistics.median(terms), max(terms)) if terms else "never",
        "%.2f, %.2f" % (statistics.median(secs), max(secs)) if secs else "-", a.grace, a.cleanup)
    if good == a.n:
        print("ok: " + line)
        return
    print("FAIL: " + line)
    i, bad = next((i, r) for i, r in enumerate(results) if not r["ok"])
    print("first failing stop (#%d): %s" % (i, bad["reason"]))
    print("its log:\n" + bad["log"].rstrip())
    if bad["stderr"].strip():
        print("the init's output:\n" + bad["stderr"].rstrip())
    sys.exit(1)


if __name__ == "__main__":
    main()
