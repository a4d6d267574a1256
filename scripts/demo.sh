#!/usr/bin/env bash
# make demo: the before/after of nccl-init on a stand-in inference server.
# Everything it writes is under build/: the venv, build/demo-root (nccl-init's
# --root), and the copy-on-write layers of scripts/sandbox.sh, in which the
# Python hook lands in the real stdlib path without changing the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

NI=$PWD/build/nccl-init
PROFILE=pcie-8gpu
ROOT=$PWD/build/demo-root
VENV=$PWD/build/demo-venv
PY=/usr/bin/python3

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

[ -x "$VENV/bin/python3" ] || "$PY" -m venv --without-pip "$VENV"
rm -rf "$ROOT"
mkdir -p "$ROOT/etc" "$ROOT/run"

say "nccl-init: $(stat -c %s "$NI") bytes, $(file -b "$NI" | cut -d, -f1,4 | tr -s ' ')"

say "before: the server started directly, with the profile's variables exported"
env $(grep -E '^NCCL_' "profiles/$PROFILE.env" | tr '\n' ' ') \
    "$VENV/bin/python3" scripts/demo-server.py "profiles/$PROFILE.env"

say "after: the same server under nccl-init -p $PROFILE, nothing exported"
run=("$NI" -p "$PROFILE" --profile-dir profiles --root "$ROOT" --python "$VENV/bin/python3"
     -- "$VENV/bin/python3" scripts/demo-server.py "profiles/$PROFILE.env")
if [ "$(id -u)" = 0 ] && unshare --mount --pid --fork --mount-proc true 2>/dev/null; then
    echo "  (nccl-init is PID 1 of a new PID namespace; /etc and /usr are copy-on-write)"
    scripts/sandbox.sh --upper "$ROOT/layers" unshare --pid --fork --mount-proc "${run[@]}"
    hook=$(find "$ROOT/layers" -name sitecustomize.py | head -n 1)
else
    echo "  (no namespaces here: nccl-init runs as a subreaper, without the Python sink)"
    "${run[@]:0:${#run[@]}-4}" --sinks etc-environment,nccl-conf,record -- "${run[@]: -3}"
    hook=
fi

say "what nccl-init wrote (under $ROOT)"
for f in "$ROOT/etc/environment" "$ROOT/etc/nccl.conf" "$ROOT/run/nccl-init/profile.env"; do
    echo "  ${f#"$ROOT"}:"
    sed 's/^/    | /' "$f"
done
if [ -n "$hook" ]; then
    echo "  the Python hook (in the stdlib's sitecustomize; here its copy-on-write layer):"
    sed -n '/^# BEGIN nccl-init$/,/^# END nccl-init$/p' "$hook" | sed 's/^/    | /'
fi
echo "  /run/nccl-init/state.json, sinks:"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("    digest %s, child pid %d" % (d["digest"][:12], d["child_pid"]))
for s in d["sinks"]:
    print("    %-16s %-10s %s" % (s["sink"], s["outcome"], s["path"]))' "$ROOT/run/nccl-init/state.json"

say "and the mistakes NCCL would swallow without a word are stopped at the door"
printf 'NCCL_BUFFSIZE=16M\nNCCL_P2P_LEVEL=sys\nNCCL_NTHREADS=1024\nNCCL_NCHANNELS=16\n' >build/demo-typos.env
status=0
"$NI" -p build/demo-typos.env --sinks none -- true || status=$?
echo "  exit status $status: the server was not started"
