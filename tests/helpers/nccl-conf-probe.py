"""Loads a real libnccl.so.2 and makes NCCL read its conf files, then prints
what the process environment holds afterwards.

NCCL applies its conf files (NCCL_CONF_FILE or ~/.nccl.conf, then
/etc/nccl.conf) with setenv(k, v, 0) in its one-time init, which
ncclGetUniqueId runs; that call needs no GPU.

usage: nccl-conf-probe.py LIBNCCL NAME...   -> "NAME=VALUE" or "NAME unset"
"""
import ctypes
import sys

libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
nccl = ctypes.CDLL(sys.argv[1])
unique_id = ctypes.create_string_buffer(128)
rc = nccl.ncclGetUniqueId(unique_id)
if rc != 0:
    sys.exit("ncclGetUniqueId failed: %d" % rc)
for name in sys.argv[2:]:
    v = libc.getenv(name.encode())
    print("%s=%s" % (name, v.decode()) if v is not None else "%s unset" % name)
