#!/usr/bin/env python3
"""Writes init/nccl/nccl_releases.c, NCCL's rules per release, from the
reference data (../shared/reference/ by default):

  nccl-X.Y.Z-param-names.txt    the names each release reads
  nccl-X.Y.Z-value-rules.json   the value rules; "changed_in" marks a change;
                                _meta.config_file how it reads nccl.conf
  nccl-versions.md              the TAG:file:line citations

The C rule each change maps to is a value_rule of init/nccl/nccl_table.c
(the engine, validate.c, needs one per way of reading); CHANGES below names
it, and this script refuses to write anything when a "changed_in" of the
JSON has no entry here, when an entry's release is not in that
"changed_in", or when its citation is not in nccl-versions.md: the data
decide, the map only names the C rule.

  scripts/nccl-releases.py [--reference DIR] [--check FILE]

--check FILE compares instead of printing (exit 1 when they differ).
"""
import argparse
import json
import os
import re
import sys

RELEASES = ["2.28.9", "2.29.7", "2.30.7"]

# key: [(release it changed in, as "changed_in" says, C rule, citation)]
CHANGES = {
    "NCCL_CTA_POLICY": [("2.29.2", "R_CTA_POLICY_ENUM", "v2.29.7-1:src/init.cc:73-116")],
    "NCCL_NET_GDR_LEVEL": [("2.29.2", "R_GDR_LEVEL_P2C", "v2.29.7-1:src/graph/paths.cc:460")],
    "NCCL_NO_CACHE": [("2.29.7", "R_NO_CACHE", "v2.29.7-1:src/misc/param.cc:83-104"),
                      ("2.30.3", "R_NO_CACHE_TRIM", "v2.30.7-1:src/param/param.cc:23-41")],
    "NCCL_DEBUG": [("2.30.7", "R_DEBUG_TRIM", "v2.30.7-1:src/include/param/parser_enum.h:22")],
    "NCCL_DEBUG_SUBSYS": [("2.30.3", "R_SUBSYS_BITSET",
                           "v2.30.7-1:src/include/param/parser_bitset.h:32-51")],
    "NCCL_DEBUG_TIMESTAMP_LEVELS": [("2.30.7", "R_TS_LEVELS_BITSET",
                                     "v2.30.7-1:src/include/param/parser_bitset.h:32-51")],
    "NCCL_WARN_ENABLE_DEBUG_INFO": [("2.30.7", "R_BOOL",
                                     "v2.30.7-1:src/include/param/parser_default.h:46-50")],
    "NCCL_SET_THREAD_NAME": [("2.30.7", "R_BOOL",
                              "v2.30.7-1:src/include/param/parser_default.h:46-50")],
    "NCCL_PARAM_DUMP_ALL": [("2.30.3", "R_BOOL",
                             "v2.30.7-1:src/include/param/parser_default.h:46-50")],
    "NCCL_IB_HCA": [("2.30.7", "R_IB_HCA_ANYPORT", "v2.30.7-1:src/misc/utils.cc:189-216")],
}
# "changed_in" entries that change no reading check can judge.
NO_RULE = {"NCCL_PROTO": "the LL128 default only; the grammar is unchanged"}


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def first_release(changed):
    """The first known release that has a change made in release changed."""
    for r in RELEASES:
        if vkey(r) >= vkey(changed):
            return r
    sys.exit(f"nccl-releases.py: {changed} is newer than every known release")


def conf_rules(ref):
    """How each release reads nccl.conf, from its _meta.config_file (2.28.9
    has none: 2.29.7's says what is "unchanged from 2.28.9")."""
    texts = []
    for r in RELEASES:
        with open(os.path.join(ref, f"nccl-{r}-value-rules.json")) as f:
            texts.append(json.load(f).get("_meta", {}).get("config_file"))
    out = []
    for i, r in enumerate(RELEASES):
        text = texts[i]
        if text is None and i + 1 < len(RELEASES) and (texts[i + 1] or "").startswith(
                f"unchanged from {r}"):
            text = texts[i + 1]
        if text is None:
            sys.exit(f"nccl-releases.py: nothing says how {r} reads nccl.conf")
        m = re.search(r"fgets into (\d+) bytes", text)
        if not m and "getline" not in text:
            sys.exit(f"nccl-releases.py: {r}: neither fgets nor getline in '{text}'")
        line_max = int(m.group(1)) - 1 if m else 0
        strips_cr = "CR stripped" in text
        if not strips_cr and "CR kept" not in text:
            sys.exit(f"nccl-releases.py: {r}: what happens to a CR is not in '{text}'")
        home = "via $HOME" in text
        cite = re.search(r"\((src/[^)]*:[0-9-]+)\)\s*$", text)
        out.append((line_max, strips_cr, home, cite.group(1) if cite else ""))
    return out


def load(ref):
    names = {}
    for r in RELEASES:
        with open(os.path.join(ref, f"nccl-{r}-param-names.txt")) as f:
            names[r] = {l.strip() for l in f if l.strip().startswith("NCCL_")}
    changed = {}
    for r in RELEASES:
        with open(os.path.join(ref, f"nccl-{r}-value-rules.json")) as f:
            for key, rule in json.load(f).items():
                if isinstance(rule, dict) and "changed_in" in rule:
                    changed[key] = rule["changed_in"]
    with open(os.path.join(ref, "nccl-versions.md")) as f:
        md = f.read()
    return names, changed, md


def rules(changed, md):
    out = []
    for key, text in sorted(changed.items()):
        if key in NO_RULE:
            continue
        if key not in CHANGES:
            sys.exit(f"nccl-releases.py: {key} changed in {text}: no C rule for it in CHANGES")
        for when, rule, source in CHANGES[key]:
            if when not in text:
                sys.exit(f"nccl-releases.py: {key}: {when} is not in changed_in '{text}'")
            where = source.split(":", 1)[1]
            tail = where.split("/")[-1]
            if where not in md and tail not in md:
                sys.exit(f"nccl-releases.py: {key}: {source} is not cited in nccl-versions.md")
            out.append((key, RELEASES.index(first_release(when)), rule, when, source))
    for key in CHANGES:
        if key not in changed:
            sys.exit(f"nccl-releases.py: {key} has no changed_in in the reference")
    return out


def generate(ref):
    names, changed, md = load(ref)
    lines = ["/* Generated by scripts/nccl-releases.py from ../shared/reference/: do not edit.",
             " * NCCL's releases, the names each reads, and the value rules that changed",
             " * (nccl_table.c's rules; the rest are 2.28.9's). */",
             '#include "nccl/releases.h"', "",
             "const char *const nccl_releases[NCCL_RELEASES] = { "
             + ", ".join(f'"{r}"' for r in RELEASES) + " };", "",
             "/* bit i: nccl_releases[i] reads the name; strcmp order. */",
             "const struct release_name release_names[] = {"]
    everyone = sorted(set().union(*names.values()))
    for n in everyone:
        mask = sum(1 << i for i, r in enumerate(RELEASES) if n in names[r])
        lines.append(f'    {{ "{n}", {mask} }},')
    lines += ["};",
              "const size_t release_names_count = sizeof release_names / sizeof release_names[0];",
              "", "/* A key's rule from release index `from` on; by key, then release. */",
              "const struct release_rule release_rules[] = {"]
    for key, frm, rule, when, source in rules(changed, md):
        lines.append(f'    {{ "{key}", {frm}, {rule}, "{when}", "{source}" }},')
    lines += ["};",
              "const size_t release_rules_count = sizeof release_rules / sizeof release_rules[0];",
              "", "/* How each release reads nccl.conf (_meta.config_file). */",
              "const struct release_conf release_confs[NCCL_RELEASES] = {"]
    for r, (line_max, cr, home, cite) in zip(RELEASES, conf_rules(ref)):
        where = f" /* {cite} */" if cite else ""
        lines.append(f"    {{ {line_max}, {str(cr).lower()}, {str(home).lower()} }}, /* {r} */{where}")
    lines += ["};", ""]
    return "\n".join(lines)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", default=os.path.join(here, "..", "..", "shared", "reference"))
    ap.add_argument("--check")
    a = ap.parse_args()
    text = generate(a.reference)
    if a.check:
        with open(a.check) as f:
            if f.read() != text:
                print(f"{a.check} differs from scripts/nccl-releases.py's output", file=sys.stderr)
                return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
