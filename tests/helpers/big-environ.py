"""Points this process's /proc/PID/environ at SIZE bytes of its own memory
(prctl PR_SET_MM_MAP, which CRIU uses: no exec can pass more than 6 MiB),
writes READY and sleeps. Prints "unsupported: ..." and exits 3 where the
kernel refuses (no CONFIG_CHECKPOINT_RESTORE, or no permission).

usage: big-environ.py SIZE READY
"""
import ctypes
import mmap
import os
import sys
import time

size, ready = int(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
# Private: /proc/PID/environ reads only anonymous private memory.
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.write(b"BIG=" + b"x" * (size - 5) + b"\0")
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
stat = open("/proc/self/stat").read().rsplit(")", 1)[1].split()


def field(n):  # proc(5) numbering: field 3 is the state
    return int(stat[n - 3])


class MmMap(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in (
        "start_code", "end_code", "start_data", "end_data", "start_brk", "brk",
        "start_stack", "arg_start", "arg_end", "env_start", "env_end")] + [
        ("auxv", ctypes.c_void_p), ("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]


libc.sbrk.restype = ctypes.c_void_p
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
mm = MmMap(field(26), field(27), field(45), field(46), field(47), libc.sbrk(0), field(28),
           field(48), field(49), addr, addr + size, None, 0, 0xFFFFFFFF)
PR_SET_MM, PR_SET_MM_MAP = 35, 14
if libc.prctl(PR_SET_MM, PR_SET_MM_MAP, ctypes.byref(mm), ctypes.sizeof(mm), 0) != 0:
    print("unsupported:", os.strerror(ctypes.get_errno()), flush=True)
    sys.exit(3)
with open(ready + ".tmp", "w") as f:
    f.write("%d\n" % os.getpid())
os.rename(ready + ".tmp", ready)
time.sleep(3600)
