#!/usr/bin/env bash
# Benchmark: what the Python site hook costs each interpreter start.
#
# Three copies of Debian's python3 in prefix layout under build/bench/ (the
# binary copied, the stdlib a farm of links, without Debian's own
# sitecustomize), started in one interleaved run:
#   none      no sitecustomize at all (the anchor)
#   hook      nccl-init's hook, byte-compiled by nccl-init
#   hook-nopyc the same hook with no cached .pyc and none written
#             (PYTHONDONTWRITEBYTECODE), as for a user who cannot write the
#             stdlib's __pycache__
# As root the benchmark runs itself again inside scripts/sandbox.sh
# (copy-on-write /etc, /usr and /run), where nccl-init writes the hooks and
# the record at their real paths, and a start of nccl-init stays running
# as the record's writer (the readers take a record only then); each hooked
# start opens that record and keeps it open, as in production. The
# machine's own sink files are checked to be the same afterwards
# (scripts/bench/guard.bash, exit 1 if not).
#
#   BENCH_ROUNDS (default 400), BENCH_WARMUP (default 20)
#
# It reports, it does not judge: exit 0 once the measurement ran.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_ROUNDS:-400}
WARMUP=${BENCH_WARMUP:-20}
PY=/usr/bin/python3
NI=$PWD/build/nccl-init
DIR=$PWD/build/bench/python
TIMER=build/bench/spawn-timer
PYV=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
STDLIB=/usr/lib/python$PYV

[[ -x $TIMER && ! scripts/bench/spawn-timer.c -nt $TIMER ]] ||
    { mkdir -p build/bench && gcc -O2 -Wall -Wextra -o "$TIMER" scripts/bench/spawn-timer.c; }

make_prefix() {
    local p=$1
    rm -rf "$p"
    mkdir -p "$p/bin" "$p/lib/python$PYV/__pycache__"
    cp "$(readlink -f "$PY")" "$p/bin/python$PYV"
    for f in "$STDLIB"/*; do
        case ${f##*/} in sitecustomize.py | __pycache__ | site-packages | dist-packages) continue ;; esac
        ln -s "$f" "$p/lib/python$PYV/${f##*/}"
    done
}

# shellcheck source=scripts/bench/guard.bash
source scripts/bench/guard.bash
if [[ ${NCCL_INIT_SANDBOX:-} != 1 ]]; then
    [[ $(id -u) == 0 ]] || { echo "bench-python-hook: needs root (it runs in scripts/sandbox.sh)"; exit 0; }
    guard_begin
    scripts/sandbox.sh "$0" "$@"
    guard_end bench-python-hook
    exit 0
fi
for v in none hook hook-nopyc; do make_prefix "$DIR/$v"; done
for v in hook hook-nopyc; do
    "$NI" -q --sinks python --profile-dir profiles -p pcie-8gpu \
        --python "$DIR/$v/bin/python$PYV" -- true 2>/dev/null
done
bench_writer "$NI" --sinks record --profile-dir profiles -p pcie-8gpu
[ -s "$DIR/hook/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc" ] ||
    { echo "bench-python-hook: nccl-init did not byte-compile the hook" >&2; exit 1; }
for v in hook hook-nopyc; do
    out=$(env -i "$DIR/$v/bin/python$PYV" -c 'import os, sitecustomize as s
print(os.environ.get("NCCL_PROTO"), os.readlink("/proc/self/fd/%d" % s._nccl_record))')
    [ "$out" = "LL /run/nccl-init/profile.env" ] ||
        { echo "bench-python-hook: the $v interpreter does not apply the hook: $out" >&2; exit 1; }
done
# No cached .pyc for the hook, and none written during the run
# (PYTHONDONTWRITEBYTECODE: root ignores a read-only __pycache__).
rm -f "$DIR/hook-nopyc/lib/python$PYV/__pycache__/sitecustomize".*

echo "== Python start-up with and without the nccl-init hook =="
echo "machine: $(nproc) CPUs, $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC'); shared and noisy"
echo "python:  $("$PY" --version) (a copy in prefix layout, without Debian's sitecustomize)"
echo "runs:    $ROUNDS interleaved rounds (+$WARMUP warm-up) of 'python -c pass' with an empty"
echo "         environment and PYTHONDONTWRITEBYTECODE=1; hook-nopyc has no cached .pyc for"
echo "         the hook, as for a user who cannot write the stdlib's __pycache__"
echo
cmds=()
for v in none hook hook-nopyc; do
    cmds+=(:: "$v" /usr/bin/env -i PYTHONDONTWRITEBYTECODE=1 "$DIR/$v/bin/python$PYV" -c pass)
done
results=$("$TIMER" "$ROUNDS" "$WARMUP" "${cmds[@]}")
awk '
    { label[NR] = $1; med[$1] = $4 / 1000; p90[$1] = $5 / 1000; mn[$1] = $3 / 1000 }
    END {
        base = med["none"]
        printf "%-11s %10s %11s %10s %13s %8s\n", "python", "min µs", "median µs", "p90 µs", "cost µs", "ratio"
        for (i = 1; i <= NR; i++) {
            l = label[i]
            printf "%-11s %9.1f %10.1f %9.1f %12s %7.3fx\n", l, mn[l], med[l], p90[l], \
                (l == "none" ? "(anchor)" : sprintf("%+.1f", med[l] - base)), med[l] / base
        }
    }' <<<"$results"
echo
