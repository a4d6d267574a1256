"""A stand-in server for verify: the parent starts WORKERS spawn workers,
the second half after clearing its own environment, writes READY and
sleeps until it is stopped.

usage: tree.py READY [WORKERS]
"""
import multiprocessing as mp
import os
import sys
import time


def worker(q):
    q.put(os.getpid())
    time.sleep(3600)


if __name__ == "__main__":
    ready, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = []
    for i in range(n):
        if i == n // 2:
            os.environ.clear()
        p = ctx.Process(target=worker, args=(q,))
        p.start()
        procs.append(p)
    for _ in procs:
        q.get(timeout=60)  # each worker runs
    with open(ready + ".tmp", "w") as f:
        f.write(" ".join(str(p.pid) for p in procs) + "\n")
    os.rename(ready + ".tmp", ready)
    time.sleep(3600)
