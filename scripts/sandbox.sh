#!/usr/bin/env bash
# sandbox.sh [--upper DIR] COMMAND [ARGS...]
#
# Runs COMMAND in a private mount namespace where /etc, /usr, /run (and
# /opt when present) are copy-on-write overlays of the real ones. nccl-init's
# sinks write real paths (/etc/environment, the Python stdlib, /run/nccl-init);
# in here those writes land in the overlays' upper directories and the
# machine's own files are never changed. Upper directories go to a temporary
# directory that is removed afterwards, or to DIR (kept) with --upper.
set -euo pipefail

keep=
if [ "${1:-}" = --upper ]; then
    keep=$2
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: sandbox.sh [--upper DIR] COMMAND [ARGS...]" >&2; exit 2; }

if [ -n "$keep" ]; then
    mkdir -p "$keep"
    top=$(cd "$keep" && pwd)
else
    top=$(mktemp -d /tmp/nccl-init-sandbox.XXXXXX)
    trap 'rm -rf "$top"' EXIT
fi

dirs=(/etc /usr /run)
[ -d /opt ] && dirs+=(/opt)
script='set -e'
for d in "${dirs[@]}"; do
    name=${d#/}
    rm -rf "${top:?}/$name.work"
    mkdir -p "$top/$name.upper" "$top/$name.work"
    script+="; mount -t overlay overlay -o lowerdir=$d,upperdir=$top/$name.upper,workdir=$top/$name.work $d"
done
script+='; exec "$@"'

status=0
NCCL_INIT_SANDBOX=1 unshare --mount --propagation private bash -c "$script" sandbox "$@" || status=$?
exit "$status"
