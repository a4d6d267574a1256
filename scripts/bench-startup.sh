#!/usr/bin/env bash
# Benchmark: size of build/nccl-init and its start-up overhead against a
# static `true` alone, the physical floor of an init (scripts/bench/floor.c:
# block signals, fork, exec, wait) and Debian's tini-static; then the system
# calls (strace -f -c) and page faults (wait4's ru_minflt) of each. Run by
# `make bench`. As root it adds the container restart: nccl-init with every
# sink up to date as PID 1 of a new PID namespace, against true and the
# floor started the same way (the /pid1 rows).
#
#   BENCH_ROUNDS   timed rounds (default 2000); each round runs every command once
#   BENCH_WARMUP   untimed rounds first (default 50)
#
# Timing is done by scripts/bench/spawn-timer.c (compiled into build/bench/),
# which posix_spawn()s each command, waits for it, and times spawn-to-reap
# with CLOCK_MONOTONIC, interleaving the commands in an order that rotates
# every round. The script writes only under build/ and always exits 0 once
# the measurement ran: it reports, it does not gate.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_ROUNDS:-2000}
WARMUP=${BENCH_WARMUP:-50}
SRC_INIT=build/nccl-init
# Measured and timed from a copy: build/nccl-init may be rebuilt while the
# benchmark runs (a half-written binary cannot be executed).
INIT=build/bench/nccl-init
PROFILE_DIR=profiles
PROFILE=pcie-8gpu
TINI=/usr/bin/tini-static
TRUE=$PWD/build/bench/true-static
FLOOR=$PWD/build/bench/floor
FLOOR_SRC=scripts/bench/floor.c
# Goals, as multiples of the floor's overhead.
GOAL_PLAIN=1.25
GOAL_SINKS=1.5
TIMER_SRC=scripts/bench/spawn-timer.c
TIMER=build/bench/spawn-timer

if ! [[ $ROUNDS =~ ^[1-9][0-9]*$ && $WARMUP =~ ^[0-9]+$ ]]; then
	echo "bench-startup: BENCH_ROUNDS=$ROUNDS BENCH_WARMUP=$WARMUP: expected whole numbers, rounds >= 1" >&2
	exit 2
fi
if [[ ! -x $SRC_INIT ]]; then
	echo "bench-startup: $SRC_INIT missing; run 'make bench' (or 'make $SRC_INIT') first" >&2
	exit 2
fi
mkdir -p build/bench/tmp
# Scratch files (gcc's, bash's) stay under build/ too.
export TMPDIR=$PWD/build/bench/tmp
cp "$SRC_INIT" "$INIT.new"
mv -f "$INIT.new" "$INIT"

# --- header ----------------------------------------------------------------
ncpu=$(nproc)
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo "== nccl-init start-up benchmark =="
echo "machine : ${ncpu} CPUs${cpu:+ ($cpu)}, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date    : $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "commit  : $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- init 2>/dev/null || echo ' (init/ modified)')"
echo "note    : figures are from a shared ${ncpu}-core machine and are noisy;"
echo "          compare commands within one run, not across runs."
echo

# --- sizes -----------------------------------------------------------------
linkage() {
	local f
	f=$(file -b "$1")
	case $f in
	*"static-pie linked"*) echo "static-pie" ;;
	*"statically linked"*) echo "static" ;;
	*"dynamically linked"*) echo "dynamic" ;;
	*) echo "?" ;;
	esac
}

echo "== sizes =="
echo "$SRC_INIT (copied to $INIT): $(file -b "$INIT")"
printf '%-24s %10s %9s  %s\n' binary bytes KiB linkage
# NAME=PATH: the nccl-init row names the build output but measures the copy.
for entry in "$SRC_INIT=$INIT" "$TINI=$TINI" /usr/bin/catatonit=/usr/bin/catatonit \
	/usr/bin/dumb-init=/usr/bin/dumb-init; do
	name=${entry%%=*} b=${entry#*=}
	if [[ -f $b ]]; then
		size=$(stat -c %s "$b")
		printf '%-24s %10d %9s  %s\n' "$name" "$size" "$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1024 }')" \
			"$(linkage "$b")"
	else
		printf '%-24s %10s %9s  %s\n' "$name" - - "not installed"
	fi
done
echo

# --- timer, floor, static true ---------------------------------------------
if [[ ! -x $TIMER || $TIMER_SRC -nt $TIMER ]]; then
	gcc -O2 -Wall -Wextra -o "$TIMER" "$TIMER_SRC"
fi
if [[ ! -x $FLOOR || $FLOOR_SRC -nt $FLOOR ]]; then
	musl-gcc -static -Os -Wall -Wextra -o "$FLOOR" "$FLOOR_SRC"
fi
if [[ ! -x $TRUE ]]; then
	musl-gcc -static -Os -o "$TRUE.new" -x c - <<<'int main(void){return 0;}'
	mv -f "$TRUE.new" "$TRUE"
fi

# --- start-up overhead ---------------------------------------------------
cmds=(:: true "$TRUE" :: floor "$FLOOR" "$TRUE")
if [[ -x $TINI ]]; then
	cmds+=(:: tini-static "$TINI" -s -- "$TRUE")
else
	echo "note: $TINI not installed; timing without it"
fi
# "nccl-init": the init itself, no sinks (the start-up budget). "+sinks": the
# sinks written under a private --root, each file already up to date, so
# nothing is rewritten but the record of the child's pid, which changes from
# run to run outside PID 1 (a bare host's restart). The benchmark never
# writes the machine's own /etc.
SINK_ROOT=$PWD/build/bench/root
mkdir -p "$SINK_ROOT/etc" "$SINK_ROOT/run"
cmds+=(:: nccl-init "$PWD/$INIT" -q --sinks none --profile-dir "$PROFILE_DIR" -p "$PROFILE" -- "$TRUE")
cmds+=(:: +sinks "$PWD/$INIT" -q --root "$SINK_ROOT" --profile-dir "$PROFILE_DIR" -p "$PROFILE" -- "$TRUE")
# A container restart: the init is PID 1 of a new PID namespace, so its
# child is pid 2 every time and state.json is left as it is too. Measured
# against true and the floor started the same way (the namespace costs as
# much for them). A root of its own: the bare-host row rewrites its record
# with other pids. Root only (CLONE_NEWPID).
PID1_ROOT=$PWD/build/bench/root-pid1
pid1=
if [[ $(id -u) == 0 ]] && "$TIMER" 1 0 :: probe --pid1 "$TRUE" >/dev/null 2>&1; then
	pid1=1
	mkdir -p "$PID1_ROOT/etc" "$PID1_ROOT/run"
	cmds+=(:: true/pid1 --pid1 "$TRUE" :: floor/pid1 --pid1 "$FLOOR" "$TRUE")
	cmds+=(:: +sinks/pid1 --pid1 "$PWD/$INIT" -q --root "$PID1_ROOT" --profile-dir "$PROFILE_DIR" -p "$PROFILE" -- "$TRUE")
else
	echo "note: not root, or no PID namespaces: no container-restart rows (--pid1)"
fi

# Sanity: nccl-init must accept the profile and run the command, or the
# timing is meaningless. -q keeps warnings; the timed runs send them to
# /dev/null. This first run also writes the sinks, so the timed ones find them
# current.
[[ -z $pid1 ]] || "$TIMER" 1 0 :: first --pid1 "$PWD/$INIT" -q --root "$PID1_ROOT" --profile-dir "$PROFILE_DIR" \
	-p "$PROFILE" -- "$TRUE" >/dev/null
if ! err=$("$INIT" -q --root "$SINK_ROOT" --profile-dir "$PROFILE_DIR" -p "$PROFILE" -- "$TRUE" 2>&1 >/dev/null); then
	echo "bench-startup: $INIT -p $PROFILE -- $TRUE failed:" >&2
	echo "$err" >&2
	exit 1
fi
if [[ -n $err ]]; then
	echo "note: with -q nccl-init still writes to stderr (discarded while timing):"
	while IFS= read -r l; do echo "  | $l"; done <<<"$err"
	echo
fi

echo "== start-up: spawn to reap, ${ROUNDS} interleaved rounds (+${WARMUP} warm-up), order rotating per round =="
# List the commands: "::" starts each group, then LABEL, then the command.
listing=
for ((i = 0; i < ${#cmds[@]}; i++)); do
	if [[ ${cmds[i]} == :: ]]; then
		i=$((i + 1))
		listing+="${listing:+$'\n'}  $(printf '%-13s' "${cmds[i]}:")"
	else
		listing+=" ${cmds[i]}"
	fi
done
echo "$listing"
echo

start=$(date +%s.%N)
results=$("$TIMER" "$ROUNDS" "$WARMUP" "${cmds[@]}")
end=$(date +%s.%N)

awk -v gp="$GOAL_PLAIN" -v gs="$GOAL_SINKS" -v elapsed="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" '
	{ label[NR] = $1; med[$1] = $4 / 1000; p90[$1] = $5 / 1000; p99[$1] = $6 / 1000; mn[$1] = $3 / 1000 }
	# A /pid1 row is measured against true and the floor run as PID 1 too.
	function mode(l) { return l ~ /\/pid1$/ ? "/pid1" : "" }
	function over(l) { return med[l] - med["true" mode(l)] }
	function ratio(l) { return over(l) / over("floor" mode(l)) }
	END {
		# "µs" is two bytes and awk pads bytes: one more column where it appears.
		printf "%-12s %11s %11s %11s %11s %15s %9s\n", "command", "min µs", "median µs", "p90 µs", "p99 µs", "overhead µs", "x floor"
		for (i = 1; i <= NR; i++) {
			l = label[i]
			anchor = l ~ /^true/
			printf "%-12s %10.1f %10.1f %10.1f %10.1f %14s %9s\n", l, mn[l], med[l], p90[l], p99[l], \
				(anchor ? "(anchor)" : sprintf("%+.1f", over(l))), (anchor ? "" : sprintf("%.2fx", ratio(l)))
		}
		printf "(overhead = median(cmd) - median(true), true being a static one; a /pid1 row: both as PID 1 of a new PID namespace;\n x floor = overhead / the floor'"'"'s, the /pid1 floor'"'"'s for a /pid1 row; %ss wall)\n\n", elapsed
		r = ratio("nccl-init")
		printf "verdict: nccl-init, no sinks, <= %.2fx the floor: %s (%.2fx)\n", gp, (r <= gp ? "PASS" : "FAIL"), r
		# The goal is a container restart: the init as PID 1. Without that row
		# (not root), the bare-host one stands in, which also rewrites state.json.
		l = ("+sinks/pid1" in med) ? "+sinks/pid1" : "+sinks"
		rs = ratio(l)
		printf "verdict: a restart with every sink current (%s) <= %.2fx the floor: %s (%.2fx)\n", l, gs, (rs <= gs ? "PASS" : "FAIL"), rs
		if (l != "+sinks")
			printf "(a bare host'"'"'s restart, outside PID 1, rewrites state.json for the new pid: +sinks, %.2fx)\n", ratio("+sinks")
		if ("tini-static" in med)
			printf "(tini-static: %.2fx the floor)\n", ratio("tini-static")
	}' <<<"$results"
echo

# --- where the time goes -------------------------------------------------
# System calls of the whole run (strace -f -c: the init and the static true
# it starts), and the page faults wait4 reports for it (the init, and the
# true it reaped), each with the bare true's subtracted: what the init adds.
echo "== system calls and page faults, each command once (strace -f -c; wait4 ru_minflt, median of 20) =="
python3 - "${cmds[@]}" <<'PY'
import os, re, statistics, subprocess, sys, tempfile

groups, cur = [], None
for a in sys.argv[1:]:
    if a == "::":
        cur = []
        groups.append(cur)
    else:
        cur.append(a)

def syscalls(cmd):
    with tempfile.NamedTemporaryFile("r") as f:
        subprocess.run(["strace", "-f", "-c", "-o", f.name] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        m = re.search(r"^-+.*\n100\.00\s+\S+\s+\S+\s+(\d+)\s+(\d+)?", f.read(), re.M)
        return int(m.group(1)) if m else None

def faults(cmd):
    v = []
    for _ in range(20):
        pid = os.posix_spawn(cmd[0], cmd, os.environ,
                             file_actions=[(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                                           (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)])
        _, _, ru = os.wait4(pid, 0)
        v.append(ru.ru_minflt + ru.ru_majflt)
    return statistics.median(v)

# A --pid1 command runs under unshare --pid --fork here (strace and wait4 see
# unshare too), and is compared with true/pid1, run the same way.
def argv(g):
    return ["/usr/bin/unshare", "--pid", "--fork"] + g[2:] if g[1] == "--pid1" else g[1:]

rows = [(g[0], syscalls(argv(g)), faults(argv(g))) for g in groups]
base = {label: (calls or 0, flt) for label, calls, flt in rows if label.startswith("true")}
print("%-12s %8s %8s   %s" % ("command", "calls", "faults", "(the init's own: minus true's)"))
for label, calls, flt in rows:
    b = base["true/pid1" if label.endswith("/pid1") else "true"]
    own = "" if label.startswith("true") else "%+d calls, %+d faults" % ((calls or 0) - b[0], flt - b[1])
    print("%-12s %8s %8d   %s" % (label, calls if calls is not None else "-", flt, own))
PY
