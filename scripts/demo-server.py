#!/usr/bin/env python3
"""A stand-in for an inference server's launch (vLLM's `vllm serve`,
SGLang's launch_server), shaped like the real ones where nccl-init meets
them. `make demo` runs it, and tests/pasted.bats installs it as the image's
`vllm`.

The main process starts one "scheduler" worker per GPU with multiprocessing
spawn, as the real servers do. Halfway through it clears its own environment
(servers build clean environments for their workers), so the second half
start from an empty one. Each worker reports the NCCL variables its
os.environ holds; the main process prints one row per worker, judged against
the NCCL variables it was itself started with.

With a libnccl (--nccl-lib, else the loader's), it also starts NCCL workers
the way a C++ launcher would: `python3 -S` (no site, so no Python hook can
help them) with an environment that holds nothing but NCCL_DEBUG, and they
call ncclGetUniqueId, which needs no GPU. NCCL's own log lines are printed.

With `serve` (vllm serve MODEL) it then serves until SIGTERM; without, it
stops its workers and exits at once. On SIGTERM it drains, then tells its
workers to stop, joins them and exits 0, as vLLM's API server does.

usage: demo-server.py [serve MODEL] [--tensor-parallel-size N] [--ready FILE]
                      [--drain SECONDS] [--nccl-lib PATH]
                      [--nccl-sets NAME=VALUE] [vLLM's other options, ignored]
"""
import argparse
import ctypes.util
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time

# NCCL's log lines worth showing: the plugin's, and what NCCL read and used.
NCCL_SHOWN = ("ENV/Plugin: Using", "Successfully loaded external env plugin",
              "NCCL INFO nccl-init:", "NCCL_SOCKET_IFNAME", "Bootstrap: Using",
              "NCCL WARN")


def say(msg):
    print(msg, flush=True)


def scheduler(rank, keys, queue, stop):
    queue.put((rank, os.getpid(), [os.environ.get(k) for k in keys]))
    stop.wait()


def nccl_worker(lib):
    """Runs as `python3 -S demo-server.py --nccl-worker LIB`."""
    nccl = ctypes.CDLL(lib)
    version = ctypes.c_int(0)
    nccl.ncclGetVersion(ctypes.byref(version))
    uid = ctypes.create_string_buffer(128)
    rc = nccl.ncclGetUniqueId(uid)
    ctypes.CDLL(None).fflush(None)  # NCCL's log is on a buffered stdout
    v = version.value
    print("result: NCCL %d.%d.%d, ncclGetUniqueId %s" % (
        v // 10000, v // 100 % 100, v % 100, "ok" if rc == 0 else "failed: %d" % rc), flush=True)
    print("ready", flush=True)
    sys.stdin.read()  # until the server closes the pipe


def find_nccl(path):
    """The libnccl to load: PATH when it exists (none for ""), else the
    loader's own."""
    if path is not None:
        return path if path and os.path.exists(path) else None
    return ctypes.util.find_library("nccl")


def start_nccl_worker(lib, sets):
    env = {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,ENV,BOOTSTRAP"}
    env.update(sets)
    p = subprocess.Popen([sys.executable, "-S", os.path.abspath(__file__), "--nccl-worker", lib],
                         env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in p.stdout:
        line = line.rstrip("\n")
        if line == "ready":
            break
        lines.append(line)
    return p, lines


def expected_values():
    """The NCCL variables the server was started with (not nccl-init's own
    NCCL_INIT_*, nor NCCL_DEBUG*, which is the demo's)."""
    return {k: v for k, v in sorted(os.environ.items())
            if k.startswith("NCCL_") and not k.startswith(("NCCL_INIT_", "NCCL_DEBUG"))}


def table(rows, keys, want, nworkers):
    short = [k[len("NCCL_"):] for k in keys]
    widths = [max(len(s), len(want[k]), 2) for s, k in zip(short, keys)]
    say("  %-10s %-7s %s  %s" % ("worker", "pid", " ".join(
        "%-*s" % (w, s) for w, s in zip(widths, short)), "all"))
    good = 0
    for rank, pid, vals in rows:
        ok = vals == [want[k] for k in keys]
        good += ok
        cells = " ".join("%-*s" % (w, v if v is not None else "-") for w, v in zip(widths, vals))
        kind = "scrubbed" if rank >= nworkers // 2 else "inherits"
        say("  %-10s %-7d %s  %s" % ("%d %s" % (rank, kind), pid, cells,
                                     "\u2713" if ok else "\u2717"))
    say("  %d of %d workers have all %d values" % (good, nworkers, len(keys)))


def main():
    if sys.argv[1:2] == ["--nccl-worker"]:
        return nccl_worker(sys.argv[2])
    ap = argparse.ArgumentParser(prog="demo-server.py")
    ap.add_argument("words", nargs="*")  # vllm's "serve" and the model
    ap.add_argument("--tensor-parallel-size", "--tp", type=int, default=8)
    ap.add_argument("--ready")
    ap.add_argument("--drain", type=float, default=1.0)
    ap.add_argument("--nccl-lib")
    ap.add_argument("--nccl-sets", action="append", default=[])
    args, _ = ap.parse_known_args()
    n = args.tensor_parallel_size

    # SIGTERM from here on: the drain starts once the workers are up.
    stopping = []
    signal.signal(signal.SIGTERM, lambda s, f: stopping.append(time.monotonic()))

    want = expected_values()
    keys = list(want)
    if not keys and n:
        say("server: started with no NCCL_ variable: nothing to hand to the workers")
        return 1
    ctx = mp.get_context("spawn")
    queue, stop = ctx.Queue(), ctx.Event()
    workers = []
    for rank in range(n):
        if rank == n // 2:
            os.environ.clear()
        p = ctx.Process(target=scheduler, args=(rank, keys, queue, stop))
        p.start()
        workers.append(p)
    rows = sorted(queue.get(timeout=120) for _ in workers)
    if n:
        say("server: %d spawn workers; the last %d started after the server cleared its "
            "environment" % (n, n - n // 2))
        table(rows, keys, want, n)

    nccl = []
    lib = find_nccl(args.nccl_lib)
    if lib is None:
        if args.nccl_lib != "":
            say("server: no libnccl.so.2 here (%s): no NCCL worker" % (
                args.nccl_lib or "the loader finds none"))
    else:
        sets = dict(kv.split("=", 1) for kv in args.nccl_sets)
        p, lines = start_nccl_worker(lib, sets)
        nccl.append(p)
        say("server: NCCL worker %d: python3 -S (no hook), environment %s" % (
            p.pid, " ".join("%s=%s" % kv for kv in sorted(sets.items()))
            or "empty but NCCL_DEBUG"))
        for line in lines:
            if any(s in line for s in NCCL_SHOWN) or line.startswith("result:"):
                say("    " + line)

    if args.ready:
        with open(args.ready + ".tmp", "w") as f:
            f.write(" ".join(str(p.pid) for p in workers + nccl) + "\n")
        os.rename(args.ready + ".tmp", args.ready)
    say("server: ready")
    while args.words[:1] == ["serve"] and not stopping:
        time.sleep(0.1)
    if stopping:
        say("server: SIGTERM: draining for %.1f s" % args.drain)
        time.sleep(args.drain)
    stop.set()
    for p in nccl:
        p.stdin.close()
    codes = [p.join() or p.exitcode for p in workers] + [p.wait() for p in nccl]
    say("server: %d workers stopped, exit statuses %s; server exits 0" % (
        len(codes), " ".join(str(c) for c in codes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
