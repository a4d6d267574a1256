#!/usr/bin/env python3
"""Makes witnesses as nccl-init's env plugin will (doc/env-plugin.md, "The
witness"), for verify to read, then stays until killed.

usage: witness-maker.py READY [OPTION | LINE]...

  LINE            a line of the current witness; {pid} and {start} become
                  this process's pid (os.getpid()) and start time (field 22
                  of /proc/self/stat)
  --witness       start another witness memfd (the first is made at the
                  first LINE or --partial: without either, there is none)
  --no-cloexec    the witnesses made from here on are inheritable
  --partial TEXT  append TEXT without a newline (a line being written)
  --map PATH      map PATH (any file, an empty one too) as a library would be
  --pathfd PATH   open PATH O_PATH|O_CLOEXEC, as the plugin keeps its record
  --exec          at the end, exec a python3 -S that sleeps (an inheritable
                  witness crosses the exec; a close-on-exec one does not)

READY gets this process's pid once every witness is written.
"""
import ctypes
import os
import sys
import time

ready, args = sys.argv[1], sys.argv[2:]
start = open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19]
keep, witnesses, flags, do_exec = [], [], os.MFD_CLOEXEC, False


def new_witness():
    witnesses.append(os.memfd_create("nccl-init-witness", flags))


def current():
    if not witnesses:
        new_witness()
    return witnesses[-1]


i = 0
while i < len(args):
    a = args[i]
    if a == "--witness":
        new_witness()
    elif a == "--no-cloexec":
        flags = 0
    elif a == "--partial":
        i += 1
        os.write(current(), args[i].encode())
    elif a == "--map":
        i += 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                              ctypes.c_int, ctypes.c_int, ctypes.c_long]
        fd = os.open(args[i], os.O_RDONLY | os.O_CLOEXEC)
        # PROT_READ, MAP_PRIVATE: a page past an empty file maps all the same
        assert libc.mmap(None, 4096, 1, 2, fd, 0) not in (None, ctypes.c_void_p(-1).value)
        os.close(fd)
    elif a == "--pathfd":
        i += 1
        keep.append(os.open(args[i], os.O_PATH | os.O_CLOEXEC))
    elif a == "--exec":
        do_exec = True
    else:
        line = a.replace("{pid}", str(os.getpid())).replace("{start}", start)
        os.write(current(), (line + "\n").encode())
    i += 1

with open(ready + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(ready + ".tmp", ready)
if do_exec:
    os.execv(sys.executable, [sys.executable, "-S", "-c", "import time; time.sleep(120)"])
time.sleep(120)
