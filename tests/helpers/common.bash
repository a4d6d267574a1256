# Shared by the bats files: which binary, where the profiles are.
bats_require_minimum_version 1.5.0

# Run mode writes /etc/environment, the Python stdlib and /run/nccl-init:
# never outside the sandbox of scripts/sandbox.sh (make test).
if [ "${NCCL_INIT_SANDBOX:-}" != 1 ]; then
    echo "run these tests with 'make test' or under scripts/sandbox.sh: they write /etc" >&2
    exit 1
fi
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The release binary by default; the test runner also passes the ASan+UBSan
# build through NCCL_INIT_BIN.
NI=${NCCL_INIT_BIN:-$REPO/build/nccl-init}
PROFILES=$REPO/profiles
EXEC_WITH_ENV=$REPO/build/test/exec-with-env

# nccl-init's verbs and run mode with the repository's profiles.
# Nothing from the caller's environment may override a profile: every
# NCCL_* variable but the suite's own controls is unset.
unset_nccl_env() {
    local v
    for v in $(compgen -v NCCL_); do
        case $v in NCCL_INIT_SANDBOX | NCCL_INIT_BIN) ;; *) unset "$v" ;; esac
    done
}

ni_check() { "$NI" check --profile-dir "$PROFILES" "$@"; }
ni_render() { "$NI" render --profile-dir "$PROFILES" "$@"; }
ni_run() { "$NI" --profile-dir "$PROFILES" "$@"; }

# The capability masks of a process, as "CapInh CapPrm CapEff CapBnd CapAmb".
caps_of() {
    awk '/^Cap(Inh|Prm|Eff|Bnd|Amb):/ { printf "%s%s", sep, $2; sep = " " } END { print "" }' \
        "/proc/$1/status"
}

# Takes nccl-init's Python hooks out of the (copy-on-write) stdlib again, so
# that a test starts from an image that has none.
remove_python_hooks() {
    local f
    for f in /etc/python3*/sitecustomize.py /usr/lib/python3*/sitecustomize.py \
        /usr/local/lib/python3*/sitecustomize.py; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        sed -i '/^# BEGIN nccl-init$/,/^# END nccl-init$/d' "$f"
        [ -s "$f" ] || rm -f "$f"
    done
    rm -f /usr/lib/python3*/__pycache__/sitecustomize.* /usr/local/lib/python3*/__pycache__/sitecustomize.*
}

# The fenced block of language $2 (```$2) under README.md's heading "## $1",
# up to the next heading; nothing when there is none.
readme_fence() {
    awk -v h="## $1" -v f="\`\`\`$2" '$0 == h { s = 1; next } s && /^## / { exit }
        s && $0 == f { g = 1; next } g && /^```/ { exit } g' "$REPO/README.md"
}

# record_writer_lines [PID]: the record's two lines that name the nccl-init
# run that wrote it, NCCL_INIT_PID and NCCL_INIT_START (field 22 of
# /proc/PID/stat, read after the last ')': the command name may hold ')'
# and spaces), for a record a test writes by hand. The readers take such a
# record only while that process runs: name one that outlives the test's
# reads, the test shell's own ($$, the default) or a sleep it started.
record_writer_lines() {
    set -- "${1:-$$}"
    local stat
    stat=$(cat "/proc/$1/stat") || return 1
    # shellcheck disable=SC2086 # the fields after the command name
    set -- "$1" ${stat##*)}
    printf 'NCCL_INIT_PID=%s\nNCCL_INIT_START=%s\n' "$1" "${21}"
}

# keep_writer ARGS...: nccl-init ARGS (its options, no command) as the
# writer of the record, kept running: its command sleeps until the test's
# teardown calls stop_writers. The readers take a record only while the
# nccl-init that wrote it runs (doc/sinks.md, "The writer rule").
keep_writer() {
    local ready=$BATS_TEST_TMPDIR/writer.$RANDOM _
    "$NI" -q "$@" -- sh -c ': >"$1"; exec sleep 1000' sh "$ready" 2>/dev/null 3>&- &
    KEPT_WRITERS+=("$!")
    for _ in $(seq 300); do
        [ -e "$ready" ] && return 0
        sleep 0.05
    done
    echo "keep_writer: nccl-init $* did not start its command" >&2
    return 1
}

stop_writers() {
    local p
    for p in "${KEPT_WRITERS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${KEPT_WRITERS[@]}"; do wait "$p" 2>/dev/null || true; done
    KEPT_WRITERS=()
}

# witness_of PID: the env plugin's witness in process PID (the memfd its
# /proc/PID/fd link names, doc/env-plugin.md "The witness"), every one the
# process holds; nothing when it has none.
witness_of() {
    local f
    for f in /proc/"$1"/fd/*; do
        [ "$(readlink "$f" 2>/dev/null)" = "/memfd:nccl-init-witness (deleted)" ] && cat "$f"
    done
    return 0
}
