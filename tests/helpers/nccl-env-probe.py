"""Loads a real libnccl.so.2 and runs NCCL's first init (ncclGetUniqueId,
which needs no GPU), so that NCCL loads its env plugin and reads its
parameters through it; NCCL's own log (NCCL_DEBUG=INFO, on stdout) says
what it took. Standard library only (python3 -S or -I).

usage: nccl-env-probe.py [MODE [ARGS]] LIBNCCL
  (none)           ncclGetUniqueId; "uniqueid: ok", exit 0, or
                   "uniqueid: failed RC", exit 1
  spawn            the same in a multiprocessing spawn worker, started after
                   this process took every NCCL_* out of os.environ; the
                   worker's exit status
  hold             ncclGetUniqueId, "held PID", then sleeps (60 s at most)
                   until killed: /proc/PID/fd* can be read meanwhile
  comm             a one-rank communicator on device 0 (cudaSetDevice through
                   libcudart, ncclGetUniqueId, ncclCommInitRank with nranks 1,
                   ncclCommDestroy): what only a communicator reads; needs a
                   GPU. "comm: ok", exit 0, or "comm: ... failed RC", exit 1;
                   then the witness, as in witness mode
  v2 PLUGIN NAME   no NCCL: PLUGIN's ncclEnvPlugin_v2 as NCCL 2.30 calls it,
                   init with a logger that prints "log LEVEL FLAGS FILE: MESSAGE",
                   then "getEnv: VALUE" of NAME, then finalize (LIBNCCL unused)
  witness          ncclGetUniqueId, then this process's witness (the env
                   plugin's memfd, found in /proc/self/fd), each line as
                   "witness: LINE"
  copies COPY      ncclGetUniqueId through LIBNCCL and through COPY, a
                   second copy of the library at another path (one process,
                   two NCCLs, one plugin), then as hold
  fork             ncclGetUniqueId, then os.fork: the child calls
                   ncclGetUniqueId again and prints "child PID"; both then
                   hold ("held PID" from the parent)
  workers N [NAME=VALUE]
                   takes every NCCL_* out of os.environ, then starts N
                   multiprocessing spawn workers; each sets NAME=VALUE if
                   given, calls ncclGetUniqueId (its result as "worker PID:
                   ok" or "worker PID: failed RC") and sleeps until killed;
                   then "held PID" from the parent, which sleeps too
  threads PLUGIN NAME
                   ncclGetUniqueId, then PLUGIN's getEnv(NAME) from 8
                   threads at once (ctypes lets go of the GIL in the call),
                   20000 times each; "threads: VALUE" when every call gave
                   the same value, exit 1 otherwise
"""
import ctypes
import os
import sys
import threading
import time


def unique_id(lib):
    nccl = ctypes.CDLL(lib)
    uid = ctypes.create_string_buffer(128)
    rc = nccl.ncclGetUniqueId(uid)
    # NCCL's log goes through the C library's stdout, block-buffered into a
    # file or pipe: out before this process's own lines, and before a hold
    # that ends with a signal.
    ctypes.CDLL(None).fflush(None)
    sys.stdout.flush()
    if rc != 0:
        print("uniqueid: failed %d" % rc, flush=True)
        return False
    print("uniqueid: ok", flush=True)
    return True


class UniqueId(ctypes.Structure):
    # ncclUniqueId: { char internal[NCCL_UNIQUE_ID_BYTES = 128]; } (src/nccl.h.in),
    # passed to ncclCommInitRank by value.
    _fields_ = [("internal", ctypes.c_char * 128)]


def cudart_beside(lib):
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12"):
        for where in ("", os.path.dirname(os.path.realpath(lib)) + "/", os.path.dirname(lib) + "/"):
            try:
                return ctypes.CDLL(where + name)
            except OSError:
                pass
    return None


def comm(lib):
    cudart = cudart_beside(lib)
    if cudart is None:
        print("comm: no libcudart", flush=True)
        return False
    rc = cudart.cudaSetDevice(0)
    if rc != 0:
        print("comm: cudaSetDevice(0) failed %d" % rc, flush=True)
        return False
    nccl = ctypes.CDLL(lib)
    uid = UniqueId()
    rc = nccl.ncclGetUniqueId(ctypes.byref(uid))
    if rc != 0:
        print("comm: ncclGetUniqueId failed %d" % rc, flush=True)
        return False
    c = ctypes.c_void_p()
    nccl.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UniqueId,
                                      ctypes.c_int]
    rc = nccl.ncclCommInitRank(ctypes.byref(c), 1, uid, 0)
    if rc != 0:
        print("comm: ncclCommInitRank failed %d" % rc, flush=True)
        return False
    nccl.ncclCommDestroy(c)
    print("comm: ok", flush=True)
    return True


def worker(lib):
    sys.exit(0 if unique_id(lib) else 1)


class Env(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("init", ctypes.c_void_p),
                ("finalize", ctypes.c_void_p),
                ("getEnv", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_char_p))]


# ncclDebugLogger_t: (level, flags, file, line, fmt, ...); the plugin calls
# it as (level, flags, __FILE__, __LINE__, "%s", message), so the one
# variadic argument is taken as a sixth (the same registers on x86-64 and
# aarch64 Linux).
Logger = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int,
                          ctypes.c_char_p, ctypes.c_char_p)


class EnvV2(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("init", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint8, ctypes.c_uint8,
                                          ctypes.c_uint8, ctypes.c_char_p, Logger)),
                ("finalize", ctypes.CFUNCTYPE(ctypes.c_int)),
                ("getEnv", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_char_p))]


def v2(plugin, name):
    env = EnvV2.in_dll(ctypes.CDLL(plugin), "ncclEnvPlugin_v2")

    def log(level, flags, file, line, fmt, msg):
        assert fmt == b"%s", fmt
        print("log %d 0x%x %s: %s" % (level, flags, file.decode(), msg.decode()), flush=True)

    logger = Logger(log)
    print("name: %s" % env.name.decode())
    print("init: %d" % env.init(2, 30, 7, b"", logger), flush=True)
    v = env.getEnv(name.encode())
    print("getEnv: %s" % (v.decode() if v is not None else "NULL"))
    print("finalize: %d" % env.finalize(), flush=True)
    return True


def threads(plugin, name):
    env = Env.in_dll(ctypes.CDLL(plugin), "ncclEnvPlugin_v1")
    key = name.encode()
    seen = set()

    def run():
        got = set()
        for _ in range(20000):
            got.add(env.getEnv(key))
        seen.update(got)

    ts = [threading.Thread(target=run) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if len(seen) != 1:
        print("threads: %d different values: %r" % (len(seen), sorted(map(repr, seen))))
        return False
    v = seen.pop()
    print("threads: %s" % (v.decode() if v is not None else "NULL"))
    return True


def held_worker(lib, setting, ready):
    if setting:
        name, _, value = setting.partition("=")
        os.environ[name] = value
    nccl = ctypes.CDLL(lib)
    uid = ctypes.create_string_buffer(128)
    rc = nccl.ncclGetUniqueId(uid)
    ctypes.CDLL(None).fflush(None)
    print("worker %d: %s" % (os.getpid(), "ok" if rc == 0 else "failed %d" % rc), flush=True)
    ready.put(os.getpid())
    time.sleep(60)


def workers(lib, n, setting):
    import multiprocessing
    for k in [k for k in os.environ if k.startswith("NCCL_")]:
        del os.environ[k]
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Queue()
    ps = [ctx.Process(target=held_worker, args=(lib, setting, ready)) for _ in range(n)]
    for p in ps:
        p.start()
    for _ in ps:
        ready.get(timeout=50)
    hold()


def witness_lines():
    for fd in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            if os.readlink("/proc/self/fd/" + fd) == "/memfd:nccl-init-witness (deleted)":
                with open("/proc/self/fd/" + fd) as f:
                    return f.read().splitlines()
        except OSError:
            pass
    return None


def hold():
    print("held %d" % os.getpid(), flush=True)
    time.sleep(60)


def main(argv):
    modes = ("spawn", "hold", "threads", "comm", "v2", "witness", "copies", "fork", "workers")
    mode = argv[1] if argv[1] in modes else ""
    args = argv[2:-1] if mode else []
    lib = argv[-1]
    if mode == "spawn":
        import multiprocessing
        for k in [k for k in os.environ if k.startswith("NCCL_")]:
            del os.environ[k]
        p = multiprocessing.get_context("spawn").Process(target=worker, args=(lib,))
        p.start()
        p.join()
        return p.exitcode
    if mode == "v2":
        return 0 if v2(args[0], args[1]) else 1
    if mode == "workers":
        workers(lib, int(args[0]), args[1] if len(args) > 1 else "")
        return 0
    if mode == "comm":
        ok = comm(lib)
        for line in witness_lines() or ["none"]:
            print("witness: " + line, flush=True)
        return 0 if ok else 1
    ok = unique_id(lib)
    if mode == "witness":
        # also after a failed init: what NCCL read made it fail
        lines = witness_lines()
        for line in lines if lines is not None else ["none"]:
            print("witness: " + line, flush=True)
    if not ok:
        return 1
    if mode == "copies" and not unique_id(args[0]):
        return 1
    if mode == "fork":
        sys.stdout.flush()
        if os.fork() == 0:
            ok = unique_id(lib)
            print("child %d" % os.getpid(), flush=True)
            if ok:
                time.sleep(60)
            os._exit(0 if ok else 1)
    if mode in ("hold", "copies", "fork"):
        hold()
    if mode == "threads":
        return 0 if threads(args[0], args[1]) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
