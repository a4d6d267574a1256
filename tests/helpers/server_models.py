"""Process-tree models of vLLM's and SGLang's shutdown, and a driver that
stops them under an init and says whether the server kept its drain.

usage: server_models.py MODE MODEL N [--drain S] [--init-arg ARG]... [--init CMD]
       server_models.py serve MODEL LOG DRAIN
  MODE   pid1 (the init is PID 1 of a new PID namespace, via unshare) or
         subreaper (the init runs directly)
  MODEL  vllm or sglang
  N      stops, JOBS at a time
  --init-arg  one more nccl-init option (repeatable), e.g. --init-arg=--signal-child
  --init      another init, with its options up to the command, e.g.
              --init '/usr/bin/tini-static -s --' (then NI is not needed)
The init is $NI -q --sinks none [--init-arg...] -- unless --init is given.
Prints "ok: ..." and exits 0 when every stop kept its drain and exited with
the status upstream's shutdown ends in; otherwise prints the counts and the
first failing stop's log and exits 1. Python 3.11 standard library only.

What the models follow: upstream source read for this file. The store holds
each file at its own commit; the short hashes say which version was read.

vLLM (vllm-project/vllm)
- vllm/entrypoints/launcher.py, serve_http: the API server takes SIGTERM and
  SIGINT on its event loop (loop.add_signal_handler), "to prevent the
  uvicorn signal handler to exit early". At 02828a1 the handler cancels the
  server task at once (no drain), then server.shutdown(). At 6cfc259, with
  --enable-graceful-shutdown, it first drains for up to --drain-timeout
  (default 120 s: pause_generation(wait_for_inflight_requests=True)) and a
  second signal is "Ignoring duplicate shutdown signal". Merged vLLM has
  --shutdown-timeout instead (PR #36666; default 0: abort the requests in
  flight), acted on in the engine core (below). The model drains for
  --drain seconds. Exit status 0: the process returns from uvloop.run
  (vLLM's shutdown tests, e.g. test_abort_timeout_exits_quickly, send
  SIGTERM to the API server alone and accept 0 or -15).
- vllm/entrypoints/openai/api_server.py (0001948), run_server_worker and
  build_async_engine_client_from_engine_args: leaving the engine client
  calls async_llm.shutdown(timeout=vllm_config.shutdown_timeout) ->
  vllm/v1/engine/core_client.py (00080ee) MPClient.shutdown ->
  engine_manager.shutdown(timeout) (CoreEngineProcManager,
  vllm/v1/engine/utils.py, 0018dd0) -> shutdown(procs) in vllm/v1/utils.py
  (0090ad1): proc.terminate(), i.e. SIGTERM from the API server to its
  EngineCore, a join of up to 5 s, then kill_process_tree. So the engine's
  "shutdown message" is SIGTERM from its parent, not a pipe message.
- vllm/v1/engine/core.py, EngineCoreProc.run_engine_core: its SIGTERM/SIGINT
  handler raises SystemExit once (shutdown_requested) in older versions; at
  00080ee it sets shutdown_state = REQUESTED and the busy loop drains (or,
  with --shutdown-timeout 0, aborts) the requests it holds and raises
  SystemExit. Either way a SIGTERM is the engine's order to stop serving;
  the finally block runs engine_core.shutdown() -> the executor's.
- vllm/v1/executor/multiproc_executor.py (00f6c9b): MultiprocExecutor.shutdown
  closes each worker's death_writer, then _ensure_worker_termination sends
  SIGTERM (p.terminate()) to each live worker, waits up to 4 s, SIGKILLs.
  WorkerProc.worker_main: SIGTERM/SIGINT raise SystemExit once, and a
  WorkerDeathMonitor thread turns EOF on the death pipe into
  os.kill(os.getpid(), SIGTERM).
- get_mp_context (vllm utils): VLLM_WORKER_MULTIPROC_METHOD, "fork" unless
  CUDA is already initialised or under Ray. The model forks too, which is
  also the cheapest; every process stays in the API server's process group,
  as vLLM's do.

SGLang (sgl-project/sglang)
- python/sglang/launch_server.py (046a9e4): run_server(server_args) inside
  try/finally kill_process_tree(os.getpid(), include_parent=False).
- python/sglang/srt/entrypoints/http_server.py (0025436), launch_server:
  _launch_subprocesses, then uvicorn.run. python/sglang/srt/entrypoints/
  engine.py (001067f), Engine._launch_subprocesses: _set_envs_and_config
  (a SIGQUIT handler that kills the tree when a child fails, and
  mp.set_start_method("spawn"); no SIGTERM handler), the scheduler
  processes, the detokenizer, then the TokenizerManager in the main process.
- python/sglang/srt/managers/tokenizer_manager.py: auto_create_handle_loop
  (the first request does it, and the server's own warm-up request is sent
  before it reports ready) adds SignalHandler.sigterm_handler with
  loop.add_signal_handler(SIGTERM); the handler only sets gracefully_exit.
  TokenizerManager.sigterm_watchdog polls it every 5 s, waits until
  rid_to_state (the requests in flight) is empty, then calls
  kill_process_tree(os.getpid(), include_parent=True) (srt/utils): SIGKILL
  (psutil .kill()) to every descendant, then SIGKILL to itself. So the main
  process ends killed by SIGKILL, status 137 (sglang PR #16484 says the
  same), and no child ever gets SIGTERM from it. Newer SGLang (PRs #28779,
  #39560) adds a ShutdownReq message to the schedulers and leaves the exit
  to uvicorn; that is not modelled.
- python/sglang/srt/managers/scheduler.py (0003215), run_scheduler_process,
  and detokenizer_manager.py (000935b), run_detokenizer_process:
  kill_itself_when_parent_died() (PR_SET_PDEATHSIG, SIGKILL) and no SIGTERM
  handler: a SIGTERM kills them on the spot.
- The model forks where SGLang spawns: a spawned child starts a new
  interpreter and re-imports multiprocessing, about 75 ms of CPU each and
  three per stop on the test machine. The process group is the same either
  way, and each child sets its own signal handling first thing, as a spawned
  child starts with the default one.

The verdict: each process appends "ROLE EVENT MONOTONIC" lines to one log
(O_APPEND, one write per line), every stop signal it handles included. A
parent writes its stop line (api stop-engine, engine stop-workers, main
kill-tree) before it signals its children, so a child's signal logged
before that line came from someone else: the init.
The drain is kept when the main process logged drain-end and no child got
a stop signal before its parent's stop line; the exit status must be the
one upstream's shutdown ends in (vLLM 0, SGLang 128+SIGKILL).
"""
import multiprocessing
import os
import select
import signal
import sys
import threading
import time

# The driver's own modules (argparse, subprocess, ...) are imported where
# they are used: every served process starts this file too, and they would
# add 50 ms of CPU to each of its starts.

MODELS = ("vllm", "sglang")
UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
DRAIN = 0.3        # seconds of drain after SIGTERM (default of --drain)
WORKERS = 2        # vLLM workers under EngineCore
SCHEDULERS = 2     # SGLang schedulers beside the detokenizer
JOBS = 8           # stops run at a time
LIFETIME = 120     # no model process outlives this, whatever happens to the driver
READY_TIMEOUT = 30
EXIT_TIMEOUT = 30  # past the init's default grace of 8 s and vLLM's 5 s join
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
ROLES = {
    "vllm": ["api", "engine"] + ["worker%d" % i for i in range(WORKERS)],
    "sglang": ["main", "detokenizer"] + ["scheduler%d" % i for i in range(SCHEDULERS)],
}
EXPECTED_RC = {"vllm": 0, "sglang": 128 + signal.SIGKILL}
PR_SET_PDEATHSIG = 1


# --- the models ---------------------------------------------------------------

class Log:
    """One line per event, one write(2) per line, O_APPEND: lines from all
    the processes interleave whole and in the order they were written."""

    def __init__(self, path, role):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.role = role

    def __call__(self, event):
        os.write(self.fd, ("%s %s %.6f\n" % (self.role, event, time.monotonic())).encode())


class Wake:
    """A self-pipe: the signal handler writes, the main loop selects on it
    (a flag alone would wait out a sleep that PEP 475 resumes). It is also
    the process's wakeup fd, written by CPython's C-level handler: a signal
    that lands after the interpreter's last check for pending signals but
    before select() starts would otherwise leave select() asleep for its
    whole timeout (seen once in 100 stops under load: SIGTERM forwarded,
    never handled). One Wake per process."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.w, False)
        signal.set_wakeup_fd(self.w)

    def set(self):
        os.write(self.w, b"x")

    def wait(self, timeout):
        return bool(select.select([self.r], [], [], timeout)[0])


def on_stop_signals(log, action, sigs=STOP_SIGNALS):
    def handler(signum, frame):
        log(signal.Signals(signum).name)
        action(signum)
    for s in sigs:
        signal.signal(s, handler)


def once(action):
    """Acts on the first call only, as vLLM's shutdown_requested flags do."""
    done = []

    def call(signum):
        if not done:
            done.append(signum)
            action(signum)
    return call


def raise_exit(signum):
    raise SystemExit()


def descendants(pid):
    """Every descendant of pid, parents first (psutil's children(recursive=True))."""
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


def kill_tree(pid, include_parent):
    for p in ([pid] if include_parent else []) + descendants(pid):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def vllm_api(log_path, drain):
    log = Log(log_path, "api")
    stop = Wake()
    # serve_http: SIGTERM and SIGINT on the event loop; duplicates ignored.
    on_stop_signals(log, once(lambda s: stop.set()))
    engine = multiprocessing.get_context("fork").Process(
        target=vllm_engine, args=(log_path,), name="EngineCore_0")
    engine.start()
    log("ready")
    if not stop.wait(LIFETIME):
        return 1
    log("drain-start")
    time.sleep(drain)  # the requests in flight finish; the engine serves them
    log("drain-end")
    # vllm/v1/utils.py shutdown(): SIGTERM, a join of up to 5 s, then the tree's SIGKILL.
    log("stop-engine")
    engine.terminate()
    engine.join(5)
    if engine.is_alive():
        kill_tree(engine.pid, include_parent=True)
    log("exit")
    return 0


def vllm_engine(log_path):
    signal.set_wakeup_fd(-1)  # forked from the API server: its Wake is not ours
    log = Log(log_path, "engine")
    on_stop_signals(log, once(raise_exit))  # run_engine_core's signal_handler
    ctx = multiprocessing.get_context("fork")
    workers = []
    for rank in range(WORKERS):
        # A plain pipe for context.Pipe(duplex=False): the same EOF when the
        # engine closes its end, without importing multiprocessing.connection.
        death_reader, death_writer = os.pipe()
        p = ctx.Process(target=vllm_worker, args=(log_path, rank, death_reader),
                        name="VllmWorker-%d" % rank, daemon=True)
        p.start()
        workers.append((p, death_writer))
    log("ready")
    try:
        time.sleep(LIFETIME)  # the busy loop
    finally:
        # MultiprocExecutor.shutdown: close the death pipes, SIGTERM, 4 s, SIGKILL.
        log("stop-workers")
        for _, w in workers:
            os.close(w)
        for p, _ in workers:
            p.terminate()
        deadline = time.monotonic() + 4
        for p, _ in workers:
            p.join(max(0, deadline - time.monotonic()))
        for p, _ in workers:
            if p.is_alive():
                p.kill()
        log("exit")


def vllm_worker(log_path, rank, death_reader):
    log = Log(log_path, "worker%d" % rank)
    on_stop_signals(log, once(raise_exit))  # WorkerProc.worker_main's signal_handler

    def monitor_parent_death():
        if os.read(death_reader, 1) == b"":  # EOF: the engine is gone
            os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=monitor_parent_death, daemon=True).start()
    log("ready")
    try:
        time.sleep(LIFETIME)  # worker_busy_loop
    finally:
        log("exit")


def sglang_main(log_path, drain):
    import ctypes  # for the children's prctl: imported once, before they fork
    libc = ctypes.CDLL(None)
    log = Log(log_path, "main")
    ctx = multiprocessing.get_context("fork")
    roles = ["scheduler%d" % i for i in range(SCHEDULERS)] + ["detokenizer"]
    children = [ctx.Process(target=sglang_child, args=(log_path, r, libc)) for r in roles]
    for p in children:
        p.start()
    # The TokenizerManager's handler, added once the children run.
    stop = Wake()
    on_stop_signals(log, lambda s: stop.set(), sigs=(signal.SIGTERM,))
    log("ready")
    if not stop.wait(LIFETIME):
        return 1
    log("drain-start")
    time.sleep(drain)  # sigterm_watchdog: until rid_to_state is empty
    log("drain-end")
    # kill_process_tree(os.getpid(), include_parent=True): SIGKILL to the
    # children, then to itself.
    log("kill-tree")
    kill_tree(os.getpid(), include_parent=False)
    os.kill(os.getpid(), signal.SIGKILL)


def sglang_child(log_path, role, libc):
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # kill_itself_when_parent_died
    log = Log(log_path, role)

    def die(signum):  # no handler upstream: the default action, after the log line
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    on_stop_signals(log, die)
    log("ready")
    time.sleep(LIFETIME)  # the event loop


SERVE = {"vllm": vllm_api, "sglang": sglang_main}


# --- the verdict ----------------------------------------------------------------

def parse(text):
    """[(role, event)] in log order; the timestamps are for people."""
    return [tuple(line.split()[:2]) for line in text.splitlines() if len(line.split()) == 3]


def first(events, role, names):
    return next((i for i, (r, e) in enumerate(events) if r == role and e in names), None)


def verdict(model, text):
    """(kept, reason): was the drain kept, and was no child stopped before
    its parent stopped it?"""
    events = parse(text)
    main = ROLES[model][0]
    sigs = {s.name for s in STOP_SIGNALS}
    if first(events, main, {"drain-end"}) is None:
        return False, "%s never logged drain-end" % main
    if model == "vllm":
        order = [("engine", "api", "stop-engine")] + [
            ("worker%d" % i, "engine", "stop-workers") for i in range(WORKERS)]
        finals = ROLES["vllm"]
    else:
        order = [(r, "main", "kill-tree") for r in ROLES["sglang"][1:]]
        finals = ["main"]
    early = []  # (where in the log, what) for each child stopped too soon
    for child, parent, stop_line in order:
        got = first(events, child, sigs)
        told = first(events, parent, {stop_line})
        if got is not None and (told is None or got < told):
            early.append((got, "%s got %s before %s's %s" % (child, events[got][1], parent,
                                                            stop_line)))
    if early:
        return False, min(early)[1]
    last = {"vllm": "exit", "sglang": "kill-tree"}[model]
    for role in finals:
        if first(events, role, {last}) is None:
            return False, "%s never logged %s" % (role, last)
    return True, "drain kept"


# --- the driver -------------------------------------------------------------------

def serve_argv(model, log_path, drain):
    # -I -S: only the standard library is needed, and site's .pth files
    # (certifi under pyenv) would double the interpreter's start-up.
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "serve", model, log_path,
            str(drain)]


def init_pid(p, mode, timeout=5.0):
    """nccl-init's pid in our namespace: under unshare, its one child."""
    if mode != "pid1":
        return p.pid
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None:
        kids = descendants(p.pid)
        if kids:
            return kids[0]
        time.sleep(0.002)
    return None


def wait_ready(log_path, model, p):
    want = set(ROLES[model])
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline and p.poll() is None:
        try:
            with open(log_path) as f:
                ready = {r for r, e in parse(f.read()) if e == "ready"}
        except FileNotFoundError:
            ready = set()
        if ready == want:
            return True
        time.sleep(0.02)
    return False


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def stop_once(init, mode, model, drain, work):
    """Starts INIT... MODEL under work/, waits until every process is ready,
    sends SIGTERM to the init and judges the stop. Returns a dict: kept,
    reason, rc, secs (SIGTERM to the init's exit), log, stderr."""
    import subprocess
    log_path, err_path = os.path.join(work, "log"), os.path.join(work, "stderr")
    argv = init + serve_argv(model, log_path, drain)
    if mode == "pid1":
        argv = UNSHARE + argv
    with open(err_path, "w") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    res = dict(kept=False, rc=None, secs=None)
    try:
        ipid = init_pid(p, mode)
        if ipid is None or not wait_ready(log_path, model, p):
            res["reason"] = ("not ready within %d s" % READY_TIMEOUT if p.poll() is None else
                             "the init exited %d before the tree was ready" % p.returncode)
            return res
        t0 = time.monotonic()
        try:
            os.kill(ipid, signal.SIGTERM)
        except ProcessLookupError:
            res["reason"] = "the init was gone before the SIGTERM (exit %s)" % p.poll()
            return res
        try:
            res["rc"] = p.wait(EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            res["reason"] = "the init did not exit within %d s of SIGTERM" % EXIT_TIMEOUT
            return res
        res["secs"] = time.monotonic() - t0
        res["kept"], res["reason"] = verdict(model, read(log_path))
        if res["kept"] and res["rc"] != EXPECTED_RC[model]:
            res["kept"], res["reason"] = False, "exit %d, want %d" % (res["rc"], EXPECTED_RC[model])
        return res
    finally:
        if p.poll() is None:
            kill_tree(p.pid, include_parent=True)
            p.wait()
        res["log"], res["stderr"] = read(log_path), read(err_path)


def run(init, mode, model, n, drain):
    import concurrent.futures
    import tempfile
    with tempfile.TemporaryDirectory(prefix="server-models-") as tmp:
        def one(i):
            work = os.path.join(tmp, str(i))
            os.mkdir(work)
            return stop_once(init, mode, model, drain, work)
        with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
            return list(pool.map(one, range(n)))


def report(model, mode, results, wall):
    import statistics
    n = len(results)
    kept = sum(r["kept"] for r in results)
    secs = [r["secs"] for r in results if r["secs"] is not None]
    rcs = sorted({str(r["rc"]) for r in results})
    line = ("%s %s: drain kept %d/%d, exit %s, stop median %s s max %s s, "
            "%d stops in %.1f s (%d at a time)") % (
        model, mode, kept, n, "/".join(rcs),
        "%.2f" % statistics.median(secs) if secs else "-", "%.2f" % max(secs) if secs else "-",
        n, wall, JOBS)
    if kept == n:
        print("ok: " + line)
        return 0
    print("FAIL: " + line)
    i, bad = next((i, r) for i, r in enumerate(results) if not r["kept"])
    print("first failing stop (#%d): %s; exit %s" % (i, bad["reason"], bad["rc"]))
    print("its log:\n" + bad["log"].rstrip())
    if bad["stderr"].strip():
        print("the init's output:\n" + bad["stderr"].rstrip())
    return 1


def main():
    if sys.argv[1:2] == ["serve"]:
        _, _, model, log_path, drain = sys.argv
        sys.exit(SERVE[model](log_path, float(drain)))
    import argparse
    import shlex
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("pid1", "subreaper"))
    ap.add_argument("model", choices=MODELS)
    ap.add_argument("n", type=int)
    ap.add_argument("--drain", type=float, default=DRAIN)
    ap.add_argument("--init-arg", action="append", default=[])
    ap.add_argument("--init")
    a = ap.parse_args()
    if a.init and a.init_arg:
        ap.error("--init-arg is for nccl-init; put another init's options in --init")
    init = shlex.split(a.init) if a.init else [os.environ["NI"], "-q", "--sinks", "none",
                                               *a.init_arg, "--"]
    t0 = time.monotonic()
    results = run(init, a.mode, a.model, a.n, a.drain)
    sys.exit(report(a.model, a.mode, results, time.monotonic() - t0))


if __name__ == "__main__":
    main()
