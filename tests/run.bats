#!/usr/bin/env bats
# Run mode: the command gets the canonical environment, its exit status
# comes back, and bad input starts nothing.

load helpers/common

setup() {
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

@test "the command runs with the profile in its environment" {
    run --separate-stderr env -i PATH=/usr/bin:/bin "$NI" --profile-dir "$PROFILES" -p pcie-8gpu -- env
    assert_success
    assert_line NCCL_PROTO=LL
    assert_line NCCL_BUFFSIZE=16777216
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
    assert_line --regexp '^NCCL_INIT_DIGEST=[0-9a-f]{64}$'
    assert_line PATH=/usr/bin:/bin
    # one info line at start-up: the profile, the count and the overrides
    [[ "$stderr" == *"nccl-init: profile pcie-8gpu: 5 variables, digest "*", 0 overrides"* ]]
}

@test "an explicit environment value wins and is reported" {
    run --separate-stderr env NCCL_ALGO=Tree "$NI" --profile-dir "$PROFILES" -p pcie-8gpu -- printenv NCCL_ALGO
    assert_success
    assert_output Tree
    [[ "$stderr" == *"1 override: NCCL_ALGO=Tree from the environment over"* ]]
}

@test "exit statuses pass through" {
    for code in 0 1 2 3 42 126 127 128 200 254 255; do
        run "$NI" -q -- sh -c "exit $code"
        assert_equal "$status" "$code"
    done
}

@test "a child killed by signal N gives 128+N" {
    # env --default-signal: a signal ignored where the suite runs (HUP under
    # nohup) stays ignored in the child, as it should (the init hands on
    # what it inherited), and sh could not be killed by it.
    for sig in HUP INT KILL SEGV TERM USR1; do
        run "$NI" -q -- env --default-signal sh -c "kill -$sig \$\$"
        assert_equal "$status" "$((128 + $(kill -l "$sig")))"
    done
}

@test "command not found gives 127, not executable 126, one line each" {
    run --separate-stderr ni_run -q -- no-such-command-anywhere
    assert_failure 127
    assert_equal "$stderr" "nccl-init: error: cannot run 'no-such-command-anywhere': No such file or directory"
    printf 'echo hi\n' >"$TMP/noexec"
    chmod 0644 "$TMP/noexec"
    run --separate-stderr ni_run -q -- "$TMP/noexec"
    assert_failure 126
    assert_equal "$stderr" "nccl-init: error: cannot run '$TMP/noexec': Permission denied"
    run --separate-stderr "$NI" -q -- "$TMP"
    assert_failure 126
}

# The files the sinks write at their real paths (the sandbox's copies).
sink_state() {
    md5sum /etc/environment 2>&1
    ls -la --time-style=+ /etc/nccl.conf /run/nccl-init 2>&1
    for f in /usr/lib/python3*/sitecustomize.py /usr/local/lib/python3*/sitecustomize.py; do
        [ -e "$f" ] && md5sum "$f"
    done
    true
}

@test "a command that cannot be run exits 127 or 126 before any sink is written" {
    before=$(sink_state)
    export NCCL_INIT_LOG=error
    run --separate-stderr "$NI" --profile-dir "$PROFILES" -p pcie-8gpu -- no-such-command-anywhere
    assert_failure 127
    assert_equal "$stderr" "nccl-init: error: cannot run 'no-such-command-anywhere': No such file or directory"
    printf 'echo hi\n' >"$TMP/noexec"
    run --separate-stderr "$NI" --profile-dir "$PROFILES" -p pcie-8gpu -- "$TMP/noexec"
    assert_failure 126
    mkfifo "$TMP/fifo"
    chmod +x "$TMP/fifo"
    run --separate-stderr "$NI" --profile-dir "$PROFILES" -p pcie-8gpu -- "$TMP/fifo"
    assert_failure 126
    # a verb this version does not have runs as a command: not found, nothing written
    run --separate-stderr "$NI" --profile-dir "$PROFILES" -p pcie-8gpu uninstall
    assert_failure 127
    assert_equal "$(sink_state)" "$before"
}

@test "a first argument within two edits of a verb is a usage error; after -- it is a command" {
    before=$(sink_state)
    for typo in chekc chek verfy renderr detcet remvoe hlep versoin; do
        run --separate-stderr "$NI" "$typo" "$PROFILES/pcie-8gpu.env"
        assert_failure 2
        [[ "$stderr" == "nccl-init: error: '$typo' is not a verb: did you mean '"*"'? (a command of that name goes after --: nccl-init -- $typo)" ]]
    done
    run --separate-stderr "$NI" chekc
    [[ "$stderr" == *"did you mean 'check'?"* ]]
    assert_equal "$(sink_state)" "$before"
    # after --, and further than two edits, it is the command
    run --separate-stderr "$NI" -q --sinks none -- chekc
    assert_failure 127
    run --separate-stderr "$NI" -q --sinks none sleep 0
    assert_success
}

@test "logs escape control bytes from the environment and from files" {
    esc=$'\e[31mRing\a'
    run --separate-stderr env NCCL_ALGO="$esc" "$NI" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [[ "$stderr" == *'NCCL_ALGO=\x1b[31mRing\x07 from the environment'* ]]
    [[ "$stderr" != *$'\e'* && "$stderr" != *$'\a'* ]]
    # a profile whose value holds a C1 control (U+009B, CSI), in a file
    # whose name holds an ESC
    f="$TMP/ctl"$'\e'"[2J.env"
    printf 'NCCL_ALGO=Ri\xc2\x9bng\n' >"$f"
    run --separate-stderr "$NI" check "$f"
    assert_failure 2
    [[ "$stderr" == *'ctl\x1b[2J.env:1: error: NCCL_ALGO=Ri\xc2\x9bng: unknown token'* ]]
    [[ "$stderr" != *$'\e'* && "$stderr" != *$'\xc2\x9b'* ]]
}

@test "the command is looked up in the canonical PATH" {
    mkdir "$TMP/bin"
    printf '#!/bin/sh\necho found\n' >"$TMP/bin/only-here"
    chmod +x "$TMP/bin/only-here"
    printf 'PATH=%s:/usr/bin:/bin\n' "$TMP/bin" >"$TMP/path.env"
    run --separate-stderr env -i "$NI" -q -p "$TMP/path.env" -- only-here
    assert_success
    assert_output found
}

@test "an invalid profile exits 2 and starts nothing" {
    printf 'NCCL_NTHREADS=1000\n' >"$TMP/bad.env"
    run --separate-stderr "$NI" -p "$TMP/bad.env" -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    [[ "$stderr" == *"bad.env:1: error: NCCL_NTHREADS=1000: out of range"* ]]
    [[ "$stderr" == *"nccl-init: error: invalid profile: command not started"* ]]
    run --separate-stderr "$NI" -p no-such-profile -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
}

@test "bad options exit 2 and start nothing" {
    run --separate-stderr "$NI" --no-such-option -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: unknown option '--no-such-option' (see --help)"
    run --separate-stderr "$NI" --cap-drop NOT_A_CAP -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: --cap-drop: unknown capability 'NOT_A_CAP'"
    run --separate-stderr "$NI"
    assert_failure 2
    run --separate-stderr env NCCL_INIT_LOG=loud "$NI" -- true
    assert_failure 2
    [ ! -e "$TMP/started" ]
}

@test "bad stop options exit 2 and start nothing" {
    for bad in "--rewrite 15" "--rewrite TERM:" "--rewrite NOPE:TERM" "--rewrite KILL:TERM" \
        "--rewrite CHLD:0" "--rewrite TERM:99" "--grace -1" "--grace 1e3" "--kill-exit-code 256" \
        "--signal-group=yes"; do
        # shellcheck disable=SC2086 # the option and its value, split
        run --separate-stderr "$NI" --sinks none $bad -- touch "$TMP/started"
        assert_failure 2
        [ "${#lines[@]}" -eq 0 ]
        [[ "$stderr" == "nccl-init: error: "* ]]
        [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
    done
    [ ! -e "$TMP/started" ]
}

@test "64 profiles are accepted from -p and from NCCL_INIT_PROFILE" {
    local args=() list=
    for _ in $(seq 64); do
        args+=(-p pcie-8gpu)
        list+=pcie-8gpu,
    done
    run --separate-stderr "$NI" -q --sinks none --profile-dir "$PROFILES" "${args[@]}" -- printenv NCCL_PROTO
    assert_success
    assert_output LL
    run --separate-stderr env NCCL_INIT_PROFILE="$list" "$NI" -q --sinks none --profile-dir "$PROFILES" -- printenv NCCL_PROTO
    assert_success
    assert_output LL
}

@test "65 profiles are a usage error from -p and from NCCL_INIT_PROFILE: nothing started or written" {
    local args=() list=
    for _ in $(seq 65); do
        args+=(-p pcie-8gpu)
        list+=pcie-8gpu,
    done
    before=$(sink_state)
    run --separate-stderr "$NI" --profile-dir "$PROFILES" "${args[@]}" -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: -p/--profile: 65 profiles; the limit is 64"
    run --separate-stderr env NCCL_INIT_PROFILE="$list" "$NI" --profile-dir "$PROFILES" -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_PROFILE: 65 profiles; the limit is 64"
    # render counts the same way
    run --separate-stderr env NCCL_INIT_PROFILE="$list" "$NI" render --profile-dir "$PROFILES"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_PROFILE: 65 profiles; the limit is 64"
    assert_output ""
    [ ! -e "$TMP/started" ]
    assert_equal "$(sink_state)" "$before"
}

@test "a 16000-element NCCL_INIT_PROFILE is rejected with the limit's message" {
    list=$(printf 'x%.0s,' $(seq 16000))
    run --separate-stderr env NCCL_INIT_PROFILE="$list" "$NI" -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_PROFILE: 16000 profiles; the limit is 64"
    [ ! -e "$TMP/started" ]
}

@test "a FIFO as the command, --python or profile neither blocks the start nor is opened" {
    mkfifo "$TMP/fifo" "$TMP/fifo.env"
    chmod +x "$TMP/fifo"
    mkdir "$TMP/root"
    # Before the fix the shebang sniffing of the python sink blocked in
    # open(), with every signal blocked: only SIGKILL ended it.
    run --separate-stderr timeout 10 "$NI" -q --root "$TMP/root" --sinks python -- "$TMP/fifo"
    assert_failure 126
    run --separate-stderr timeout 10 "$NI" -q --root "$TMP/root" --sinks python --python "$TMP/fifo" -- true
    assert_success
    run --separate-stderr timeout 10 "$NI" -q --root "$TMP/root" --sinks none -p "$TMP/fifo.env" -- true
    assert_failure 2
    [[ "$stderr" == *"fifo.env:"*"not a regular file"* ]]
}

@test "a verb only when it is exactly the first argument" {
    run --separate-stderr "$NI" -q -- check
    assert_failure 127 # 'check' is the command here
    run --separate-stderr "$NI" -q render
    assert_failure 127
    run --separate-stderr "$NI" -- version
    assert_failure 127
    run "$NI" version
    assert_success
    assert_output --regexp '^nccl-init [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "options after the command belong to the command" {
    run --separate-stderr "$NI" -q -- sh -c 'echo "$@"' sh -p --help -v
    assert_success
    assert_output "-p --help -v"
    run --separate-stderr "$NI" -q printf '%s\n' --version
    assert_output "--version"
}

@test "--help and --version" {
    run "$NI" --help
    assert_success
    assert_line --partial "usage: nccl-init [OPTIONS] [--] COMMAND [ARGS...]"
    run "$NI" help
    assert_success
    run "$NI" --version
    assert_success
}

@test "-q and NCCL_INIT_LOG silence the start-up line; -v adds detail" {
    run --separate-stderr ni_run -q -- true
    assert_equal "$stderr" ""
    run --separate-stderr env NCCL_INIT_LOG=warn "$NI" --profile-dir "$PROFILES" -- true
    assert_equal "$stderr" ""
    run --separate-stderr "$NI" -v -- sh -c 'kill -USR1 $$; sleep 0.2'
    [[ "$stderr" == *"nccl-init: profile none"* ]]
}

@test "stdin is passed through" {
    run bash -c "printf 'line1\nline2\n' | '$NI' -q --profile-dir '$PROFILES' -- cat"
    assert_success
    assert_output $'line1\nline2'
}

@test "SIGTERM to nccl-init reaches the command" {
    "$NI" -q -- sh -c 'trap "echo got-term >'"$TMP"'/log; exit 3" TERM; touch '"$TMP"'/ready; while :; do sleep 0.05; done' &
    pid=$!
    for _ in $(seq 100); do [ -e "$TMP/ready" ] && break; sleep 0.02; done
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    assert_equal "$status" 3
    assert_equal "$(cat "$TMP/log")" got-term
}

@test "as PID 1 of a new PID namespace" {
    command -v unshare >/dev/null || skip "no unshare"
    unshare --pid --fork --mount-proc true 2>/dev/null || skip "no PID namespaces here"
    run --separate-stderr unshare --pid --fork --mount-proc "$NI" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -q -- \
        sh -c 'echo "init=$(cat /proc/1/comm) me=$$ proto=$NCCL_PROTO"; exit 9'
    assert_failure 9
    assert_output "init=nccl-init me=2 proto=LL"
}

@test "orphans are reaped, not left as zombies" {
    run --separate-stderr "$NI" -q -- sh -c '
        for i in 1 2 3 4 5; do (sleep 0.1 &) ; done
        sleep 0.4
        ps -o stat= --ppid $PPID | grep -c Z || true'
    assert_success
    assert_output 0
}

@test "NCCL_INIT_GRACE sets the grace where options cannot be passed" {
    run --separate-stderr env NCCL_INIT_GRACE=0.3 "$NI" -q --sinks none -- sh -c \
        'setsid sh -c "trap \"\" TERM; sleep 5" </dev/null >/dev/null 2>&1 & sleep 0.2; exit 4'
    assert_failure 4
    [[ "$stderr" == *"the grace time of 300 ms is over: killed"* ]]
    run --separate-stderr env NCCL_INIT_GRACE=soon "$NI" --sinks none -- true
    assert_failure 2
    assert_equal "$stderr" "nccl-init: error: NCCL_INIT_GRACE=soon: expected seconds, up to 86400"
}

@test "a value over 1023 bytes stops the start when the nccl-conf sink is on, and only then" {
    mkdir "$TMP/root"
    printf 'NCCL_NET=%s\n' "$(head -c 1100 /dev/zero | tr '\0' x)" >"$TMP/long.env"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks nccl-conf -p "$TMP/long.env" -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"long.env:1: error: NCCL_NET: longer than the 1023 bytes NCCL's nccl.conf reader keeps"* ]]
    [ ! -e "$TMP/started" ]
    [ -z "$(ls -A "$TMP/root")" ]
    run --separate-stderr "$NI" -q --root "$TMP/root" --sinks none -p "$TMP/long.env" -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
}

@test "a profile key that SGLang or vLLM set themselves warns at the start, and the command runs" {
    run --separate-stderr env -i PATH=/usr/bin:/bin "$NI" --sinks none -p "$REPO/tests/fixtures/server-overrides.env" -- printenv CUDA_DEVICE_MAX_CONNECTIONS
    assert_success
    assert_output 1 # nccl-init passes the profile's value; SGLang replaces it later
    [[ "$stderr" == *"server-overrides.env:4: warning: CUDA_DEVICE_MAX_CONNECTIONS=1: SGLang always sets it to 8 (engine.py _set_envs_and_config), so the profile's value never reaches SGLang"* ]]
    [[ "$stderr" == *"server-overrides.env:5: warning: NCCL_CUMEM_ENABLE=1: SGLang sets it to 0 (1 on a multi-node MNNVL fabric or with --enable-symm-mem) when it is unset, and always with --enable-symm-mem"*"the profile's value wins unless --enable-symm-mem is given"* ]]
    [ "$(grep -c ': warning: ' <<<"$stderr")" = 5 ]
    # warnings, like the profile's other findings: silenced only with the errors-only log level
    run --separate-stderr env NCCL_INIT_LOG=error "$NI" --sinks none -p "$REPO/tests/fixtures/server-overrides.env" -- true
    assert_success
    assert_equal "$stderr" ""
}

# P2P across the root complex where the IOMMU translates the GPUs' DMA (the
# fixtures of tests/detect.bats): one warning that names the fixes, only
# there, on the values the command really gets.
p2p_warnings() { grep -c 'warning: NCCL_P2P_LEVEL=' <<<"$stderr" || true; }

@test "an explicit P2P level over an IOMMU translating GPU DMA: one warning with the fixes" {
    cp -r "$BATS_TEST_DIRNAME/fixtures/rtx-pro-6000-8x-iommu-dma" "$TMP/root"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -- printenv NCCL_P2P_LEVEL
    assert_success
    assert_output SYS
    assert_equal "$(p2p_warnings)" 1
    [[ "$stderr" == *"nccl-init: warning: NCCL_P2P_LEVEL=SYS may hang (IOMMU DMA translation): iommu=pt and ACS off, or NCCL_P2P_DISABLE=1 (pcie-8gpu-iommu)"* ]]
    # PHB too, from a profile of one's own
    printf 'NCCL_P2P_LEVEL=PHB\nNCCL_P2P_DISABLE=0\n' >"$TMP/phb.env"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks none -p "$TMP/phb.env" -- true
    assert_success
    assert_equal "$(p2p_warnings)" 1
    [[ "$stderr" == *"warning: NCCL_P2P_LEVEL=PHB may hang"* ]]
    # the environment's values count: a level from it warns, P2P disabled by it does not
    run --separate-stderr env NCCL_P2P_LEVEL=SYS "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p none -- true
    assert_success
    assert_equal "$(p2p_warnings)" 1
    run --separate-stderr env NCCL_P2P_DISABLE=1 "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    assert_equal "$(p2p_warnings)" 0
    # a level that stays below the root complex, and auto's own choice: none
    printf 'NCCL_P2P_LEVEL=PXB\n' >"$TMP/pxb.env"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks none -p "$TMP/pxb.env" -- true
    assert_success
    assert_equal "$(p2p_warnings)" 0
    run --separate-stderr "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -- printenv NCCL_INIT_PROFILE
    assert_success
    assert_output none
    assert_equal "$(p2p_warnings)" 0
}

# NCCL_P2P_LEVEL's legacy numbers (ncclGetLevel, src/graph/paths.cc:
# levelsOldToNew = LOC, PIX, PXB, PHB, SYS, SYS; above 5 the last): 3 is
# PHB and 4 on SYS, across the host bridge; P2C and PXN stop below it.
@test "NCCL's numeric P2P levels over a translating IOMMU: 3 and up warn with the level NCCL reads" {
    cp -r "$BATS_TEST_DIRNAME/fixtures/rtx-pro-6000-8x-iommu-dma" "$TMP/root"
    hangs() { grep -c 'NCCL_P2P_LEVEL=.* may hang (IOMMU DMA translation)' <<<"$stderr" || true; }
    local v
    for v in 3 4 5 7 9 010 0x3; do
        run --separate-stderr env NCCL_P2P_LEVEL=$v "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p none -- true
        assert_success
        [ "$(hangs)" = 1 ] || { echo "NCCL_P2P_LEVEL=$v: $stderr"; return 1; }
    done
    [[ "$stderr" == *"nccl-init: warning: NCCL_P2P_LEVEL=0x3 (NCCL reads PHB) may hang (IOMMU DMA translation): iommu=pt and ACS off, or NCCL_P2P_DISABLE=1 (pcie-8gpu-iommu)"* ]]
    run --separate-stderr env NCCL_P2P_LEVEL=7 "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p none -- true
    [[ "$stderr" == *"warning: NCCL_P2P_LEVEL=7 (NCCL reads SYS) may hang"* ]]
    for v in 0 1 2 P2C PXN PXB -1 sys; do
        run --separate-stderr env NCCL_P2P_LEVEL=$v "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p none -- true
        assert_success
        [ "$(hangs)" = 0 ] || { echo "NCCL_P2P_LEVEL=$v: $stderr"; return 1; }
    done
    # P2P off as NCCL reads it (the int 1) silences the numbers too
    run --separate-stderr env NCCL_P2P_LEVEL=4 NCCL_P2P_DISABLE=0x1 "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p none -- true
    [ "$(hangs)" = 0 ]
}

@test "an explicit P2P level in passthrough, or without an IOMMU: no warning" {
    for node in rtx-pro-6000-8x-iommu-pt rtx-pro-6000-8x; do
        rm -rf "$TMP/root"
        cp -r "$BATS_TEST_DIRNAME/fixtures/$node" "$TMP/root"
        run --separate-stderr "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -- printenv NCCL_P2P_LEVEL
        assert_success
        assert_output SYS
        assert_equal "$(p2p_warnings)" 0
    done
}

@test "no IOMMU group at all: the P2P check reads no PCI device at the start" {
    cp -r "$BATS_TEST_DIRNAME/fixtures/rtx-pro-6000-8x" "$TMP/root"
    mkdir -p "$TMP/root/sys/kernel/iommu_groups" # the kernel makes it, empty, without an IOMMU
    run --separate-stderr strace -f -e trace=open,openat,stat,newfstatat,statx -o "$TMP/trace" \
        "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    grep -q 'sys/kernel/iommu_groups' "$TMP/trace"
    run grep -c 'sys/bus/pci/devices' "$TMP/trace"
    assert_output 0
    # with a group, the scan runs (and finds the fixture's GPUs in no group: no warning)
    mkdir "$TMP/root/sys/kernel/iommu_groups/0"
    run --separate-stderr strace -f -e trace=open,openat,stat,newfstatat,statx -o "$TMP/trace" \
        "$NI" --root "$TMP/root" --sinks none --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    grep -q 'sys/bus/pci/devices' "$TMP/trace"
}

# A --root whose sinks can be written: etc and run, empty.
fresh_root() {
    rm -rf "$TMP/root" "$TMP/started"
    mkdir -p "$TMP/root/etc" "$TMP/root/run"
}

# An environment value that beats the profile's is the environment's to
# answer for: a warning naming the environment, and under --strict (which
# refuses a start that would not carry the profile) an error that names the
# profile's line it beats. Nothing is started or written then.
@test "--strict: an invalid NCCL value from the environment over the profile's is an error" {
    fresh_root
    run --separate-stderr env NCCL_P2P_LEVEL=sys "$NI" --strict --root "$TMP/root" --profile-dir "$PROFILES" \
        -p pcie-8gpu -- touch "$TMP/started"
    assert_failure 2
    line=$(grep -n '^NCCL_P2P_LEVEL=' "$PROFILES/pcie-8gpu.env" | cut -d: -f1)
    [[ "$stderr" == *"environment: error: NCCL_P2P_LEVEL=sys is not a value NCCL accepts (levels are case-sensitive (did you mean SYS?); NCCL ignores it without a word); the profile $PROFILES/pcie-8gpu.env:$line sets SYS"* ]]
    [[ "$stderr" == *"nccl-init: error: --strict: an environment value beats the profile's: command not started"* ]]
    [[ "$stderr" != *"warning: NCCL_P2P_LEVEL"* ]]
    [ ! -e "$TMP/started" ]
    [ -z "$(find "$TMP/root" -type f)" ]
    # without --strict: the environment's warning, and the start
    run --separate-stderr env NCCL_P2P_LEVEL=sys "$NI" --root "$TMP/root" --profile-dir "$PROFILES" \
        -p pcie-8gpu -- touch "$TMP/started"
    assert_success
    [[ "$stderr" == *"environment: warning: NCCL_P2P_LEVEL=sys: levels are case-sensitive (did you mean SYS?)"* ]]
    [ -e "$TMP/started" ]
    # a key the profile does not set: nothing beaten, a warning under --strict too
    fresh_root
    run --separate-stderr env NCCL_P2P_LEVEL=sys "$NI" --strict --root "$TMP/root" --profile-dir "$PROFILES" \
        -p none -- touch "$TMP/started"
    assert_success
    [[ "$stderr" == *"environment: warning: NCCL_P2P_LEVEL=sys: levels are case-sensitive"* ]]
    [ -e "$TMP/started" ]
}

# nccl.conf's reader keeps 1023 bytes (setEnvFile, src/misc/param.cc). A
# profile value longer than that stops the start with the nccl-conf sink on;
# an environment value that long is the environment's: a warning, and the
# sink leaves the key out, unless --strict.
@test "a long value from the environment warns, naming the environment; --strict refuses it" {
    fresh_root
    algo=Ring$(for _ in $(seq 205); do printf ',Ring'; done)
    [ ${#algo} = 1029 ]
    line=$(grep -n '^NCCL_ALGO=' "$PROFILES/pcie-8gpu.env" | cut -d: -f1)
    run --separate-stderr env NCCL_ALGO="$algo" "$NI" --root "$TMP/root" --sinks nccl-conf \
        --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_success
    [[ "$stderr" == *"environment: warning: NCCL_ALGO: the value is 1029 bytes; NCCL's nccl.conf reader keeps only 1023, so the nccl-conf sink leaves it out"* ]]
    [[ "$stderr" != *"pcie-8gpu.env:$line: error"* ]]
    [ -e "$TMP/started" ]
    ! grep -q '^NCCL_ALGO=' "$TMP/root/etc/nccl.conf" # left out, with the sink's warning
    fresh_root
    run --separate-stderr env NCCL_ALGO="$algo" "$NI" --strict --root "$TMP/root" --sinks nccl-conf \
        --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"environment: error: NCCL_ALGO: the environment's value is 1029 bytes, longer than the 1023 bytes NCCL's nccl.conf reader keeps, and beats the profile's ($PROFILES/pcie-8gpu.env:$line sets Ring): the nccl-conf sink would carry neither"* ]]
    [[ "$stderr" == *"nccl-init: error: --strict: an environment value beats the profile's: command not started"* ]]
    [ ! -e "$TMP/started" ]
    [ -z "$(find "$TMP/root" -type f)" ]
    # the same length on a key the profile does not set: a warning, and the start
    run --separate-stderr env NCCL_IB_HCA="$algo" "$NI" --strict --root "$TMP/root" --sinks nccl-conf \
        --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_success
    [[ "$stderr" == *"environment: warning: NCCL_IB_HCA: the value is 1029 bytes"* ]]
    [ -e "$TMP/started" ]
}

@test "an unknown profile name: the directory looked in, --profile-dir, the nearest names" {
    run --separate-stderr "$NI" --profile-dir "$PROFILES" -p pcie8gpu -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"$PROFILES/pcie8gpu.env: error: no profile pcie8gpu in $PROFILES; did you mean pcie-8gpu? (--profile-dir DIR looks in another directory)"* ]]
    [ ! -e "$TMP/started" ]
    # outside an install: the default directory is not there
    mkdir "$TMP/root"
    run --separate-stderr "$NI" --root "$TMP/root" -p pcie-8gpu -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"$TMP/root/etc/nccl-init/profiles/pcie-8gpu.env: error: no profile pcie-8gpu: the profile directory $TMP/root/etc/nccl-init/profiles does not exist (nccl-init is not installed there); give --profile-dir DIR, or the profile's path"* ]]
    [ ! -e "$TMP/started" ]
    [ -z "$(ls -A "$TMP/root")" ]
}

@test "a CRLF profile is one error, and starts nothing" {
    printf 'NCCL_PROTO=LL\r\nNCCL_ALGO=Ring\r\n' >"$TMP/crlf.env"
    run --separate-stderr "$NI" -p "$TMP/crlf.env" -- touch "$TMP/started"
    assert_failure 2
    assert_equal "$(grep -c 'error: ' <<<"$stderr")" 2 # the file's, then "command not started"
    [[ "$stderr" == *"crlf.env:1: error: the file has CRLF line ends (Windows); convert it with dos2unix"* ]]
    [ ! -e "$TMP/started" ]
}
