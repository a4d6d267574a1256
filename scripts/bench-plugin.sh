#!/usr/bin/env bash
# Benchmark: what the NCCL env plugin (build/libnccl-env.so) costs.
#
# 1. NCCL's first init: a fresh process that dlopens libnccl.so.2 and calls
#    ncclGetUniqueId (scripts/bench/nccl-first-init.c; no GPU), in one
#    interleaved run (scripts/bench/spawn-timer.c), three ways:
#      none     NCCL_ENV_PLUGIN=none: NCCL's own getenv (the anchor)
#      default  NCCL_ENV_PLUGIN unset, no libnccl-env.so on the loader's
#               path: NCCL's dlopen fails, then getenv, as on a machine
#               without nccl-init
#      plugin   NCCL_ENV_PLUGIN=build/libnccl-env.so, serving a record of
#               the pcie-8gpu profile
#    each run through /usr/bin/env, which sets the variable; and the
#    plugin's witness (a memfd per process) against the same without it:
#      witness    the plugin under build/test/deny-syscall acct (a seccomp
#                 filter that fails a call no server makes: the filter's
#                 cost alone), the witness made
#      no-witness the plugin under deny-syscall memfd_create: the same
#                 filter, and the plugin cannot make its witness (it answers
#                 as before)
#    "witness/no-witness" is the witness's cost, as a ratio.
# 2. One getEnv call (scripts/bench/plugin-getenv.c): the plugin's getEnv of
#    a key of the record and of a key in neither, against the C library's
#    getenv of the same, N calls each, in this process's environment; the
#    record's key is witnessed after its first call, so getEnv(in-record)
#    is a witnessed name's cost. Then the first ask of a name (it writes a
#    line into the witness): 7 x 200 new names, the median of the means.
#
# The record is /run/nccl-init/profile.env, a fixed path: as root the
# benchmark runs itself again inside scripts/sandbox.sh (copy-on-write
# /run) and writes it there with nccl-init's record sink; the machine's own
# sink files are checked to be the same afterwards (scripts/bench/guard.bash,
# exit 1 if not). As another user it uses the record the machine has, if
# any, and says so.
#
#   BENCH_ROUNDS   timed rounds of part 1 (default 200); BENCH_WARMUP (10)
#   BENCH_CALLS    calls per measurement of part 2 (default 2000000)
#   LIBNCCL_PATH   the library (default /usr/local/cuda/lib64/libnccl.so.2)
#
# It reports, it does not judge: exit 0 once the measurement ran.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_ROUNDS:-200}
WARMUP=${BENCH_WARMUP:-10}
CALLS=${BENCH_CALLS:-2000000}
LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
B=$PWD/build/bench
SO=$PWD/build/libnccl-env.so
NI=$PWD/build/nccl-init
RECORD=/run/nccl-init/profile.env
TIMER=$B/spawn-timer
DENY=$PWD/build/test/deny-syscall
FIRST=$B/nccl-first-init
GETENV=$B/plugin-getenv

if ! [[ $ROUNDS =~ ^[1-9][0-9]*$ && $WARMUP =~ ^[0-9]+$ && $CALLS =~ ^[1-9][0-9]*$ ]]; then
    echo "bench-plugin: BENCH_ROUNDS=$ROUNDS BENCH_WARMUP=$WARMUP BENCH_CALLS=$CALLS: expected whole numbers" >&2
    exit 2
fi
for f in "$SO" "$NI" "$DENY"; do
    [[ -f $f ]] || { echo "bench-plugin: ${f#"$PWD"/} missing; run 'make' first" >&2; exit 2; }
done
if [[ ! -r $LIB ]]; then
    echo "bench-plugin: no $LIB (LIBNCCL_PATH): nothing to measure"
    exit 0
fi

# As root: again inside the sandbox, the machine's files guarded from here.
if [[ $(id -u) == 0 && ${NCCL_INIT_SANDBOX:-} != 1 ]]; then
    # shellcheck source=scripts/bench/guard.bash
    source scripts/bench/guard.bash
    guard_begin
    scripts/sandbox.sh "$0" "$@"
    guard_end bench-plugin
    exit 0
fi

mkdir -p "$B"
build() {
    local src=scripts/bench/$1.c bin=$B/$1
    if [[ ! -x $bin || $src -nt $bin ]]; then
        gcc -O2 -Wall -Wextra -o "$bin" "$src" -ldl
    fi
}
build nccl-first-init
build plugin-getenv
build spawn-timer

# Nothing of the caller's NCCL_* reaches the runs but what each row sets.
for v in $(compgen -v NCCL_); do
    case $v in NCCL_INIT_SANDBOX) ;; *) unset "$v" ;; esac
done

if [[ ${NCCL_INIT_SANDBOX:-} == 1 ]]; then
    rm -rf /run/nccl-init
    # shellcheck source=scripts/bench/guard.bash
    source scripts/bench/guard.bash
    bench_writer "$NI" --profile-dir "$PWD/profiles" -p pcie-8gpu --sinks record
    where="written for this run (sandbox), profile pcie-8gpu"
elif [[ -f $RECORD ]]; then
    where="the machine's own (not root: no sandbox)"
else
    where="none (not root, and the machine has none): the plugin row serves nothing"
fi
# The record's values, and one of its keys for part 2.
nkeys=0 key=
if [[ -f $RECORD ]]; then
    nkeys=$(grep -vc '^NCCL_INIT_' "$RECORD" || true)
    key=$(grep -v '^NCCL_INIT_' "$RECORD" | head -n1 | cut -d= -f1)
fi

# The plugin must load and take the record, or the rows mean nothing.
check=$(env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV "NCCL_ENV_PLUGIN=$SO" "$FIRST" "$LIB" 2>&1)
grep -q 'ENV/Plugin: Using nccl-init' <<<"$check" ||
    { echo "bench-plugin: NCCL did not load the plugin:" >&2; echo "$check" >&2; exit 1; }
plugin_line=$(grep -o 'nccl-init: .*' <<<"$check" | head -n1)

echo "== NCCL env plugin: cost =="
echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC'); shared and noisy"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- plugin 2>/dev/null || echo ' (plugin/ modified)')"
echo "library: $LIB -> $(readlink -f "$LIB")"
echo "record:  $RECORD, $where; $nkeys values"
echo "plugin:  $plugin_line"
echo

echo "== NCCL's first init (dlopen + ncclGetUniqueId), $ROUNDS interleaved rounds (+$WARMUP warm-up) =="
results=$("$TIMER" "$ROUNDS" "$WARMUP" \
    :: none /usr/bin/env NCCL_ENV_PLUGIN=none "$FIRST" "$LIB" \
    :: default /usr/bin/env "$FIRST" "$LIB" \
    :: plugin /usr/bin/env "NCCL_ENV_PLUGIN=$SO" "$FIRST" "$LIB" \
    :: witness "$DENY" acct /usr/bin/env "NCCL_ENV_PLUGIN=$SO" "$FIRST" "$LIB" \
    :: no-witness "$DENY" memfd_create /usr/bin/env "NCCL_ENV_PLUGIN=$SO" "$FIRST" "$LIB")
awk '
    { label[NR] = $1; mn[$1] = $3 / 1000; med[$1] = $4 / 1000; p90[$1] = $5 / 1000 }
    END {
        base = med["none"]
        printf "%-10s %10s %11s %10s %12s %8s\n", "row", "min µs", "median µs", "p90 µs", "cost µs", "ratio"
        for (i = 1; i <= NR; i++) {
            l = label[i]
            printf "%-10s %9.1f %10.1f %9.1f %11s %7.3fx\n", l, mn[l], med[l], p90[l], \
                (l == "none" ? "(anchor)" : sprintf("%+.1f", med[l] - base)), med[l] / base
        }
        printf "(cost = median - median(none); ratio = median / median(none))\n"
        printf "witness/no-witness: %.3fx (%+.1f µs): what the witness costs at the first init\n", \
            med["witness"] / med["no-witness"], med["witness"] - med["no-witness"]
    }' <<<"$results"
echo

echo "== one getEnv call: the plugin's against getenv, $CALLS calls a measurement, median of 7 =="
if [[ -z $key ]]; then
    echo "no record with a value: skipped"
    exit 0
fi
echo "environment: $(env | wc -l) variables; KEY_IN=$key (the record's, not in the environment)"
out=$("$GETENV" "$SO" "$key" NCCL_NOT_A_PARAMETER "$CALLS")
awk '
    { label[NR] = $1; ns[$1] = $2; res[$1] = $3 }
    END {
        printf "%-19s %10s %8s  %s\n", "call", "ns/call", "ratio", "returns"
        for (i = 1; i <= NR; i++) {
            l = label[i]
            split(l, p, "(")
            anchor = "getenv(" p[2]
            if (l == "first-ask")
                continue
            printf "%-19s %10.2f %8s  %s\n", l, ns[l], \
                (l ~ /^getenv/ ? "(anchor)" : sprintf("%.2fx", ns[l] / ns[anchor])), res[l]
        }
        printf "(ratio = ns / ns of getenv of the same name; getEnv(in-record) is a witnessed name)\n"
        printf "first ask of a name (one witness line): %.2f µs\n", ns["first-ask"] / 1000
    }' <<<"$out"
