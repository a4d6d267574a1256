#!/usr/bin/env python3
"""init/'s layout rules (init/README.md), checked from the sources.

Every include of nccl-init's own headers is spelled from init/, each part
includes only the parts its row of the table allows, and no two modules
(a .c and its .h) include each other, directly or around a loop. Prints
one line per breach and exits 1, or exits 0 silently.
"""
import os
import re
import sys

ALLOWED = {
    "lib": {"lib"},
    "pid1": {"lib", "pid1"},
    "hw": {"lib", "hw"},
    "nccl": {"lib", "hw", "nccl"},
    "sinks": {"lib", "nccl", "sinks"},
    "inspect": {"lib", "nccl", "inspect"},
}
TOP = {"main", "cli", "commands"}

root = sys.argv[1] if len(sys.argv) > 1 else "init"
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
problems = []
graph = {}  # module ("lib/buf") -> modules it includes

for dirpath, _, files in os.walk(root):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, root)
        module = rel[:-2]
        part = rel.split("/")[0] if "/" in rel else None
        with open(path) as fh:
            text = fh.read()
        for inc in include.findall(text):
            target = os.path.join(root, inc)
            if not os.path.isfile(target):
                problems.append(f"{path}: includes \"{inc}\", which is not a path from {root}/")
                continue
            tpart = inc.split("/")[0] if "/" in inc else None
            if part is None:
                pass  # main.c, cli.c, commands.c may use every part
            elif tpart is None or tpart not in ALLOWED[part]:
                problems.append(f"{path}: {part}/ may not include \"{inc}\" (init/README.md)")
            tmod = inc[:-2]
            if tmod != module:
                graph.setdefault(module, set()).add(tmod)

# A cycle between modules: depth-first search, reporting each loop once.
seen, onpath, loops = set(), [], set()

def visit(m):
    if m in onpath:
        loop = onpath[onpath.index(m):]
        k = min(range(len(loop)), key=lambda i: loop[i])
        loops.add(tuple(loop[k:] + loop[:k]))
        return
    if m in seen:
        return
    seen.add(m)
    onpath.append(m)
    for n in sorted(graph.get(m, ())):
        visit(n)
    onpath.pop()

for m in sorted(graph):
    visit(m)
for loop in sorted(loops):
    problems.append("include cycle: " + " -> ".join(loop + (loop[0],)))

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
