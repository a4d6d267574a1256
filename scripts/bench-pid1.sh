#!/usr/bin/env bash
# Benchmark: nccl-init as an init, side by side with Debian's tini-static,
# dumb-init and catatonit, from one run with the inits interleaved (every
# round runs each once, in an order that rotates from round to round):
#
#   1. binary size, static or dynamic (file)
#   2. the init's own RSS: VmHWM as PID 1 while its child waits
#   3. start-up overhead over a static `true`, not PID 1 (spawn-timer)
#   4. an orphan storm as PID 1: time to reap them, zombies left
#   5. SIGTERM to exit for an idle tree, as PID 1
#   6. a worker needing 0.5 s of cleanup after SIGTERM, as PID 1: (a) the
#      init gets SIGTERM, (b) the main child exits first
#   7. ordered drain, as PID 1: the vLLM and SGLang models of
#      tests/helpers/server_models.py, each init with its default stop; k/K
#      rounds in which the server drained before any child got SIGTERM
#
# then a side-by-side table and a markdown one for the README.
# Run by `make bench`. Needs root (apt-get, PID namespaces via unshare).
#
#   BENCH_PID1_ROUNDS          start-up rounds (default 1000)
#   BENCH_PID1_WARMUP          untimed start-up rounds first (default 50)
#   BENCH_PID1_ORPHANS         orphans per storm (default 10000)
#   BENCH_PID1_ORPHAN_ROUNDS   storms per init (default 2)
#   BENCH_PID1_STOP_RUNS       idle-tree stops per init (default 20)
#   BENCH_PID1_CLEANUP_ROUNDS  cleanup runs per init and scenario (default 3)
#   BENCH_PID1_DRAIN_ROUNDS    ordered-drain stops per init and model (default 10)
#
# nccl-init always runs with --sinks none, so it writes no system file; the
# script checks that /etc/environment, the Python sitecustomize files,
# /etc/nccl.conf and /run/nccl-init are the same afterwards (exit 1 if not).
# Everything else it writes is under build/bench/. It reports, it does not
# judge: exit 0 once the measurements ran.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_PID1_ROUNDS:-1000}
WARMUP=${BENCH_PID1_WARMUP:-50}
ORPHANS=${BENCH_PID1_ORPHANS:-10000}
ORPHAN_ROUNDS=${BENCH_PID1_ORPHAN_ROUNDS:-2}
STOP_RUNS=${BENCH_PID1_STOP_RUNS:-20}
CLEANUP_ROUNDS=${BENCH_PID1_CLEANUP_ROUNDS:-3}
DRAIN_ROUNDS=${BENCH_PID1_DRAIN_ROUNDS:-10}
for v in ROUNDS WARMUP ORPHANS ORPHAN_ROUNDS STOP_RUNS CLEANUP_ROUNDS DRAIN_ROUNDS; do
	if ! [[ ${!v} =~ ^[0-9]+$ ]] || { [[ $v != WARMUP ]] && ((${!v} < 1)); }; then
		echo "bench-pid1: BENCH_PID1_$v=${!v}: expected a whole number (>= 1)" >&2
		exit 2
	fi
done

SRC_INIT=build/nccl-init
B=build/bench/pid1
# Measured from a copy: build/nccl-init may be rebuilt while this runs.
INIT=$PWD/$B/nccl-init
TRUE_STATIC=$PWD/build/bench/true-static
TIMER=build/bench/spawn-timer
TIMER_SRC=scripts/bench/spawn-timer.c

if [[ ! -x $SRC_INIT ]]; then
	echo "bench-pid1: $SRC_INIT missing; run 'make bench' (or 'make $SRC_INIT') first" >&2
	exit 2
fi

# --- the anchors and the tools ---------------------------------------------
# tini provides /usr/bin/tini and /usr/bin/tini-static.
PKGS=(tini dumb-init catatonit musl-tools gcc file util-linux python3)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "bench-pid1: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >&2 ||
		echo "bench-pid1: could not install ${missing[*]}; going on without" >&2
fi

# --- what must not change ----------------------------------------------------
# shellcheck source=scripts/bench/guard.bash
source scripts/bench/guard.bash
guard_begin

# --- builds (all under build/bench/) -------------------------------------------
mkdir -p "$B" build/bench/tmp
export TMPDIR=$PWD/build/bench/tmp
cp "$SRC_INIT" "$INIT.new"
mv -f "$INIT.new" "$INIT"
build() { # OUT SRC CC FLAGS...: rebuilt when missing or older than SRC
	local o=$1 s=$2
	shift 2
	if [[ ! -x $o || $s -nt $o ]]; then
		"$@" -o "$o.new" "$s" && mv -f "$o.new" "$o"
	fi
}
build "$TIMER" "$TIMER_SRC" gcc -O2 -Wall -Wextra
build "$B/orphans" tests/helpers/orphans.c gcc -O2 -Wall -Wextra
build "$B/pid1-reap" scripts/bench/pid1-reap.c gcc -O2 -Wall -Wextra
if [[ ! -x $TRUE_STATIC ]]; then
	musl-gcc -static -Os -o "$TRUE_STATIC.new" -x c - <<<'int main(void){return 0;}'
	mv -f "$TRUE_STATIC.new" "$TRUE_STATIC"
fi

# nccl-init must run a command with --sinks none, or nothing below means anything.
if ! err=$("$INIT" -q --sinks none -- "$TRUE_STATIC" 2>&1); then
	echo "bench-pid1: $INIT -q --sinks none -- $TRUE_STATIC failed: $err" >&2
	exit 1
fi
stderr_note=$err

# --- header --------------------------------------------------------------------
ncpu=$(nproc)
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }
echo "== nccl-init as PID 1 against tini-static, dumb-init and catatonit =="
echo "date    : $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine : nproc $ncpu${cpu:+ ($cpu)}, uname -r $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "note    : the figures are from a shared ${ncpu}-core machine and are noisy: compare"
echo "          the inits within one run, not across runs"
echo "commit  : $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- init 2>/dev/null || echo ' (init/ modified)')"
echo "inits   : nccl-init -q --sinks none, no -p (NCCL_INIT_PROFILE=${NCCL_INIT_PROFILE-unset}: its default" \
	"profile choice); tini $(ver tini); dumb-init $(ver dumb-init); catatonit $(ver catatonit)"
if [[ -n $stderr_note ]]; then
	echo "note    : with -q --sinks none nccl-init still writes to stderr (discarded while timing):"
	while IFS= read -r l; do echo "          | $l"; done <<<"$stderr_note"
fi
echo

start=$(date +%s.%N)
python3 scripts/bench/pid1-bench.py \
	--nccl-init "$INIT" --timer "$TIMER" --true-static "$TRUE_STATIC" \
	--reap "$PWD/$B/pid1-reap" --orphans-bin "$PWD/$B/orphans" --work "$PWD/$B" \
	--rounds "$ROUNDS" --warmup "$WARMUP" --orphans "$ORPHANS" \
	--orphan-rounds "$ORPHAN_ROUNDS" --stop-runs "$STOP_RUNS" --cleanup-rounds "$CLEANUP_ROUNDS" \
	--drain-rounds "$DRAIN_ROUNDS"
echo
echo "($(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s of measurements)"

guard_end bench-pid1
