#!/usr/bin/env bash
# make demo: nccl-init running a command under the bundled pcie-8gpu profile.
# Touches nothing outside build/.
set -euo pipefail
cd "$(dirname "$0")/.."

NI=build/nccl-init
VARS=(NCCL_PROTO NCCL_ALGO NCCL_P2P_LEVEL NCCL_MAX_NCHANNELS NCCL_BUFFSIZE NCCL_NTHREADS)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "the binary"
file -L "$NI" | sed 's/^[^:]*: /  /'
printf '  %s bytes\n' "$(stat -c %s "$NI")"

say "nccl-init check pcie-8gpu: the profile, validated against what NCCL 2.28.9 accepts"
"$NI" check --profile-dir profiles pcie-8gpu || true

say "a profile with the mistakes NCCL swallows without a word"
mkdir -p build/demo
printf 'NCCL_BUFFSIZE=16M\nNCCL_P2P_LEVEL=sys\nNCCL_NTHREADS=1024\nNCCL_NCHANNELS=16\n' >build/demo/typos.env
sed 's/^/  | /' build/demo/typos.env
status=0
"$NI" check build/demo/typos.env || status=$?
echo "  exit status: $status"

# The child prints the six variables as its own os.environ sees them.
show='import os
for k in ("'"$(IFS=,; echo "${VARS[*]}" | sed 's/,/","/g')"'"):
    v = os.environ.get(k)
    print("  %-20s %-10s %s" % (k, v if v is not None else "-", "\u2713" if v else "\u2717"))
print("  %-20s %s" % ("NCCL_INIT_PROFILE", os.environ.get("NCCL_INIT_PROFILE", "-")))'

say "without nccl-init: python3 sees"
env -u NCCL_INIT_PROFILE python3 -c "$show"

say "under nccl-init -p pcie-8gpu: python3 sees"
if unshare --pid --fork --mount-proc true 2>/dev/null; then
    echo "  (nccl-init is PID 1 of a new PID namespace)"
    unshare --pid --fork --mount-proc "$NI" --profile-dir profiles -p pcie-8gpu -- \
        python3 -c "import os; print('  PID 1 is', open('/proc/1/comm').read().strip())
$show"
else
    echo "  (no PID namespace here: nccl-init runs as a subreaper)"
    "$NI" --profile-dir profiles -p pcie-8gpu -- python3 -c "$show"
fi

say "an operator's explicit value wins, and is logged as an override"
NCCL_ALGO=Tree "$NI" --profile-dir profiles -p pcie-8gpu -- python3 -c "$show"

say "nccl-init render --format json (first lines): each value and where it came from"
env -i NCCL_ALGO=Tree "$NI" render -q --profile-dir profiles -p pcie-8gpu --format json | head -n 12
