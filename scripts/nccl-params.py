#!/usr/bin/env python3
"""Lists every environment variable an NCCL source tree reads, and where.

NCCL reads its parameters in three ways:
  - NCCL_PARAM(Name, "ENV", default) (src/include/param.h) defines
    ncclParamName(), which parses NCCL_ENV once per process with
    ncclLoadParam (src/misc/param.cc): strtoll(s, NULL, 0) into an int64;
  - from 2.30.3, the parameter registry: DEFINE_NCCL_PARAM(name, type,
    NCCL_KEY, default, flags, parser, desc) (src/include/param/param.h:37-42
    at v2.30.7-1), whose key is a bare identifier that the macro
    stringifies, loaded through the env plugin (src/param/param.cc);
  - direct reads: ncclGetEnv("NCCL_X") / getenv("NCCL_X") (and debug.cc's
    getEnvFunc, and ncclGetLevel's disableEnv/levelEnv arguments), each
    parsed by the code around it.

For each name this prints one tab-separated line:

  NAME  READ  ACCESSOR  DEFAULT  DECLARED  USED_IN

  READ      param (an int64 through ncclLoadParam), registry (a
            DEFINE_NCCL_PARAM), env (a direct read, parsed where it is
            read), param+env or registry+env (both), or never (an
            NCCL_PARAM whose ncclParamName() nobody calls)
  ACCESSOR  the function NCCL_PARAM defines (ncclParamName), or the
            registry object's name; "-" for none
  DEFAULT   NCCL_PARAM's or DEFINE_NCCL_PARAM's default expression; "-"
            for direct reads
  DECLARED  file:line of the NCCL_PARAM or DEFINE_NCCL_PARAM, or of the
            first direct read
  USED_IN   file:function of every ncclParamName() call or direct read,
            comma-separated

nccl-init's table (init/nccl_table.c) is checked against this list by
tests/unit/nccl/test_validate.c: the same names, and every "param" typed as an
integer. The committed output is init/nccl/nccl_params.tsv:

  scripts/nccl-params.py --git /path/to/nccl --tag v2.28.9-1 > init/nccl/nccl_params.tsv
  scripts/nccl-params.py --src /path/to/nccl/src > init/nccl/nccl_params.tsv
"""
import argparse
import os
import re
import subprocess
import sys

EXTS = (".cc", ".cu", ".h", ".cpp", ".c")
# Code that is not libnccl's (the GIN DOCA copy reads its own DOCA_* names).
SKIP = ("transport/gdaki/doca-gpunetio/",)

PARAM_DEF = re.compile(r'^\s*NCCL_PARAM\(\s*(\w+)\s*,\s*"(\w+)"\s*,\s*(.*?)\)\s*;?\s*$')
PARAM_USE = re.compile(r"\bncclParam(\w+)\s*\(\s*\)")
PARAM_DECL = re.compile(r"\bint64_t\s+ncclParam\w+\s*\(\s*\)\s*;")
COMMENT = re.compile(r"/\*.*?\*/|//.*$")
MACRO = re.compile(r"^\s*#\s*define\s+(\w+)")
DIRECT = re.compile(r'\b(ncclGetEnv|getenv|getEnvFunc)\s*\(\s*"(NCCL_\w+)"\s*\)')
# The registry (2.30.3 on): the declaration may span lines; the key is the
# third argument, a bare NCCL_ identifier (not a string).
REGISTRY = re.compile(r"^[ \t]*DEFINE_NCCL_PARAM\(\s*(\w+)\s*,\s*[^,]+?\s*,\s*(NCCL_\w+)\s*,\s*([^,]*?)\s*,",
                      re.M)
LEVEL = re.compile(r'\bncclGetLevel\s*\([^,]+,\s*(?:"(NCCL_\w+)"|NULL)\s*,\s*"(NCCL_\w+)"\s*\)')
# A function definition starts at column 0: "type name(" or "type Class::name(".
# At least a return type before the name: "alignas(8)" or "NCCL_API(" are not.
FUNC = re.compile(r"^(?!#|//|/\*|\s|NCCL_PARAM|NCCL_API|return|typedef|using)"
                  r"[A-Za-z_][\w:<>\*&\s]*?[\s\*&]+(?:\w+::)*(~?[A-Za-z_]\w*)\s*\(")


def sources_from_dir(root):
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(EXTS):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                if not rel.startswith(SKIP):
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        yield rel, fh.read()


def sources_from_git(repo, tag):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", tag, "src/"],
                         check=True, capture_output=True, text=True).stdout.split()
    for path in out:
        rel = path[len("src/"):]
        if path.endswith(EXTS) and not rel.startswith(SKIP):
            text = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (tag, path)], check=True,
                                  capture_output=True).stdout.decode("utf-8", "replace")
            yield rel, text


def scan(files):
    params = {}    # Name -> (ENV, default, where)
    uses = {}      # Name -> [file:function]
    direct = {}    # NCCL_X -> [where, [file:function]]
    registry = {}  # NCCL_X -> (object, default, where)
    for rel, text in files:
        if "DEFINE_NCCL_PARAM" in text:
            code = "\n".join(COMMENT.sub("", line) for line in text.split("\n"))
            for m in REGISTRY.finditer(code):
                if "#" in code[code.rfind("\n", 0, m.start()) + 1:m.start(1)]:
                    continue  # the macro's own #define
                n = code.count("\n", 0, m.start(2)) + 1
                registry.setdefault(m.group(2), (m.group(1), m.group(3), "%s:%d" % (rel, n)))
        func = "-"
        for n, line in enumerate(text.split("\n"), 1):
            line = COMMENT.sub("", line)
            m = FUNC.match(line)
            if m and not line.rstrip().endswith(";"):
                func = m.group(1)
            m = MACRO.match(line)
            if m:
                func = "#define " + m.group(1)
            elif func.startswith("#define") and not line.startswith((" ", "\t")):
                func = "-"
            if PARAM_DECL.search(line):
                continue
            m = PARAM_DEF.match(line)
            if m:
                params[m.group(1)] = ("NCCL_" + m.group(2), m.group(3).strip(), "%s:%d" % (rel, n))
                continue
            if "define NCCL_PARAM" in line:
                continue
            for m in PARAM_USE.finditer(line):
                uses.setdefault(m.group(1), []).append("%s:%s" % (rel, func))
            found = [m.group(2) for m in DIRECT.finditer(line)]
            for m in LEVEL.finditer(line):
                found += [g for g in m.groups() if g]
            for name in found:
                d = direct.setdefault(name, ["%s:%d" % (rel, n), []])
                d[1].append("%s:%s" % (rel, func))
    rows = {}
    for pname, (env, deft, where) in params.items():
        # A parameter whose ncclParam...() nobody calls is never read.
        rows[env] = ("param" if pname in uses else "never", "ncclParam" + pname, deft, where,
                     uses.get(pname, []))
    for env, (obj, deft, where) in registry.items():
        rows[env] = ("registry", obj, deft, where, [])
    for env, (where, used) in direct.items():
        if env in rows:
            read, acc, deft, w, u = rows[env]
            rows[env] = ("env" if read == "never" else read + "+env", acc, deft, w, u + used)
        else:
            rows[env] = ("env", "-", "-", where, used)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--src", help="an NCCL src/ directory")
    g.add_argument("--git", help="an NCCL git repository (with --tag)")
    ap.add_argument("--tag", default="v2.28.9-1")
    a = ap.parse_args()
    files = sources_from_dir(a.src) if a.src else sources_from_git(a.git, a.tag)
    rows = scan(files)
    print("# NCCL %s: every NCCL_* environment variable libnccl reads." % (a.tag if a.git else a.src))
    print("# Generated by scripts/nccl-params.py; do not edit.")
    print("# name\tread\taccessor\tdefault\tdeclared\tused_in")
    for env in sorted(rows):
        read, acc, deft, where, used = rows[env]
        seen = []
        for u in used:
            if u not in seen:
                seen.append(u)
        print("\t".join((env, read, acc, deft.replace("\t", " "), where, ",".join(seen) or "-")))


if __name__ == "__main__":
    sys.exit(main())
