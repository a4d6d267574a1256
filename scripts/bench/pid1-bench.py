"""pid1-bench: the measurements behind scripts/bench-pid1.sh.

nccl-init against three anchors (Debian's tini-static, dumb-init and
catatonit), each measurement in one run with the inits interleaved: every
round runs each init once, in an order that rotates from round to round and
flips direction every K rounds (as scripts/bench/spawn-timer.c does), so a
slow phase of a shared machine hits all of them alike.

  1. size, and static or dynamic (file)
  2. RSS of the init itself: VmHWM of the init (PID 1 of a new PID
     namespace) while its child (cat, on a pipe) waits, read just before
     the child is let go
  3. start-up overhead over a static `true` (spawn-timer, not PID 1)
  4. an orphan storm as PID 1: the time until N orphans are reaped, and the
     zombies left (pid1-reap.c)
  5. SIGTERM to exit for an idle tree as PID 1
  6. a worker needing 0.5 s of cleanup after SIGTERM, as PID 1: (a) the init
     gets SIGTERM, (b) the main child exits first, the worker in a session
     of its own; "finished" when its file exists after the init exited
  7. ordered drain, as PID 1: the vLLM and SGLang process trees of
     tests/helpers/server_models.py stopped with SIGTERM to the init; kept
     when the server drained and no engine, worker, scheduler or
     detokenizer got a stop signal before its own parent stopped it

nccl-init always runs with --sinks none: it writes no system file.
Everything written goes under --work. Prints the details, a side-by-side
table and a markdown table: it reports, it does not judge.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# Section 7 stops the test suite's process-tree models (tests/helpers/server_models.py),
# imported without leaving a __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "helpers"))
import server_models

UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
NAMES = ["nccl-init", "tini-static", "dumb-init", "catatonit"]


def out(s=""):
    print(s, flush=True)


def order(r, items):
    """Round r's order: the start rotates, the direction flips every K rounds."""
    k = len(items)
    first, d = r % k, (-1 if (r // k) % 2 else 1)
    return [items[(first + d * j) % k] for j in range(k)]


def ms(ns):
    return ns / 1e6


def fmt_ms(v, nd=2):
    return "-" if v is None else "%.*f" % (nd, v)


# --- process helpers --------------------------------------------------------

def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def init_pid(p, timeout=5.0):
    """The init under unshare: the unshare process's one child."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = children(p.pid)
        if kids:
            return kids[0]
        if p.poll() is not None:
            return None
        time.sleep(0.0005)
    return None


def status_kb(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def exe_of(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


def wait_file(path, p, timeout=10.0, step=0.001):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if p.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True


def finish(p, timeout=15.0):
    """Waits for p; kills it (and so, through --kill-child, the tree) if hung."""
    try:
        return p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


# --- the measurements -------------------------------------------------------

class Bench:
    def __init__(self, a):
        self.a = a
        ni = [a.nccl_init, "-q", "--sinks", "none", "--"]
        # sub: not PID 1 (start-up); pid1: PID 1 of a new namespace. The
        # anchors forward to the child's process group where they can
        # (tini -g, catatonit -g; dumb-init does by default), so that sections
        # 4-6 see every init reach the whole tree; nccl-init runs with its
        # default, the main child first and the rest once it has exited.
        self.cmd = {
            "nccl-init": {"sub": ni, "pid1": ni},
            "tini-static": {"sub": [a.tini, "-s", "--"], "pid1": [a.tini, "-g", "--"]},
            "dumb-init": {"sub": [a.dumb_init], "pid1": [a.dumb_init]},
            "catatonit": {"sub": [a.catatonit, "--"], "pid1": [a.catatonit, "-g", "--"]},
        }
        self.path = {"nccl-init": a.nccl_init, "tini-static": a.tini,
                     "dumb-init": a.dumb_init, "catatonit": a.catatonit}
        self.names = [n for n in NAMES if os.access(self.path[n], os.X_OK)]
        self.res = {n: {} for n in NAMES}
        self.pidns = subprocess.run(UNSHARE + ["true"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL).returncode == 0
        self.tmp = tempfile.mkdtemp(prefix="pid1-", dir=a.work)

    def scratch(self):
        d = tempfile.mkdtemp(dir=self.tmp)
        return d

    def pid1(self, name, argv, **kw):
        kw.setdefault("stdin", subprocess.DEVNULL)
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        return subprocess.Popen(UNSHARE + self.cmd[name]["pid1"] + argv, **kw)

    # 1 --------------------------------------------------------------------
    def sizes(self):
        out("== 1. binaries ==")
        for n in NAMES:
            path = self.path[n]
            if not os.path.exists(path):
                self.res[n]["size"] = None
                out("%-12s %s: not installed" % (n, path))
                continue
            desc = subprocess.run(["file", "-b", "-L", path], capture_output=True,
                                  text=True).stdout.strip()
            link = ("static-pie" if "static-pie linked" in desc else
                    "static" if "statically linked" in desc else
                    "dynamic" if "dynamically linked" in desc else "?")
            libs = []
            if link == "dynamic":
                ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
                libs = [l.split()[0] for l in ldd.splitlines()
                        if "=>" in l and "linux-vdso" not in l]
            self.res[n].update(size=os.path.getsize(path), link=link, libs=libs)
            out("%-12s %s: %d bytes; %s" % (n, path, os.path.getsize(path), desc))
            if libs:
                out("%-12s   needs %s at run time (not in the size)" % ("", ", ".join(libs)))
        out()

    # 2 --------------------------------------------------------------------
    def rss(self):
        rounds = self.a.rss_rounds
        out("== 2. the init's own memory: VmHWM as PID 1 while its child (cat) waits, "
            "%d interleaved rounds ==" % rounds)
        cat = os.path.realpath(shutil.which("cat"))
        got = {n: [] for n in self.names}
        rsss = {n: [] for n in self.names}
        for r in range(rounds):
            for n in order(r, self.names):
                p = self.pid1(n, [cat], stdin=subprocess.PIPE)
                try:
                    ipid = init_pid(p)
                    child = None
                    deadline = time.monotonic() + 5
                    while ipid and time.monotonic() < deadline:
                        kids = children(ipid)
                        if kids and exe_of(kids[0]) == cat:
                            child = kids[0]
                            break
                        time.sleep(0.001)
                    if child:
                        time.sleep(0.02)  # let the init settle into its wait
                        hwm, rss = status_kb(ipid, "VmHWM"), status_kb(ipid, "VmRSS")
                        if hwm is not None and children(ipid) == [child]:
                            got[n].append(hwm)
                            rsss[n].append(rss)
                finally:
                    p.stdin.close()  # cat exits, then the init
                    finish(p)
        for n in self.names:
            if got[n]:
                self.res[n]["rss"] = max(got[n])
                out("%-12s VmHWM %d kB (the most of %d rounds; range %d-%d kB; VmRSS %d-%d kB)" %
                    (n, max(got[n]), len(got[n]), min(got[n]), max(got[n]), min(rsss[n]),
                     max(rsss[n])))
            else:
                out("%-12s no reading" % n)
        out("(file-backed pages count: for a small static binary all of its text, as the kernel "
            "maps the cached pages")
        out(" around each fault; the stack's share varies by a page or two with the environment "
            "and the stack's random offset)")
        out()

    # 3 --------------------------------------------------------------------
    def startup(self):
        a = self.a
        out("== 3. start-up overhead: spawn to reap of `INIT -- true-static`, not PID 1, "
            "%d interleaved rounds (+%d warm-up) ==" % (a.rounds, a.warmup))
        groups = [("true-static", [a.true_static])]
        for n in self.names:
            groups.append((n, self.cmd[n]["sub"] + [a.true_static]))
        argv = [a.timer, str(a.rounds), str(a.warmup)]
        for label, cmd in groups:
            argv += ["::", label] + cmd
            out("  %-12s %s" % (label + ":", " ".join(cmd)))
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            out("spawn-timer failed (%d): %s" % (r.returncode, r.stderr.strip()))
            out()
            return
        stats = {}
        for line in r.stdout.splitlines():
            f = line.split()
            stats[f[0]] = [int(x) for x in f[2:]]  # min median p90 p99 mean
        base = stats["true-static"][1]
        out()
        out("%-12s %9s %9s %9s %9s %12s" % ("command", "min µs", "median µs", "p90 µs",
                                             "p99 µs", "overhead µs"))
        for label, _ in groups:
            mn, med, p90, p99, _mean = stats[label]
            ov = med - base
            if label != "true-static":
                self.res[label]["startup"] = ov / 1000
            out("%-12s %9.1f %9.1f %9.1f %9.1f %12s" % (
                label, mn / 1e3, med / 1e3, p90 / 1e3, p99 / 1e3,
                "(anchor)" if label == "true-static" else "%+.1f" % (ov / 1e3)))
        out("(overhead = median(INIT -- true-static) - median(true-static))")
        out()

    # 4 --------------------------------------------------------------------
    def orphans(self):
        a = self.a
        out("== 4. orphan storm as PID 1: %d orphans, then /proc polled for zombies "
            "(timeout %d s), %d interleaved rounds ==" % (a.orphans, a.orphan_timeout,
                                                         a.orphan_rounds))
        runs = {n: [] for n in self.names}
        for r in range(a.orphan_rounds):
            for n in order(r, self.names):
                p = self.pid1(n, [a.reap, a.orphans_bin, str(a.orphans),
                                  str(a.orphan_timeout * 1000)], stdout=subprocess.PIPE,
                              text=True)
                t0 = time.monotonic()
                try:
                    o, _ = p.communicate(timeout=a.orphan_timeout + 60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    o, _ = p.communicate()
                wall = time.monotonic() - t0
                f = o.split()
                if len(f) == 6:
                    storm, tail, total, left, scans, cpu = (int(x) for x in f)
                    runs[n].append(dict(total=ms(total), tail=ms(tail), left=left,
                                        cpu=ms(cpu) if cpu >= 0 else None,
                                        wall=wall * 1000, rc=p.returncode))
                else:
                    runs[n].append(dict(total=None, tail=None, left=None, cpu=None,
                                        wall=wall * 1000, rc=p.returncode))
        out("%-12s %14s %10s %14s %14s %8s  %s" % ("init", "reaped in ms", "tail ms",
                                                   "init CPU ms", "init exit ms", "zombies",
                                                   "exit"))
        for n in self.names:
            v = runs[n]
            tot = [x["total"] for x in v if x["total"] is not None]
            cpu = [x["cpu"] for x in v if x["cpu"] is not None]
            left = [x["left"] for x in v]
            ok = all(x is not None for x in left)
            self.res[n]["orphans"] = dict(
                total=statistics.median(tot) if tot else None,
                cpu=statistics.median(cpu) if cpu else None,
                left=max(left) if ok else None, n=len(v))
            out("%-12s %14s %10s %14s %14s %8s  %s" % (
                n, "/".join(fmt_ms(x["total"], 0) for x in v),
                "/".join(fmt_ms(x["tail"], 1) for x in v),
                "/".join(fmt_ms(x["cpu"], 0) for x in v),
                "/".join(fmt_ms(x["wall"], 0) for x in v),
                "/".join("?" if x["left"] is None else str(x["left"]) for x in v),
                "/".join(str(x["rc"]) for x in v)))
        out("(reaped in: from the storm's start to the first /proc scan without a zombie, "
            "the storm included;")
        out(" tail: from the storm's end to that scan; init CPU: the init's CPU time by then "
            "(/proc/1/schedstat);")
        out(" init exit: unshare's wall time; one figure per round. The storm itself, one "
            "fork pair per orphan, takes most of the time)")
        out()

    # 5 --------------------------------------------------------------------
    def idle_stop(self):
        a = self.a
        out("== 5. SIGTERM to exit, idle tree as PID 1: sh -c 'sleep 100 & sleep 100 & wait', "
            "%d interleaved rounds ==" % a.stop_runs)
        runs = {n: [] for n in self.names}
        codes = {n: set() for n in self.names}
        for r in range(a.stop_runs):
            for n in order(r, self.names):
                d = self.scratch()
                ready = os.path.join(d, "ready")
                p = self.pid1(n, ["sh", "-c", "sleep 100 & sleep 100 & touch %s; wait" % ready])
                try:
                    ipid = init_pid(p)
                    if not ipid or not wait_file(ready, p):
                        continue
                    # Both sleeps exec'd: the tree is idle.
                    deadline = time.monotonic() + 2
                    while time.monotonic() < deadline:
                        sh = children(ipid)
                        kids = children(sh[0]) if sh else []
                        if len(kids) == 2 and all(exe_of(k) and exe_of(k).endswith("/sleep")
                                                  for k in kids):
                            break
                        time.sleep(0.001)
                    time.sleep(0.005)
                    t0 = time.monotonic_ns()
                    os.kill(ipid, signal.SIGTERM)
                    rc = p.wait(15)
                    runs[n].append(ms(time.monotonic_ns() - t0))
                    codes[n].add(rc)
                finally:
                    finish(p)
                    shutil.rmtree(d, ignore_errors=True)
        out("%-12s %9s %9s %9s %9s  %s" % ("init", "min ms", "median ms", "p90 ms", "max ms",
                                           "exit"))
        for n in self.names:
            v = sorted(runs[n])
            if not v:
                out("%-12s no run" % n)
                continue
            med = statistics.median(v)
            self.res[n]["stop"] = med
            p90 = v[max(0, -(-len(v) * 9 // 10) - 1)]
            out("%-12s %9.2f %9.2f %9.2f %9.2f  %s (%d runs)" % (
                n, v[0], med, p90, v[-1], "/".join(str(c) for c in sorted(codes[n])), len(v)))
        out("(from kill(init, SIGTERM) to unshare's exit, PID namespace teardown included)")
        out()

    # 6 --------------------------------------------------------------------
    WORKER = "trap 'sleep 0.5; echo done > %s; exit 0' TERM; touch %s; while :; do sleep 0.05; done"

    def cleanup(self):
        a = self.a
        out("== 6. a worker with 0.5 s of cleanup after SIGTERM, as PID 1, "
            "%d interleaved rounds ==" % a.cleanup_rounds)
        out("  (a) the init gets SIGTERM; the worker runs beside the main child, in its group")
        out("  (b) the main child starts the worker with setsid and exits 0 once it is ready")
        runs = {(n, s): [] for n in self.names for s in "ab"}
        stop_hwm = []
        for r in range(a.cleanup_rounds):
            for s in "ab":
                for n in order(r, self.names):
                    d = self.scratch()
                    done, ready, gone = (os.path.join(d, x) for x in ("done", "ready", "gone"))
                    worker = self.WORKER % (done, ready)
                    if s == "a":
                        argv = ["sh", "-c", "sh -c \"$0\" & wait", worker]
                    else:
                        argv = ["sh", "-c", "setsid sh -c \"$0\" </dev/null >/dev/null 2>&1 & "
                                "while [ ! -e %s ]; do sleep 0.01; done; touch %s; exit 0"
                                % (ready, gone), worker]
                    p = self.pid1(n, argv)
                    try:
                        ipid = init_pid(p)
                        if not ipid:
                            continue
                        if s == "a":
                            if not wait_file(ready, p):
                                continue
                            t0 = time.monotonic_ns()
                            os.kill(ipid, signal.SIGTERM)
                            if n == "nccl-init":
                                time.sleep(0.25)  # in the middle of the grace time
                                hwm = status_kb(ipid, "VmHWM")
                                if hwm:
                                    stop_hwm.append(hwm)
                        else:
                            if not wait_file(gone, p):
                                continue
                            t0 = time.monotonic_ns()
                        rc = finish(p)
                        took = ms(time.monotonic_ns() - t0)
                        runs[(n, s)].append(dict(
                            ok=os.path.exists(done), ms=took, rc=rc))
                    finally:
                        finish(p)
                        shutil.rmtree(d, ignore_errors=True)
        out()
        out("%-12s %-26s %-26s" % ("init", "(a) SIGTERM to the init", "(b) main child exits first"))
        for n in self.names:
            cells = []
            for s in "ab":
                v = runs[(n, s)]
                fin = sum(x["ok"] for x in v)
                outcome = ("finished" if v and fin == len(v) else
                           "killed" if fin == 0 else "mixed")
                med = statistics.median([x["ms"] for x in v]) if v else None
                self.res[n]["cleanup_" + s] = dict(outcome=outcome if v else "no run",
                                                   fin=fin, n=len(v), ms=med)
                cells.append("%-8s %d/%d %7s ms rc %s" % (
                    outcome, fin, len(v), fmt_ms(med, 1),
                    "/".join(sorted({str(x["rc"]) for x in v}))))
            out("%-12s %-26s %-26s" % (n, cells[0], cells[1]))
        out("(finished N/M: the worker's file existed after the init exited in N of M runs; "
            "ms: median time")
        out(" from SIGTERM (a) or from the main child's exit (b) to unshare's exit)")
        if stop_hwm:
            self.res["nccl-init"]["stop_rss"] = max(stop_hwm)
            out("nccl-init VmHWM 0.25 s into a stop (after its /proc walks): %d kB" % max(stop_hwm))
        out()

    # 7 --------------------------------------------------------------------
    def drain(self):
        a = self.a
        out("== 7. ordered drain: the vLLM and SGLang models of tests/helpers/server_models.py "
            "as PID 1, %d interleaved rounds ==" % a.drain_rounds)
        # Each init with its defaults (the start-up command lines): -g would
        # send the stop to the whole group, which is what this measures.
        for n in self.names:
            out("  %-12s %s" % (n + ":", " ".join(self.cmd[n]["sub"])))
        runs = {(n, m): [] for n in self.names for m in server_models.MODELS}
        for r in range(a.drain_rounds):
            for m in server_models.MODELS:
                for n in order(r, self.names):
                    d = self.scratch()
                    try:
                        runs[(n, m)].append(server_models.stop_once(
                            self.cmd[n]["sub"], "pid1", m, server_models.DRAIN, d))
                    finally:
                        shutil.rmtree(d, ignore_errors=True)
        out()
        out("%-12s %-34s %-34s" % ("init", "vLLM model", "SGLang model"))
        notes = []
        for n in self.names:
            cells = []
            for m in server_models.MODELS:
                v = runs[(n, m)]
                kept = sum(x["kept"] for x in v)
                secs = [x["secs"] for x in v if x["secs"] is not None]
                self.res[n]["drain_" + m] = dict(kept=kept, n=len(v))
                cells.append("kept %5s %6s s exit %s" % (
                    "%d/%d" % (kept, len(v)), "%.2f" % statistics.median(secs) if secs else "-",
                    "/".join(sorted({str(x["rc"]) for x in v}))))
                bad = next((x for x in v if not x["kept"]), None)
                if bad:
                    notes.append("%s, %s model: %s" % (n, m, bad["reason"]))
            out("%-12s %-34s %-34s" % (n, cells[0], cells[1]))
        for note in notes:
            out("  first failure: " + note)
        out("(kept k/K: the server logged its drain's end and no child got SIGTERM or SIGINT "
            "before its parent's")
        out(" stop, in k of K rounds; s: median time from SIGTERM to unshare's exit; the drain "
            "is %.1f s; exit:" % server_models.DRAIN)
        out(" vLLM's API server exits 0, SGLang's main process kills itself with SIGKILL, 137)")
        out()

    # summary -------------------------------------------------------------
    def summary(self):
        a = self.a
        R = self.res
        cols = NAMES

        def cell(n, key):
            r = R[n]
            if key == "size":
                if r.get("size") is None:
                    return "not installed"
                s = "%.1f KiB %s" % (r["size"] / 1024, r["link"])
                return s + (" (+libc)" if r.get("libs") else "")
            if key == "rss":
                return "%d kB" % r["rss"] if "rss" in r else "-"
            if key == "startup":
                return "%+.0f µs" % r["startup"] if "startup" in r else "-"
            if key.startswith("orphans"):
                o = r.get("orphans")
                if not o or o["total"] is None:
                    return "-"
                if key == "orphans":
                    return "%.2f s" % (o["total"] / 1000)
                if key == "orphans_cpu":
                    return "-" if o["cpu"] is None else "%.0f ms" % o["cpu"]
                return "?" if o["left"] is None else "%d" % o["left"]
            if key == "stop":
                return "%.2f ms" % r["stop"] if "stop" in r else "-"
            if key.startswith("drain_"):
                d = r.get(key)
                return "%d/%d" % (d["kept"], d["n"]) if d else "-"
            if key in ("cleanup_a", "cleanup_b"):
                c = r.get(key)
                if not c or c["ms"] is None:
                    return "-"
                return "%s (%.0f ms)" % (c["outcome"], c["ms"])
            return "?"

        rows = [
            ("binary size, linkage", "size"),
            ("own RSS (VmHWM)", "rss"),
            ("start-up overhead (median)", "startup"),
            ("%d orphans: all reaped after" % a.orphans, "orphans"),
            ("%d orphans: the init's CPU time" % a.orphans, "orphans_cpu"),
            ("%d orphans: zombies left" % a.orphans, "orphans_left"),
            ("SIGTERM to exit, idle tree (median)", "stop"),
            ("0.5 s cleanup, init gets SIGTERM", "cleanup_a"),
            ("0.5 s cleanup, main child exits first", "cleanup_b"),
            ("ordered drain kept, vLLM model", "drain_vllm"),
            ("ordered drain kept, SGLang model", "drain_sglang"),
        ]
        out("== summary: one interleaved run ==")
        w0 = max(len(r[0]) for r in rows)
        widths = [max(len(c), max(len(cell(c, k)) for _, k in rows)) for c in cols]
        out("%-*s  %s" % (w0, "", "  ".join("%-*s" % (w, c) for w, c in zip(widths, cols))))
        for label, k in rows:
            out("%-*s  %s" % (w0, label, "  ".join("%-*s" % (w, cell(c, k))
                                                    for w, c in zip(widths, cols))))
        out()

        # markdown
        out("----- 8< ----- markdown table for README.md (begin) -----")
        out("| | " + " | ".join(cols) + " |")
        out("|---|" + "---|" * len(cols))
        for label, k in rows:
            out("| " + label + " | " + " | ".join(cell(c, k) for c in cols) + " |")
        out("")
        out("*%s; %s CPUs, Linux %s; shared machine, one interleaved run of "
            "`make bench` (scripts/bench-pid1.sh). Start-up: not PID 1 (tini-static -s), "
            "median of %d runs minus a static `true`; the rest as PID 1 of a new PID namespace "
            "(tini-static -g, catatonit -g), except the ordered drain: each init with its "
            "default stop, k of K rounds. RSS is VmHWM, file-backed pages included. "
            "dumb-init is dynamically linked: its size leaves out glibc.*" % (time.strftime("%Y-%m-%d"), os.cpu_count(), os.uname().release,
                             a.rounds))
        out("----- 8< ----- markdown table for README.md (end) -----")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nccl-init", required=True)
    ap.add_argument("--tini", default="/usr/bin/tini-static")
    ap.add_argument("--dumb-init", default="/usr/bin/dumb-init")
    ap.add_argument("--catatonit", default="/usr/bin/catatonit")
    ap.add_argument("--timer", required=True)
    ap.add_argument("--true-static", required=True)
    ap.add_argument("--reap", required=True)
    ap.add_argument("--orphans-bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--rss-rounds", type=int, default=5)
    ap.add_argument("--orphans", type=int, default=10000)
    ap.add_argument("--orphan-rounds", type=int, default=2)
    ap.add_argument("--orphan-timeout", type=int, default=10)
    ap.add_argument("--stop-runs", type=int, default=20)
    ap.add_argument("--cleanup-rounds", type=int, default=3)
    ap.add_argument("--drain-rounds", type=int, default=10)
    a = ap.parse_args()

    b = Bench(a)
    missing = [n for n in NAMES if n not in b.names]
    if missing:
        out("note: not installed, left out: " + ", ".join(missing))
        out()
    if b.pidns:
        out("as PID 1: %s INIT... CHILD, with INIT... one of" % " ".join(UNSHARE))
        for n in b.names:
            out("  %-12s %s" % (n + ":", " ".join(b.cmd[n]["pid1"])))
        out("(no -s needed as PID 1; tini-static -g and catatonit -g forward to the child's "
            "process group, as dumb-init does by default; nccl-init stops the main child first, "
            "then the rest, by default)")
        out()
    try:
        b.sizes()
        if b.pidns:
            b.rss()
        b.startup()
        if b.pidns:
            b.orphans()
            b.idle_stop()
            b.cleanup()
            b.drain()
        else:
            out("note: no PID namespaces here (unshare --pid failed): sections 2, 4, 5, 6, 7 "
                "skipped")
            out()
        b.summary()
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
