#!/usr/bin/env python3
"""The oracle: what the real libnccl makes of each case in tests/oracle/cases.tsv,
against what `nccl-init check` and `nccl-init render --format json` say.

  nccl-oracle.py run NI LIB CASES [--gpu] [--family F]...
      runs every case, prints one line per case and a summary; exits 1 when
      NCCL, render or check disagree with the case file
  nccl-oracle.py probe OUT LIB SYMBOLS SPEC...
      (internal) loads LIB in this process, whose environment holds the
      values, and writes what NCCL did to OUT (JSON) and OUT.log (NCCL's log);
      SYMBOLS is a JSON file of the library's symbol offsets

How NCCL is made to read a value, with no GPU:
  uid     ncclGetUniqueId runs NCCL's one-time init (initEnv, the debug
          init, bootstrapNetInit...): the parameters it reads log "set by
          environment" or "Invalid value" lines on the way;
  param   the rest of the integer parameters: NCCL's own accessor
          ncclParam<Name>() (src/include/param.h NCCL_PARAM, through
          ncclLoadParam), called at its address from the library's symbol
          table; it logs the same lines and returns what NCCL uses;
  level   ncclGetLevel(&level, disableEnv, levelEnv) (src/graph/paths.cc) for
          NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL and NCCL_P2P_DISABLE;
  list    parseList(str, ncclFuncStr, 5, ncclProtoStr|ncclAlgoStr, n, matrix)
          (src/graph/tuning.cc) for NCCL_PROTO and NCCL_ALGO, in a child
          process (":" crashes it);
  gpu     with --gpu: ncclCommInitRank on one rank (device 0), for what only
          a communicator reads; the case's nccl column is "gpu:TEXT", a line
          NCCL must print.
Every NCCL process runs with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL (unless
the case is about those), one value per parameter, many parameters at once:
NCCL reads a parameter once per process and logs it on its own line.
"""
import ctypes
import json
import mmap
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- probe side


def elf_symbols(path, wanted):
    """st_value of the wanted names from the ELF .symtab (the library keeps it)."""
    out = {}
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    shoff, = struct.unpack_from("<Q", m, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", m, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", m, shoff + i * shentsize) for i in range(shnum)]
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]][4]
        off, size, entsize = s[4], s[5], s[9]
        for k in range(size // entsize):
            name, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", m, off + k * entsize)
            if name:
                end = m.find(b"\0", strtab + name)
                n = m[strtab + name:end].decode("ascii", "replace")
                if n in wanted:
                    out[n] = value
    return out


class DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]


def mangled_param(name):
    return "_Z%dncclParam%sv" % (len("ncclParam" + name), name)


def in_child(call, out_path, libc):
    """Runs call() in a forked child, which NCCL may crash: its dict comes
    back through a file, or {"signal": N} when the child died of signal N."""
    libc.fflush(None)
    pid = os.fork()
    if pid == 0:
        result = call()
        libc.fflush(None)
        with open(out_path + ".child", "w") as f:
            json.dump(result, f)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    with open(out_path + ".child") as f:
        return json.load(f)


def probe(out_path, lib, symfile, specs):
    # NCCL logs to stdout (ncclDebugFile = stdout): send fd 1 to the log file
    log = os.open(out_path + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    libc = ctypes.CDLL(None)
    results = []

    def mark(text):
        libc.fflush(None)
        os.write(1, ("@@oracle %s\n" % text).encode())

    with open(symfile) as f:
        syms = json.load(f)
    nccl = ctypes.CDLL(lib)
    info = DlInfo()
    libc.dladdr(ctypes.cast(nccl.ncclGetUniqueId, ctypes.c_void_p), ctypes.byref(info))
    base = info.saddr - syms["ncclGetUniqueId"]
    for spec in specs:
        kind, _, arg = spec.partition(":")
        mark(spec)
        r = {"spec": spec}
        if kind == "uid":
            r["rc"] = nccl.ncclGetUniqueId(ctypes.create_string_buffer(128))
        elif kind == "param":
            name = arg.split(":")[0]
            sym = mangled_param(name)
            if sym not in syms:
                r["error"] = "no symbol %s in %s" % (sym, lib)
            else:
                r["value"] = ctypes.CFUNCTYPE(ctypes.c_int64)(base + syms[sym])()
        elif kind == "level":
            disable, level = arg.split(":")
            fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_char_p,
                                  ctypes.c_char_p)(base + syms["_Z12ncclGetLevelPiPKcS1_"])
            lv = ctypes.c_int(-1)

            def call():  # a negative old-style level reads outside NCCL's table
                rc = fn(ctypes.byref(lv), disable.encode() if disable != "-" else None,
                        level.encode())
                return {"rc": rc, "level": lv.value}
            r.update(in_child(call, out_path, libc))
        elif kind == "list":
            elems = "ncclProtoStr" if arg == "NCCL_PROTO" else "ncclAlgoStr"
            n = 3 if arg == "NCCL_PROTO" else 7
            fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int,
                                  ctypes.c_void_p, ctypes.c_int,
                                  ctypes.POINTER(ctypes.c_int))(base + syms["_Z9parseListPKcPS0_iS1_iPi"])
            value = os.environ.get(arg)
            # the defaults tuning.cc ncclTopoTuneModel starts from
            matrix = (ctypes.c_int * (5 * n))(*[2 if (arg == "NCCL_PROTO" and i % n == 1) else 1
                                              for i in range(5 * n)])

            def call():
                rc = fn(value.encode(), base + syms["ncclFuncStr"], 5, base + syms[elems], n, matrix)
                return {"rc": rc, "matrix": [list(matrix[f * n:(f + 1) * n]) for f in range(5)]}
            r.update(in_child(call, out_path, libc))
        elif kind == "gpu":
            r.update(gpu_comm(nccl, lib))
        results.append(r)
    mark("end")
    libc.fflush(None)
    with open(out_path, "w") as f:
        json.dump(results, f)


def gpu_comm(nccl, lib):
    """A one-rank communicator on device 0: ncclCommInitRank reads what only a
    communicator reads (envConfigOverride, the topology, the transports)."""
    cudart = None
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12"):
        for where in ("", os.path.dirname(os.path.realpath(lib)) + "/", os.path.dirname(lib) + "/"):
            try:
                cudart = ctypes.CDLL(where + name)
                break
            except OSError:
                pass
        if cudart:
            break
    if cudart is None:
        return {"error": "no libcudart"}
    if cudart.cudaSetDevice(0) != 0:
        return {"error": "cudaSetDevice(0) failed"}
    # ncclCommInitRank takes the 128-byte ncclUniqueId by value (nccl.h):
    # a struct for ctypes, not a pointer to a buffer.
    class UniqueId(ctypes.Structure):
        _fields_ = [("internal", ctypes.c_char * 128)]

    uid = UniqueId()
    rc = nccl.ncclGetUniqueId(ctypes.byref(uid))
    if rc != 0:
        return {"rc": rc}
    comm = ctypes.c_void_p()
    nccl.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UniqueId,
                                      ctypes.c_int]
    rc = nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0)
    if rc == 0:
        nccl.ncclCommDestroy(comm)
    return {"rc": rc}


# ---------------------------------------------------------------- driver side

PROTO = ["LL", "LL128", "Simple"]
ALGO = ["Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"]
FUNCS = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"]
LEVELS = ["LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"]
# Read by ncclGetUniqueId's init path, and changing what the probe itself
# sees (the log, the bootstrap): one such value per process.
SOLO = {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_DEBUG_TIMESTAMP_LEVELS",
        "NCCL_DEBUG_TIMESTAMP_FORMAT", "NCCL_SOCKET_IFNAME", "NCCL_COMM_ID", "NCCL_ENV_PLUGIN",
        "NCCL_SOCKET_FAMILY", "NCCL_CONF_FILE", "NCCL_P2P_DISABLE", "NCCL_WARN_ENABLE_DEBUG_INFO"}


def load_params(repo):
    """init/nccl_params.tsv: name -> how NCCL reads it, and its accessor."""
    params, accessor = {}, {}
    with open(os.path.join(repo, "init", "nccl", "nccl_params.tsv")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            name, read, acc = line.rstrip("\n").split("\t")[:3]
            params[name] = read
            if acc.startswith("ncclParam"):
                accessor[name] = acc[len("ncclParam"):]
    return params, accessor


def unescape(v):
    if v == "(empty)":
        return ""
    m = re.fullmatch(r"\((.)\*(\d+)\)", v)
    if m:
        return m.group(1) * int(m.group(2))
    return v


def load_cases(path, families):
    cases = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 5:
                sys.exit("%s:%d: expected family, key, value, nccl, check[, says]" % (path, n))
            fam, key, value, nccl, check = cols[:5]
            says = cols[5] if len(cols) > 5 else ""
            extra = dict(kv.split("=", 1) for kv in cols[6].split(",")) if len(cols) > 6 else {}
            if families and fam not in families:
                continue
            cases.append({"line": n, "family": fam, "key": key, "value": unescape(value),
                          "raw": value, "nccl": nccl, "check": check, "says": says,
                          "env": extra})
    return cases


def run_ni(ni, args, env):
    p = subprocess.run([ni] + args, env=env, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def check_case(ni, tmp, c):
    """check's verdict on a profile with this one line."""
    path = os.path.join(tmp, "case.env")
    with open(path, "w") as f:
        f.write("%s=%s\n" % (c["key"], c["value"]))
    # The library is 2.28.9: check by its rules alone (with no release named,
    # check would report where the later releases differ as warnings).
    rc, _, err = run_ni(ni, ["check", "--nccl-version", "2.28.9", path], {"PATH": "/usr/bin:/bin"})
    # What SGLang or vLLM do with the key themselves (init/servers.c) is
    # another matter than what NCCL reads from it: left out of the verdict.
    lines = [l for l in err.splitlines() if l.startswith(path + ":1:") and
             not re.search(r": warning: [A-Z0-9_]+=.*: (SGLang|vLLM) ", l)]
    verdict = "error" if any(": error: " in l for l in lines) else \
        "warning" if any(": warning: " in l for l in lines) else "ok"
    if (rc == 2) != (verdict == "error"):
        verdict = "exit %d with %s" % (rc, verdict)
    return verdict, "\n".join(lines)


def render_case(ni, c):
    """What render --format json says NCCL reads, with the value in the environment."""
    env = {"PATH": "/usr/bin:/bin", c["key"]: c["value"]}
    none = os.path.join(os.path.dirname(os.path.dirname(HERE)), "profiles", "none.env")
    # --all: the value is the environment's, outside the (empty) resolved set
    rc, out, err = run_ni(ni, ["render", "-q", "--all", "--format", "json", "-p", none], env)
    if rc != 0:
        # no profile at all: -p with an empty file
        return None, err
    for e in json.loads(out)["environment"]:
        if e["key"] == c["key"]:
            return e.get("nccl"), ""
    return None, "not in render's output"


def tier(c, params):
    k = c["key"]
    if c["nccl"].startswith("gpu:"):
        return "gpu"
    if k in ("NCCL_PROTO", "NCCL_ALGO"):
        return "list"
    if k in ("NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL", "NCCL_P2P_DISABLE"):
        return "level"
    if params.get(k, "").startswith("param"):
        return "param"
    if params.get(k) == "never":
        return "never"
    return "uid"


def rounds(cases):
    """Cases into NCCL processes: at most one value per key in each, and the
    keys in SOLO alone."""
    out, solo = [], []
    for c in cases:
        # on a GPU, a case whose value fails the communicator would hide the others'
        if c["key"] in SOLO or c["nccl"] == "crash" or c["env"] or c["tier"] == "gpu":
            solo.append([c])
            continue
        for r in out:
            if all(x["key"] != c["key"] for x in r):
                r.append(c)
                break
        else:
            out.append([c])
    return out + solo


def nccl_round(lib, tmp, symfile, group, params, decl, gpu):
    env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "ALL"}
    specs = ["uid"]
    for c in group:
        env.update(c["env"])
        env[c["key"]] = c["value"]
        t = c["tier"]
        if t == "param":
            specs.append("param:%s:%s" % (decl[c["key"]], c["key"]))
        elif t == "level":
            if c["key"] == "NCCL_P2P_DISABLE":
                specs.append("level:NCCL_P2P_DISABLE:NCCL_P2P_LEVEL")
            else:
                specs.append("level:-:%s" % c["key"])
        elif t == "list":
            specs.append("list:%s" % c["key"])
    if gpu:
        specs.append("gpu")
    out = os.path.join(tmp, "probe.json")
    for suffix in ("", ".log", ".child"):
        if os.path.exists(out + suffix):
            os.unlink(out + suffix)
    p = subprocess.run([sys.executable, "-S", os.path.abspath(__file__), "probe", out, lib, symfile] + specs,
                       env=env, capture_output=True, text=True, errors="replace")
    log = open(out + ".log", errors="replace").read() if os.path.exists(out + ".log") else ""
    if p.returncode != 0 or not os.path.exists(out):
        return None, log + p.stderr
    with open(out) as f:
        results = {r["spec"]: r for r in json.load(f)}
    return results, log


def log_phases(log):
    """NCCL's log split at the probe's markers: spec -> lines."""
    phases, cur = {}, "start"
    for line in log.splitlines():
        m = re.match(r"@@oracle (.*)", line)
        if m:
            cur = m.group(1)
            continue
        phases.setdefault(cur, []).append(line)
    return phases


def judge_nccl(c, results, log, phases):
    """Does what NCCL did match the case's nccl column? Returns (ok, what NCCL did)."""
    k, want, t = c["key"], c["nccl"], c["tier"]
    set_re = re.compile(r"NCCL INFO %s set by environment to (.*?)\.?$" % re.escape(k))
    inv_re = re.compile(r"NCCL INFO Invalid value .* for %s, using default" % re.escape(k))
    lines = log.splitlines()
    set_lines = [m.group(1) for m in (set_re.search(l) for l in lines) if m]
    invalid = any(inv_re.search(l) for l in lines)
    if t == "gpu":
        text = want[4:]
        if "error" in results.get("gpu", {}):
            return False, results["gpu"]["error"]
        return any(text in l for l in lines), "gpu log has it" if any(text in l for l in lines) else "not in the log"
    if t == "list":
        r = results["list:%s" % k]
        if "signal" in r:
            got = "crash"
        elif r["rc"] != 0:
            got = "invalid"
        else:
            got = "list"
        return got == want, got
    if t == "level":
        r = results[[s for s in results if s.startswith("level:") and s.endswith(
            k if k != "NCCL_P2P_DISABLE" else "NCCL_P2P_LEVEL") and (
            k != "NCCL_P2P_DISABLE" or s.startswith("level:NCCL_P2P_DISABLE"))][0]]
        if "signal" in r:
            got = "crash"
        elif k == "NCCL_P2P_DISABLE":
            got = "disabled" if r["level"] == 0 else "enabled"
            exp = "disabled" if want == "disabled" else "enabled"
            return got == exp, got
        else:
            got = "unset" if r["level"] == -2 else LEVELS[r["level"]]
        if want == "undefined":
            return True, got + " (undefined behaviour: not compared)"
        return got == want, got
    # integers and the strings the init path reads
    parts = want.split("+")
    ok, seen = True, []
    uid = results.get("uid", {})
    for part in parts:
        if re.fullmatch(r"-?\d+", part):
            got = set_lines[0] if set_lines else ("invalid" if invalid else "unset")
            seen.append(got)
            ok &= got == part
            acc = results.get("param:%s:%s" % (c.get("pname"), k))
            if acc and "value" in acc:
                seen.append("accessor %d" % acc["value"])
                ok &= acc["value"] == int(part)
        elif part == "default":
            seen.append("Invalid value" if invalid else (set_lines[0] if set_lines else "unset"))
            ok &= invalid and not set_lines
        elif part == "unset":
            seen.append("no line" if not set_lines and not invalid else "set %s" % set_lines)
            ok &= not set_lines and not invalid
        elif part.startswith("set:"):
            seen.append("set to %s" % set_lines[0] if set_lines else "no set line")
            ok &= part[4:] in set_lines
        elif part in ("uid:ok", "uid:fail"):
            got = "uid:ok" if uid.get("rc") == 0 else "uid:fail"
            seen.append(got)
            ok &= got == part
        elif part == "log:none":
            nccl_lines = [l for l in lines if " NCCL " in l]
            seen.append("%d NCCL lines" % len(nccl_lines))
            ok &= not nccl_lines
        elif part == "log:info":
            n = sum(" NCCL INFO " in l for l in lines)
            seen.append("%d INFO lines" % n)
            ok &= n > 0
        elif part == "log:noinfo":
            n = sum(" NCCL INFO " in l for l in lines)
            seen.append("%d INFO lines" % n)
            ok &= n == 0
        elif part == "ts:none":
            n = sum(bool(re.match(r"\[?\d{4}-\d\d-\d\d", l.lstrip())) for l in lines)
            seen.append("%d timestamped lines" % n)
            ok &= n == 0
        elif part == "ts:some":
            n = sum(bool(re.match(r"\[\d{4}-\d\d-\d\d", l.lstrip())) for l in lines)
            seen.append("%d timestamped lines" % n)
            ok &= n > 0
        else:
            return False, "unknown expectation %r" % part
    return ok, ", ".join(seen)


def judge_render(c, reading, ok_nccl_ints):
    """Does render's "nccl" member say what the case says NCCL reads?"""
    want, k = c["nccl"], c["key"]
    if c["tier"] == "list":
        if want == "crash":
            return reading is not None and reading.get("reads") == "undefined", reading
        if want == "invalid":
            return reading is not None and reading.get("reads") == "invalid", reading
        return reading is not None and isinstance(reading.get("reads"), dict), reading
    if c["tier"] == "level" and k != "NCCL_P2P_DISABLE":
        exp = "undefined" if want in ("crash", "undefined") else want
        return reading is not None and reading.get("reads") == exp, reading
    first = want.split("+")[0]
    if k == "NCCL_P2P_DISABLE":
        used = reading and reading.get("uses")
        return (used == 1) == (want == "disabled"), reading
    if re.fullmatch(r"-?\d+", first):
        return reading is not None and reading.get("reads") == int(first), reading
    if first in ("default", "unset"):
        return reading is not None and reading.get("reads") == first, reading
    return True, reading  # strings: render has nothing to say


def compare_matrix(c, result, reading):
    names = PROTO if c["key"] == "NCCL_PROTO" else ALGO
    if not isinstance(reading.get("reads"), dict):
        return False, reading.get("reads"), result["matrix"]
    mine = [[reading["reads"][f][t] for t in names] for f in FUNCS]
    return mine == result["matrix"], mine, result["matrix"]


def run(ni, lib, cases_path, gpu, families):
    repo = os.path.dirname(os.path.dirname(HERE))
    params, decl = load_params(repo)
    cases = load_cases(cases_path, families)
    tmp = tempfile.mkdtemp(prefix="nccl-oracle-")
    failures, covered = 0, {}
    for c in cases:
        c["tier"] = tier(c, params)
        c["pname"] = decl.get(c["key"])
        if c["key"] not in params:
            sys.exit("%s:%d: %s is not a parameter NCCL 2.28.9 reads" % (cases_path, c["line"], c["key"]))
    # check and render, one case at a time
    t0 = time.time()
    for c in cases:
        c["verdict"], c["message"] = check_case(ni, tmp, c)
        c["reading"], c["render_err"] = render_case(ni, c)
    # NCCL, many cases per process
    todo = [c for c in cases if c["tier"] != "gpu" or gpu]
    t1 = time.time()
    groups = rounds(todo)
    # the library's own functions, by their offsets in its symbol table
    wanted = {"ncclGetUniqueId", "_Z12ncclGetLevelPiPKcS1_", "_Z9parseListPKcPS0_iS1_iPi",
              "ncclFuncStr", "ncclProtoStr", "ncclAlgoStr"}
    wanted |= {mangled_param(p) for p in decl.values()}
    symfile = os.path.join(tmp, "symbols.json")
    syms = elf_symbols(lib, wanted)
    missing = sorted({"ncclGetUniqueId", "_Z12ncclGetLevelPiPKcS1_",
                      "_Z9parseListPKcPS0_iS1_iPi"} - set(syms))
    if missing:
        sys.exit("%s has no %s in its symbol table: not the libnccl 2.28.9 the cases describe"
                 % (lib, ", ".join(missing)))
    with open(symfile, "w") as f:
        json.dump(syms, f)
    for group in groups:
        gpu_round = gpu and any(c["tier"] == "gpu" for c in group)
        results, log = nccl_round(lib, tmp, symfile, group, params, decl, gpu_round)
        phases = log_phases(log) if results else {}
        for c in group:
            if results is None:
                c["nccl_ok"], c["nccl_got"] = False, "probe failed: " + log[-400:]
                continue
            c["nccl_ok"], c["nccl_got"] = judge_nccl(c, results, log, phases)
            if c["tier"] == "list" and c["nccl"] == "list" and c["nccl_ok"] and c["reading"]:
                same, mine, theirs = compare_matrix(c, results["list:%s" % c["key"]], c["reading"])
                if not same:
                    c["nccl_ok"], c["nccl_got"] = False, "matrix %s, render says %s" % (theirs, mine)
            if c["tier"] in ("param", "uid") and c["nccl_ok"]:
                # which phase read it: ncclGetUniqueId's init, or the accessor
                in_uid = any(c["key"] + " set by" in l or ("for %s," % c["key"]) in l
                             for l in phases.get("uid", []))
                c["tier"] = "uid" if in_uid or c["tier"] == "uid" else "param"
    for c in cases:
        problems = []
        if c["verdict"] != c["check"]:
            problems.append("check says %s, want %s: %s" % (c["verdict"], c["check"], c["message"]))
        elif c["says"] and c["says"] not in c["message"]:
            problems.append("check's message lacks %r: %s" % (c["says"], c["message"]))
        ok, reading = judge_render(c, c["reading"], None)
        if not ok:
            problems.append("render says %s, want %s" % (json.dumps(reading), c["nccl"]))
        if "nccl_ok" in c and not c["nccl_ok"]:
            problems.append("NCCL: %s, want %s" % (c["nccl_got"], c["nccl"]))
        status = "ok" if not problems else "FAIL"
        where = c["tier"] if "nccl_ok" in c else "gpu (not run)"
        covered.setdefault(where, set()).add(c["key"])
        print("%-4s %s:%d %s=%s [%s] nccl=%s check=%s%s" % (
            status, os.path.basename(cases_path), c["line"], c["key"],
            c["raw"] if len(c["raw"]) < 40 else c["raw"][:36] + "...", where, c["nccl"], c["check"],
            "".join("\n     " + p for p in problems)))
        failures += bool(problems)
    print("# %d cases, %d failed; check and render %.1f s, NCCL %.1f s in %d processes" % (
        len(cases), failures, t1 - t0, time.time() - t1, len(groups)))
    for where in sorted(covered):
        print("# %s: %s" % (where, " ".join(sorted(covered[where]))))
    return 1 if failures else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "probe":
        probe(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
        return 0
    if len(sys.argv) >= 5 and sys.argv[1] == "run":
        args = sys.argv[5:]
        gpu = "--gpu" in args
        fams = [args[i + 1] for i, a in enumerate(args) if a == "--family"]
        return run(sys.argv[2], sys.argv[3], sys.argv[4], gpu, fams)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
