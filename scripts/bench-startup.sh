#!/usr/bin/env bash
# Benchmark: start-up of build/nccl-init against a static `true` alone, the
# floor of an init (scripts/bench/floor.c: block signals, fork, exec, wait)
# and Debian's tini-static, all in one interleaved run; then the system calls
# (strace -f -c) and page faults (wait4's ru_minflt) of each. Run by
# `make bench`. As root it adds the container restart: nccl-init with every
# sink already current (written once before the timing, under a --root of its
# own) as PID 1 of a new PID namespace, against true, the floor and tini
# started the same way (the /pid1 rows).
#
#   BENCH_ROUNDS    timed rounds (default 2000); each round runs every command once
#   BENCH_WARMUP    untimed rounds first (default 50)
#   BENCH_BASELINE  optional: another nccl-init (an older build, say); its two
#                   rows (no sinks; the restart as PID 1, under a root of its
#                   own) join the same interleaved run, for a before/after
#                   comparison from one run
#
# Timing is done by scripts/bench/spawn-timer.c (compiled into build/bench/),
# which posix_spawn()s each command, waits for it, and times spawn-to-reap
# with CLOCK_MONOTONIC, in an order that rotates every round. It reports,
# it does not judge: exit 0 once the measurement ran. The sinks are written
# only under build/bench/ (--root, a command that is not Python, no
# NCCL_CONF_FILE); the machine's own sink files are checked to be the same
# afterwards (scripts/bench/guard.bash, exit 1 if not).
set -euo pipefail

# A relative BENCH_BASELINE is from the caller's directory.
BASELINE_SRC=${BENCH_BASELINE:+$(realpath -m -- "$BENCH_BASELINE")}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_ROUNDS:-2000}
WARMUP=${BENCH_WARMUP:-50}
SRC_INIT=build/nccl-init
B=$PWD/build/bench
# Measured from copies: build/nccl-init may be rebuilt while the benchmark
# runs (a half-written binary cannot be executed).
INIT=$B/nccl-init
BASELINE=$B/baseline-nccl-init
PROFILE_ARGS=(-q --profile-dir "$PWD/profiles" -p pcie-8gpu)
TINI=/usr/bin/tini-static
TRUE=$B/true-static
FLOOR=$B/floor
FLOOR_SRC=scripts/bench/floor.c
TIMER=$B/spawn-timer
TIMER_SRC=scripts/bench/spawn-timer.c

if ! [[ $ROUNDS =~ ^[1-9][0-9]*$ && $WARMUP =~ ^[0-9]+$ ]]; then
	echo "bench-startup: BENCH_ROUNDS=$ROUNDS BENCH_WARMUP=$WARMUP: expected whole numbers, rounds >= 1" >&2
	exit 2
fi
if [[ ! -x $SRC_INIT ]]; then
	echo "bench-startup: $SRC_INIT missing; run 'make bench' (or 'make $SRC_INIT') first" >&2
	exit 2
fi
if [[ -n $BASELINE_SRC && ! -x $BASELINE_SRC ]]; then
	echo "bench-startup: BENCH_BASELINE=$BENCH_BASELINE: not an executable file" >&2
	exit 2
fi
# The nccl-conf sink writes to $NCCL_CONF_FILE as given, --root or not.
unset NCCL_CONF_FILE
mkdir -p "$B/tmp"
# Scratch files (gcc's, bash's) stay under build/ too.
export TMPDIR=$B/tmp
copy() { cp "$1" "$2.new" && mv -f "$2.new" "$2"; }
copy "$SRC_INIT" "$INIT"
[[ -z $BASELINE_SRC ]] || copy "$BASELINE_SRC" "$BASELINE"

# shellcheck source=scripts/bench/guard.bash
source scripts/bench/guard.bash
guard_begin

# --- header ----------------------------------------------------------------
ncpu=$(nproc)
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo "== nccl-init start-up benchmark =="
echo "machine : ${ncpu} CPUs${cpu:+ ($cpu)}, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date    : $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "commit  : $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- init 2>/dev/null || echo ' (init/ modified)')"
echo "binary  : $SRC_INIT, $(stat -c %s "$INIT") bytes"
[[ -z $BASELINE_SRC ]] || echo "baseline: $BASELINE_SRC, $(stat -c %s "$BASELINE") bytes"
echo "note    : figures from a shared ${ncpu}-core machine are noisy;"
echo "          compare commands within one run, not across runs."
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

# --- the commands ----------------------------------------------------------
# NAME BINARY pairs: the inits under test.
inits=(nccl-init "$INIT")
[[ -z $BASELINE_SRC ]] || inits+=(baseline "$BASELINE")

# nccl-init without sinks: the init itself.
cmds=(:: true "$TRUE" :: floor "$FLOOR" "$TRUE")
tini=
if [[ -x $TINI ]]; then
	tini=1
	cmds+=(:: tini-static "$TINI" -s -- "$TRUE")
else
	echo "note: $TINI not installed; timing without it"
fi
for ((i = 0; i < ${#inits[@]}; i += 2)); do
	cmds+=(:: "${inits[i]}" "${inits[i + 1]}" "${PROFILE_ARGS[@]}" --sinks none -- "$TRUE")
done

# Sanity: each init must accept the profile and run the command, or the
# timing is meaningless. The timed runs send stderr to /dev/null: say here
# what -q leaves on it.
for ((i = 0; i < ${#inits[@]}; i += 2)); do
	if ! err=$("${inits[i + 1]}" "${PROFILE_ARGS[@]}" --sinks none -- "$TRUE" 2>&1 >/dev/null); then
		echo "bench-startup: ${inits[i]}: ${inits[i + 1]} ${PROFILE_ARGS[*]} --sinks none -- $TRUE failed:" >&2
		echo "$err" >&2
		exit 1
	fi
	if [[ -n $err ]]; then
		echo "note: with -q ${inits[i]} still writes to stderr (discarded while timing):"
		while IFS= read -r l; do echo "  | $l"; done <<<"$err"
		echo
	fi
done

# A container restart: the init is PID 1 of a new PID namespace, so its
# child is pid 2 every time, and every sink (the record included) is current
# from the run before. Measured against true, the floor and tini started the
# same way (the namespace costs as much for them). Each init has a root of
# its own, so that each finds the files it wrote itself. Root only
# (CLONE_NEWPID).
if [[ $(id -u) == 0 ]] && "$TIMER" 1 0 :: probe --pid1 "$TRUE" >/dev/null 2>&1; then
	cmds+=(:: true/pid1 --pid1 "$TRUE" :: floor/pid1 --pid1 "$FLOOR" "$TRUE")
	[[ -z $tini ]] || cmds+=(:: tini-static/pid1 --pid1 "$TINI" -- "$TRUE")
	for ((i = 0; i < ${#inits[@]}; i += 2)); do
		root=$B/root-${inits[i]}-pid1
		rm -rf "$root"
		mkdir -p "$root/etc" "$root/run"
		restart=("${inits[i]}+sinks/pid1" --pid1 "${inits[i + 1]}" "${PROFILE_ARGS[@]}" --root "$root" -- "$TRUE")
		# Its first run, as PID 1 too, writes the sinks: the timed runs
		# find every file current.
		if ! "$TIMER" 1 0 :: "${restart[@]}" >/dev/null; then
			echo "bench-startup: ${restart[*]:2} failed as PID 1" >&2
			exit 1
		fi
		cmds+=(:: "${restart[@]}")
	done
else
	echo "note: not root, or no PID namespaces: no container-restart rows (/pid1)"
fi

echo "== start-up: spawn to reap, ${ROUNDS} interleaved rounds (+${WARMUP} warm-up), order rotating per round =="
# List the commands ("::" starts each group, then LABEL, then the command),
# paths relative to the repository.
listing=
for ((i = 0; i < ${#cmds[@]}; i++)); do
	if [[ ${cmds[i]} == :: ]]; then
		i=$((i + 1))
		listing+="${listing:+$'\n'}  $(printf '%-21s' "${cmds[i]}:")"
	else
		listing+=" ${cmds[i]#"$PWD"/}"
	fi
done
echo "$listing"
echo

start=$(date +%s.%N)
results=$("$TIMER" "$ROUNDS" "$WARMUP" "${cmds[@]}")
end=$(date +%s.%N)

# spawn-timer prints LABEL N MIN MEDIAN P90 P99 MEAN (ns) per command.
awk -v elapsed="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" '
	{ label[NR] = $1; med[$1] = $4 / 1000; p90[$1] = $5 / 1000 }
	# A /pid1 row is measured against true, the floor and tini run as PID 1 too.
	function mode(l) { return l ~ /\/pid1$/ ? "/pid1" : "" }
	function over(l) { return med[l] - med["true" mode(l)] }
	function times(l, anchor) { return (anchor in med) ? sprintf("%.2fx", over(l) / over(anchor)) : "-" }
	END {
		# "µs" is two bytes and awk pads bytes: one more column where it appears.
		printf "%-21s %11s %11s %15s %8s %8s\n", "command", "median µs", "p90 µs", "overhead µs", "x floor", "x tini"
		for (i = 1; i <= NR; i++) {
			l = label[i]
			if (l ~ /^true/)
				printf "%-21s %10.1f %10.1f %14s\n", l, med[l], p90[l], "(anchor)"
			else
				printf "%-21s %10.1f %10.1f %+14.1f %8s %8s\n", l, med[l], p90[l], over(l), \
					times(l, "floor" mode(l)), times(l, "tini-static" mode(l))
		}
		printf "(overhead = median(command) - median(true), true being a static one; a /pid1 row: both as PID 1\n"
		printf " of a new PID namespace; x floor, x tini = overhead / the floor'"'"'s, tini-static'"'"'s overhead,\n"
		printf " run the same way; +sinks: every sink current from the run before; %ss wall)\n", elapsed
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
        # The calls of the total line: a row of its own can be at 100.00 %.
        m = re.search(r"^100\.00\s+\S+\s+\S+\s+(\d+)\s+(?:\d+\s+)?total$", f.read(), re.M)
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
print("%-21s %8s %8s   %s" % ("command", "calls", "faults", "(the command's own: minus true's)"))
for label, calls, flt in rows:
    b = base["true/pid1" if label.endswith("/pid1") else "true"]
    own = "" if label.startswith("true") else "%+d calls, %+d faults" % ((calls or 0) - b[0], flt - b[1])
    print("%-21s %8s %8d   %s" % (label, calls if calls is not None else "-", flt, own))
PY
echo
guard_end bench-startup
