#!/usr/bin/env python3
"""A stand-in for an inference server's launch (SGLang's launch_server).

The parent starts 8 "scheduler" workers with multiprocessing spawn, as the
real servers do, one per GPU. Halfway through it scrubs its own environment
(servers build clean environments for their workers), so workers 4-7 start
from an empty one. Each worker reports the NCCL variables its os.environ
holds (the profile's NCCL variables); the parent prints one row per worker.

usage: demo-server.py PROFILE.env   (the values a worker should see)
"""
import multiprocessing as mp
import os
import sys


def scheduler(rank, keys, queue):
    queue.put((rank, os.getpid(), [os.environ.get(k) for k in keys]))


def expected(profile):
    want = {}
    with open(profile, encoding="utf-8") as f:
        for line in f:
            if line.startswith("NCCL_") and "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                want[k] = v
    return want


def main():
    want = expected(sys.argv[1])
    keys = list(want)
    want = [want[k] for k in keys]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    workers = []
    for rank in range(8):
        if rank == 4:
            os.environ.clear()
        p = ctx.Process(target=scheduler, args=(rank, keys, queue))
        p.start()
        workers.append(p)
    rows = sorted(queue.get(timeout=120) for _ in workers)
    for p in workers:
        p.join()

    short = [k[len("NCCL_"):] for k in keys]
    widths = [max(len(s), 8) for s in short]
    print("  %-8s %-7s %s  %s" % ("worker", "pid", " ".join(
        "%-*s" % (w, s) for w, s in zip(widths, short)), "all"))
    good = 0
    for rank, pid, vals in rows:
        ok = vals == want
        good += ok
        cells = " ".join("%-*s" % (w, v if v is not None else "-")
                         for w, v in zip(widths, vals))
        kind = "scrubbed" if rank >= 4 else "inherits"
        print("  %-8s %-7d %s  %s" % ("%d %s" % (rank, kind[0]), pid, cells,
                                      "\u2713" if ok else "\u2717"))
    print("  %d of 8 workers have all %d values (i: inherits the parent's "
          "environment, s: started after the parent scrubbed it)" % (good, len(keys)))


if __name__ == "__main__":
    main()
