#!/usr/bin/env bash
# Benchmark: the init's own memory (VmRSS of /proc/PID/status) while it
# supervises a command, after each of
#
#   baseline  -p pcie-8gpu, --sinks none, a small environment
#   (a)       a 4 MB /etc/environment under a private --root, every sink on,
#             so that nccl-init reads it and rewrites it
#   (b)       100 000 inherited environment variables
#   (c)       10 000 orphans reparented to it and reaped (before and after)
#   (d)       10 000 real-time signals delivered during a stop (before and after)
#
# The init runs as a subreaper (not PID 1), the way `docker run --init`-less
# images and the tests' "subreaper" mode run it: orphans of its tree come to
# it all the same. (c) and (d) print VmRSS before and after the events, so
# that "flat over events" is visible; VmHWM is the peak, start-up included.
# Run by `make bench`.
#
#   BENCH_MEMORY_ENV_BYTES  size of (a)'s /etc/environment (default 4000000:
#                           under the 4 MiB a sink reads, init/lib/atomic.c)
#   BENCH_MEMORY_VARS       (b)'s inherited variables (default 100000)
#   BENCH_MEMORY_ORPHANS    (c)'s orphans (default 10000)
#   BENCH_MEMORY_SIGNALS    (d)'s signals (default 10000)
#
# Safety: (a) writes its sinks under build/bench/memory/root only (--root,
# a command that is not Python, no NCCL_CONF_FILE); every other run has
# --sinks none. The script checks that the machine's /etc/environment,
# /etc/nccl.conf, /run/nccl-init and Python sitecustomize files are the same
# afterwards (exit 1 if not). Everything it writes is under build/. It
# reports, it does not gate: exit 0 once the measurements ran.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ENV_BYTES=${BENCH_MEMORY_ENV_BYTES:-4000000}
VARS=${BENCH_MEMORY_VARS:-100000}
ORPHANS=${BENCH_MEMORY_ORPHANS:-10000}
SIGNALS=${BENCH_MEMORY_SIGNALS:-10000}
for v in ENV_BYTES VARS ORPHANS SIGNALS; do
	if ! [[ ${!v} =~ ^[1-9][0-9]*$ ]]; then
		echo "bench-memory: BENCH_MEMORY_$v=${!v}: expected a whole number >= 1" >&2
		exit 2
	fi
done

SRC_INIT=build/nccl-init
W=$PWD/build/bench/memory
# Measured from a copy: build/nccl-init may be rebuilt while this runs.
INIT=$W/nccl-init
ORPHANS_BIN=$W/orphans
ROOT=$W/root
BASE=(-q --profile-dir "$PWD/profiles" -p pcie-8gpu)
# The children's environment: nothing of the caller's, above all no
# NCCL_CONF_FILE, which the nccl-conf sink would write as given.
ENV0=(env -i PATH=/usr/bin:/bin)

if [[ ! -x $SRC_INIT ]]; then
	echo "bench-memory: $SRC_INIT missing; run 'make bench' (or 'make $SRC_INIT') first" >&2
	exit 2
fi
mkdir -p "$W/tmp"
export TMPDIR=$W/tmp
cp "$SRC_INIT" "$INIT.new"
mv -f "$INIT.new" "$INIT"
if [[ ! -x $ORPHANS_BIN || tests/helpers/orphans.c -nt $ORPHANS_BIN ]]; then
	gcc -O2 -Wall -Wextra -o "$ORPHANS_BIN.new" tests/helpers/orphans.c
	mv -f "$ORPHANS_BIN.new" "$ORPHANS_BIN"
fi

# --- what must not change ----------------------------------------------------
# shellcheck source=scripts/bench/guard.bash
source scripts/bench/guard.bash
guard_begin

# --- the init under test ---------------------------------------------------------
# The pid of the init now running (a job of this shell), or empty.
pid=
field() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null; }
until_true() { # SECONDS WHAT COMMAND...: polls COMMAND every 10 ms
	local deadline=$((SECONDS + $1)) what=$2
	shift 2
	until "$@"; do
		if ((SECONDS > deadline)); then
			echo "bench-memory: timed out waiting for $what" >&2
			return 1
		fi
		sleep 0.01
	done
}
# Stops the init: SIGTERM; a second SIGTERM kills what is left at once.
stop_init() {
	[[ -n $pid ]] || return 0
	local p=$pid i
	pid=
	kill -TERM "$p" 2>/dev/null || true
	for ((i = 0; i < 500; i++)); do
		kill -0 "$p" 2>/dev/null || break
		if ((i == 100)); then kill -TERM "$p" 2>/dev/null || true; fi
		sleep 0.01
	done
	if kill -0 "$p" 2>/dev/null; then
		echo "bench-memory: init $p did not stop; SIGKILL" >&2
		kill -KILL "$p" 2>/dev/null || true
	fi
	wait "$p" 2>/dev/null || true
}
trap stop_init EXIT

# Starts "${ENV0[@]}" INIT ARGS... in the background, then waits for READY,
# which the command writes once it runs.
start_init() { # LOG READY ARGS...
	local log=$1 ready=$2
	shift 2
	rm -f "$ready"
	"$@" 2>"$log" &
	pid=$!
	until_true 30 "$ready" test -e "$ready"
	sleep 0.2 # the parent's side of the start (the record, the log line) ends
}
no_signal_pending() {
	local l
	l=$(grep -E '^(ShdPnd|SigPnd):' "/proc/$pid/status")
	! grep -qv ':[[:space:]]*0*$' <<<"$l"
}
children() { wc -w <"/proc/$pid/task/$pid/children"; }
only_main_child() { [[ $(children) == 1 ]]; }

rows=()
row() { # NAME RSS_BEFORE RSS_AFTER HWM NOTE
	rows+=("$1|$2|$3|$4|$5")
}

echo "== nccl-init memory while it supervises (VmRSS, kB) =="
echo "date    : $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine : nproc $(nproc), uname -r $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit  : $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- init 2>/dev/null || echo ' (init/ modified)')"
echo "binary  : $SRC_INIT ($(stat -c %s "$INIT") bytes), as a subreaper; -q -p pcie-8gpu"
echo

# shellcheck disable=SC2016 # the child's own $0
IDLE='echo >"$0"; exec sleep 100000'

# --- baseline --------------------------------------------------------------------
start_init "$W/baseline.log" "$W/ready" "${ENV0[@]}" "$INIT" "${BASE[@]}" --sinks none -- \
	sh -c "$IDLE" "$W/ready"
row "baseline: --sinks none" - "$(field "$pid" VmRSS)" "$(field "$pid" VmHWM)" "sh -> sleep"
stop_init

# --- (a) a 4 MB /etc/environment, every sink on, under --root -----------------
rm -rf "$ROOT"
mkdir -p "$ROOT/etc" "$ROOT/run"
# Lines as an image's /etc/environment has them, to ENV_BYTES bytes.
awk -v n="$ENV_BYTES" 'BEGIN {
	v = sprintf("%100s", ""); gsub(/ /, "x", v)
	for (i = 0; size + 120 <= n; i++) { l = sprintf("BENCH_%06d=\"%s\"", i, v); print l; size += length(l) + 1 }
	pad = n - size - 1; if (pad > 0) { p = sprintf("%" pad "s", ""); gsub(/ /, "#", p); print p }
}' >"$ROOT/etc/environment"
env_before=$(stat -c %s "$ROOT/etc/environment")
start_init "$W/etc-environment.log" "$W/ready" "${ENV0[@]}" "$INIT" "${BASE[@]}" --root "$ROOT" -- \
	sh -c "$IDLE" "$W/ready"
rss=$(field "$pid" VmRSS) hwm=$(field "$pid" VmHWM)
stop_init
env_after=$(stat -c %s "$ROOT/etc/environment")
if grep -q '^# BEGIN nccl-init' "$ROOT/etc/environment"; then
	note="$env_before -> $env_after bytes, block written"
else
	note="$env_before bytes, NOT rewritten (see $W/etc-environment.log)"
fi
row "(a) 4 MB /etc/environment, sinks on" - "$rss" "$hwm" "$note"

# --- (b) 100 000 inherited variables -----------------------------------------------
# Python builds the environment and execs the init: no shell loop, and the
# job's pid is the init's.
# shellcheck disable=SC2016 # the child's own $0
start_init "$W/vars.log" "$W/ready" python3 -S -c '
import os, sys
n = int(sys.argv[1])
env = {"PATH": "/usr/bin:/bin"}
env.update(("E%d" % i, "1") for i in range(n))
os.execve(sys.argv[2], sys.argv[2:], env)
' "$VARS" "$INIT" "${BASE[@]}" --sinks none -- sh -c "$IDLE" "$W/ready"
got=$(tr '\0' '\n' <"/proc/$pid/environ" | grep -c '^E[0-9]*=' || true)
row "(b) $VARS inherited variables" - "$(field "$pid" VmRSS)" "$(field "$pid" VmHWM)" \
	"$got in the init's environ"
stop_init

# --- (c) orphans reparented and reaped ----------------------------------------------
# The main child waits for GO, runs the helper (whose grandchildren are
# orphaned to the init), writes DONE and sleeps.
rm -f "$W/go" "$W/done"
# shellcheck disable=SC2016 # the child's own positional parameters
ORPHAN_CHILD='echo >"$0"; while [ ! -e "$1" ]; do sleep 0.01; done; "$2" "$3"; echo >"$4"; exec sleep 100000'
start_init "$W/orphans.log" "$W/ready" "${ENV0[@]}" "$INIT" "${BASE[@]}" --sinks none -- \
	sh -c "$ORPHAN_CHILD" "$W/ready" "$W/go" "$ORPHANS_BIN" "$ORPHANS" "$W/done"
before=$(field "$pid" VmRSS)
t0=$(date +%s.%N)
echo >"$W/go"
until_true 300 "$ORPHANS orphans" test -e "$W/done"
# Reaped: the init has no child left but the main one.
until_true 60 "the orphans to be reaped" only_main_child
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
row "(c) $ORPHANS orphans reaped" "$before" "$(field "$pid" VmRSS)" "$(field "$pid" VmHWM)" \
	"all reaped, ${took} s"
stop_init

# --- (d) signals during a stop -------------------------------------------------------
# A main child that ignores SIGTERM (so the stop lasts: --grace 300) and
# SIGRTMIN (so that the forwarded signals leave it be). Real-time signals
# queue where standard ones would merge: each one is delivered. Bursts of
# 1000, drained in between, stay under RLIMIT_SIGPENDING.
SIG_CHILD='
import signal, sys, time
for s in (signal.SIGTERM, signal.SIGRTMIN): signal.signal(s, signal.SIG_IGN)
open(sys.argv[1], "w").close()
while True: time.sleep(1)
'
start_init "$W/signals.log" "$W/ready" "${ENV0[@]}" "$INIT" "${BASE[@]}" --sinks none --grace 300 -- \
	python3 -S -c "$SIG_CHILD" "$W/ready"
kill -TERM "$pid"
until_true 30 "the stop signal to be taken" no_signal_pending
before=$(field "$pid" VmRSS)
sent=0
while ((sent < SIGNALS)); do
	k=$((SIGNALS - sent < 1000 ? SIGNALS - sent : 1000))
	for ((i = 0; i < k; i++)); do
		kill -s RTMIN "$pid"
	done
	sent=$((sent + k))
	until_true 120 "the signals to be taken" no_signal_pending
done
row "(d) $SIGNALS signals during a stop" "$before" "$(field "$pid" VmRSS)" "$(field "$pid" VmHWM)" \
	"SIGRTMIN, forwarded; stop pending"
stop_init

# --- the table -----------------------------------------------------------------------
printf '%-40s %10s %10s %8s %10s  %s\n' scenario "before" "VmRSS" change VmHWM note
for r in "${rows[@]}"; do
	IFS='|' read -r name b a h n <<<"$r"
	if [[ $b == - ]]; then
		ch=-
	else
		ch=$(printf '%+d' $((a - b)))
	fi
	printf '%-40s %10s %10s %8s %10s  %s\n' "$name" "$b" "$a" "$ch" "$h" "$n"
done
echo
echo "kB from /proc/PID/status of the init while it supervises; before: VmRSS just before"
echo "the events; VmHWM: the peak so far, start-up included. (d)'s stop is ended by a"
echo "second SIGTERM (its main child ignores the first): its warning below is expected."
for f in "$W"/*.log; do
	if [[ -s $f ]]; then
		echo "stderr of $(basename "$f" .log) (-q):"
		sed 's/^/  | /' "$f"
	fi
done

guard_end bench-memory
