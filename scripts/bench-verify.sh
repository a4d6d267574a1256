#!/usr/bin/env bash
# Benchmark: nccl-init verify auditing 1000 processes, against `ps -e` as
# the anchor (it reads the same /proc entries), in one interleaved run.
#
#   BENCH_PROCS (default 1000), BENCH_ROUNDS (default 20)
#
# It reports, it does not judge: exit 0 once the measurement ran.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PROCS=${BENCH_PROCS:-1000}
ROUNDS=${BENCH_ROUNDS:-20}
NI=$PWD/build/nccl-init
ROOT=$PWD/build/bench/verify-root
TIMER=build/bench/spawn-timer

[[ -x $TIMER && ! scripts/bench/spawn-timer.c -nt $TIMER ]] ||
    { mkdir -p build/bench && gcc -O2 -Wall -Wextra -o "$TIMER" scripts/bench/spawn-timer.c; }

# shellcheck source=scripts/bench/guard.bash
source scripts/bench/guard.bash
guard_begin
# The record verify reads, written under a private root (never /run), and
# checked by guard_end to stay so.
rm -rf "$ROOT"
mkdir -p "$ROOT/etc" "$ROOT/run"
pids=()
writer=
cleanup() { kill $writer "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
# its writer runs while verify reads it
"$NI" -q --root "$ROOT" --sinks record --profile-dir profiles -p pcie-8gpu -- sleep 100000 2>/dev/null &
writer=$!
until grep -qx "NCCL_INIT_PID=$writer" "$ROOT/run/nccl-init/profile.env" 2>/dev/null; do sleep 0.05; done
mapfile -t values < <(grep -v '^#' "$ROOT/run/nccl-init/profile.env" | grep -v '^NCCL_INIT_\(PID\|START\)=')

# PROCS sleeping processes that carry the resolved set, so that every one
# passes and verify exits 0 (the timer stops at a failing run).
for ((i = 0; i < PROCS; i++)); do
    env "${values[@]}" sleep 600 &
    pids+=($!)
done
sleep 1
total=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
# verify walks all of /proc either way; --pid names the ones to audit (all
# of them pass, where --all would also audit, and fail, the machine's own).
args=()
for p in "${pids[@]}"; do args+=(--pid "$p"); done

echo "== nccl-init verify: $PROCS processes audited, $total in /proc walked =="
echo "machine: $(nproc) CPUs, $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC'); shared and noisy"
"$NI" verify --root "$ROOT" "${args[@]}" | tail -n 1
results=$("$TIMER" "$ROUNDS" 2 \
    :: ps-e /bin/ps -e -o pid=,comm= \
    :: verify "$NI" verify --root "$ROOT" "${args[@]}")
awk '
    { med[$1] = $4 / 1e6; mn[$1] = $3 / 1e6; p90[$1] = $5 / 1e6 }
    END {
        printf "%-8s %9s %11s %9s %8s\n", "command", "min ms", "median ms", "p90 ms", "ratio"
        printf "%-8s %9.1f %11.1f %9.1f %7s\n", "ps-e", mn["ps-e"], med["ps-e"], p90["ps-e"], "1.00x"
        printf "%-8s %9.1f %11.1f %9.1f %7.2fx\n", "verify", mn["verify"], med["verify"], p90["verify"], med["verify"] / med["ps-e"]
    }' <<<"$results"
echo
guard_end bench-verify
