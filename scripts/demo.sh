#!/usr/bin/env bash
# make demo: nccl-init on a stand-in inference server (scripts/demo-server.py),
# before and after, then NCCL's own word, --enforce, verify and the typo check.
#
# It runs as root in scripts/sandbox.sh: /etc, /usr and /run are copy-on-write
# layers kept in build/demo/layers, so nccl-init install and the record land
# where a container would have them and the machine's own files never change.
# Everything it writes is under build/.
set -euo pipefail
cd "$(dirname "$0")/.."

D=$PWD/build/demo
# First the script sets up build/demo and runs itself again in the sandbox,
# its own one even under make test's (whose /usr the hook must not reach).
if [ "${1:-}" != --in-sandbox ]; then
    if [ "$(id -u)" != 0 ] || ! unshare --mount --pid --fork --mount-proc true 2>/dev/null; then
        echo "make demo: needs root and namespaces: it runs nccl-init as PID 1 of a new PID" \
            "namespace, and lets it write /etc, /usr and /run in copy-on-write layers" >&2
        exit 1
    fi
    rm -rf "$D"
    mkdir -p "$D/bin" "$D/lib/nccl-init"
    exec scripts/sandbox.sh --upper "$D/layers" "$0" --in-sandbox
fi

# nccl-init and its plugin at the places make install gives them relative
# to each other (BINDIR/../lib/nccl-init/), so install finds the plugin.
install -m 755 build/nccl-init "$D/bin/nccl-init"
install -m 644 build/libnccl-env.so "$D/lib/nccl-init/libnccl-env.so"
NI=$D/bin/nccl-init
PROFILES=(-p pcie-8gpu -p scripts/demo-socket.env --profile-dir profiles)
SERVER=(/usr/bin/python3 scripts/demo-server.py)
LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
[ -e "$LIB" ] || LIB=$(/sbin/ldconfig -p | awk '$1 == "libnccl.so.2" { print $NF; exit }')

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# The lines of FILE that match the pattern, indented.
show() { grep -E "$1" "$2" | sed 's/^/    /' || true; }

say "nccl-init: $(stat -c %s "$NI") bytes, $(file -b "$NI" | cut -d, -f1,4 | tr -s ' ')"

say "before: the server started directly, the profile's variables exported"
env $("$NI" render -q "${PROFILES[@]}" --format env | grep -v '^NCCL_INIT_') \
    "${SERVER[@]}" --nccl-lib ''

say "after: the same server under nccl-init, nothing exported"
echo "  as in the images: 'nccl-init install' puts the Python hook into the stdlib and links"
echo "  NCCL's env plugin onto the loader's path; at run time nccl-init writes only the record"
echo "  (--sinks record, what a pod with a read-only root allows)."
if [ -n "$LIB" ]; then
    echo "  NCCL is the real one, $LIB, without a GPU: NCCL asks then only"
    echo "  for bootstrap names, so scripts/demo-socket.env adds NCCL_SOCKET_IFNAME=lo to pcie-8gpu."
else
    echo "  No libnccl.so.2 on this machine (LIBNCCL_PATH=, or the loader's): no NCCL worker."
fi
"$NI" install -q
rm -f "$D/ready"
unshare --pid --fork --mount-proc "$NI" "${PROFILES[@]}" --sinks record \
    -- "${SERVER[@]}" serve /models/M --tensor-parallel-size 8 --ready "$D/ready" --nccl-lib "$LIB" 2>"$D/init.log" &
ns=$!
for _ in $(seq 600); do
    [ -e "$D/ready" ] || ! kill -0 "$ns" 2>/dev/null && break
    sleep 0.1
done
sed 's/^/  /' "$D/init.log"
pid1=$(pgrep -P "$ns") && [ -e "$D/ready" ] || { echo "make demo: the server did not start" >&2; exit 1; }

say "nccl-init verify, in the server's PID namespace (docker exec, kubectl exec)"
status=0
nsenter -t "$pid1" -m -p "$NI" verify || status=$?
echo "  exit status $status"
# The same as JSON, for tools: NCCL's reads (its env plugin's witness) per process.
nsenter -t "$pid1" -m -p "$NI" verify --json >"$D/verify.json" || true
/usr/bin/python3 -S -c '
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["processes"] if r.get("witness")]
print("  verify --json (%s): NCCL'"'"'s reads in %d process%s" % (sys.argv[2], len(rows), "" if len(rows) == 1 else "es"))
for r in rows:
    reads = ", ".join("%s=%s from %s" % (x["name"], x["value"], x["from"]) for x in r["witness"]["reads"])
    print("    pid %d: %s" % (r["pid"], reads or "none of the profile'"'"'s keys yet"))
' "$D/verify.json" "${D#"$PWD"/}/verify.json"

say "docker stop: SIGTERM to nccl-init, which stops the server first, then its tree"
kill -TERM "$pid1"
status=0
wait "$ns" || status=$?
show '^nccl-init: (stop|exit)' "$D/init.log"
echo "  exit status $status"

say "what nccl-init wrote: the record, read by the hook and the plugin"
sed 's/^/    | /' /run/nccl-init/profile.env

enforce() {
    unshare --pid --fork --mount-proc "$NI" -q "$@" "${PROFILES[@]}" --sinks record \
        -- "${SERVER[@]}" --tensor-parallel-size 0 --nccl-lib "$LIB" \
        --nccl-sets NCCL_SOCKET_IFNAME=eth9 | grep -v '^server: \(ready\|.* stopped\)'
}
say "--enforce: a worker that sets its own NCCL_SOCKET_IFNAME=eth9, as SGLang sets NCCL_CUMEM_ENABLE"
if [ -n "$LIB" ]; then
    echo "  without --enforce the worker's own value wins, and NCCL has no such interface:"
    enforce
    echo "  with --enforce NCCL's env plugin answers with the profile's value:"
    enforce --enforce
else
    echo "  skipped: no libnccl.so.2 on this machine"
fi

say "and the mistakes NCCL would swallow without a word are stopped at the door"
printf 'NCCL_BUFFSIZE=16M\nNCCL_P2P_LEVEL=sys\nNCCL_NTHREADS=1024\nNCCL_NCHANNELS=16\n' >build/demo/typos.env
status=0
"$NI" -p build/demo/typos.env --sinks none -- true || status=$?
echo "  exit status $status: the server was not started"
