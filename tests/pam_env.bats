#!/usr/bin/env bats
# The etc-environment sink end to end: processes started by an ssh login
# (a real OpenSSH server on loopback, UsePAM yes) and by `su -` get the
# profile's values from /etc/environment through pam_env.
#
# Needs root, /usr/sbin/sshd and ssh (Debian: openssh-server,
# openssh-client). Debian's /etc/pam.d/sshd runs "pam_env.so" (readenv is
# on by default) and /etc/pam.d/su, which su-l includes, runs
# "pam_env.so readenv=1": both read /etc/environment.

load helpers/common

# A clean environment for nccl-init, so that no NCCL_* of the caller turns
# into an operator override.
CLEAN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# nccl-init writing the etc-environment sink only; extra arguments go to env
# (e.g. NCCL_ALGO=Tree).
ni_etc_env() {
    env -i PATH="$CLEAN_PATH" "$@" \
        "$NI" --sinks etc-environment --profile-dir "$PROFILES" -p pcie-8gpu -- true
}

# A login over ssh to root@127.0.0.1 that runs "$@" there.
ssh_root() {
    ssh -F /dev/null -p "$SSHD_PORT" -i "$SSHD_DIR/id" \
        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=5 \
        -o LogLevel=ERROR root@127.0.0.1 "$@" </dev/null
}

# The block of a file, markers included.
# The login's environment ($output) holds pcie-8gpu's five values and its name.
assert_pcie_8gpu() {
    assert_line NCCL_PROTO=LL
    assert_line NCCL_ALGO=Ring
    assert_line NCCL_P2P_LEVEL=SYS
    assert_line NCCL_BUFFSIZE=16777216
    assert_line NCCL_MAX_NCHANNELS=16
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
}

block_of() {
    sed -n '/^# BEGIN nccl-init$/,/^# END nccl-init$/p' "$1"
}

# A file without its block.
outside_block() {
    sed '/^# BEGIN nccl-init$/,/^# END nccl-init$/d' "$1"
}

# A free TCP port on 127.0.0.1, found by binding to it.
free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# Starts sshd on a free port; returns 1 when it died or never listened.
start_sshd() {
    SSHD_PORT=$(free_port) || return 1
    cat >"$SSHD_DIR/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $SSHD_PORT
HostKey $SSHD_DIR/host_ed25519
PidFile $SSHD_DIR/sshd.pid
UsePAM yes
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $SSHD_DIR/authorized_keys
StrictModes no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowTcpForwarding no
UseDNS no
LogLevel INFO
EOF
    /usr/sbin/sshd -t -f "$SSHD_DIR/sshd_config" >>"$SSHD_DIR/sshd.log" 2>&1 || return 1
    # fd 3 is bats' own: a background process holding it would hang bats.
    /usr/sbin/sshd -f "$SSHD_DIR/sshd_config" -D -e </dev/null >>"$SSHD_DIR/sshd.log" 2>&1 3>&- &
    SSHD_PID=$!
    local i
    for i in $(seq 50); do
        kill -0 "$SSHD_PID" 2>/dev/null || return 1
        if grep -q "Server listening on 127.0.0.1 port $SSHD_PORT" "$SSHD_DIR/sshd.log" &&
            (exec 9<>"/dev/tcp/127.0.0.1/$SSHD_PORT") 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}

stop_sshd() {
    [ -n "${SSHD_PID:-}" ] || return 0
    kill "$SSHD_PID" 2>/dev/null || true
    local i
    for i in $(seq 50); do
        kill -0 "$SSHD_PID" 2>/dev/null || break
        sleep 0.1
    done
    wait "$SSHD_PID" 2>/dev/null || true
    SSHD_PID=
}

setup_file() {
    [ "$(id -u)" = 0 ] || skip "needs root (sshd, su, /etc/environment)"
    [ -x /usr/sbin/sshd ] || skip "no /usr/sbin/sshd (Debian: openssh-server)"
    command -v ssh >/dev/null || skip "no ssh client (Debian: openssh-client)"
    command -v ssh-keygen >/dev/null || skip "no ssh-keygen (Debian: openssh-client)"
    command -v su >/dev/null || skip "no su"
    command -v python3 >/dev/null || skip "no python3 (to find a free port)"

    SSHD_DIR=$(mktemp -d /tmp/nccl-init-sshd.XXXXXX)
    export SSHD_DIR
    ssh-keygen -q -t ed25519 -N '' -C nccl-init-test-host -f "$SSHD_DIR/host_ed25519"
    ssh-keygen -q -t ed25519 -N '' -C nccl-init-test-client -f "$SSHD_DIR/id"
    cp "$SSHD_DIR/id.pub" "$SSHD_DIR/authorized_keys"
    # The privilege separation directory (/run is an overlay in the sandbox).
    mkdir -p -m 0755 /run/sshd

    # A port found free can be taken before sshd binds it: try again.
    local try
    for try in 1 2 3; do
        start_sshd && break
        stop_sshd
    done
    if [ -z "${SSHD_PID:-}" ]; then
        cat "$SSHD_DIR/sshd.log" >&2
        rm -rf "$SSHD_DIR"
        false
    fi
    export SSHD_PORT SSHD_PID
}

teardown_file() {
    stop_sshd
    [ -z "${SSHD_DIR:-}" ] || rm -rf "$SSHD_DIR"
}

setup() {
    TMP=$(mktemp -d)
    # Back /etc/environment up (it is a copy-on-write overlay in the sandbox,
    # but it is put back byte for byte all the same), then start each test
    # from an empty one.
    cp -p /etc/environment "$TMP/environment.orig"
    : >/etc/environment
}

teardown() {
    cp -p "$TMP/environment.orig" /etc/environment
    local want got
    want=$(sha256sum <"$TMP/environment.orig")
    got=$(sha256sum </etc/environment)
    rm -rf "$TMP"
    assert_equal "$got" "$want"
}

@test "an ssh login gets the profile, its name and its digest" {
    run --separate-stderr ssh_root env
    assert_success
    refute_line --regexp '^NCCL_'

    run --separate-stderr ni_etc_env
    assert_success

    run --separate-stderr env -i PATH="$CLEAN_PATH" "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu
    assert_success
    digest=$(grep -E '^NCCL_INIT_DIGEST=[0-9a-f]{64}$' <<<"$output")
    [ -n "$digest" ]

    run --separate-stderr ssh_root env
    assert_success
    assert_pcie_8gpu
    assert_line "$digest"
    # it is a real ssh session
    assert_line --regexp "^SSH_CONNECTION=127\.0\.0\.1 [0-9]+ 127\.0\.0\.1 $SSHD_PORT\$"
    assert_equal "$(grep -c '^NCCL_' <<<"$output")" 7
}

@test "su - gets the profile too" {
    run --separate-stderr env -i PATH="$CLEAN_PATH" su - root -c env </dev/null
    assert_success
    refute_line --regexp '^NCCL_'

    run --separate-stderr ni_etc_env
    assert_success

    # from a caller with no NCCL_* at all: only pam_env can put them there
    run --separate-stderr env -i PATH="$CLEAN_PATH" su - root -c env </dev/null
    assert_success
    assert_pcie_8gpu
    assert_line --regexp '^NCCL_INIT_DIGEST=[0-9a-f]{64}$'
    assert_equal "$(grep -c '^NCCL_' <<<"$output")" 7
}

@test "an operator override is what the ssh login gets" {
    run --separate-stderr ni_etc_env NCCL_ALGO=Tree
    assert_success
    grep -qx NCCL_ALGO=Tree /etc/environment

    run --separate-stderr ssh_root env
    assert_success
    assert_line NCCL_ALGO=Tree
    refute_line NCCL_ALGO=Ring
    assert_line NCCL_PROTO=LL
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
}

@test "content outside the block is kept byte for byte, and a rerun changes nothing" {
    printf '%s\n' \
        'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"' \
        'FOO=bar' >/etc/environment
    cp /etc/environment "$TMP/before"

    run --separate-stderr ni_etc_env
    assert_success
    outside_block /etc/environment >"$TMP/outside"
    cmp "$TMP/before" "$TMP/outside"
    [ -n "$(block_of /etc/environment)" ]
    first=$(sha256sum </etc/environment)

    run --separate-stderr ni_etc_env
    assert_success
    assert_equal "$(sha256sum </etc/environment)" "$first"

    run --separate-stderr ssh_root env
    assert_success
    assert_line FOO=bar
    assert_line NCCL_PROTO=LL
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
}

@test "a stale block is replaced in place, the lines around it kept" {
    printf '%s\n' 'FOO=bar' '# BEGIN nccl-init' 'NCCL_PROTO=Simple' 'NCCL_STALE=1' \
        '# END nccl-init' 'BAZ=qux' >/etc/environment
    printf '%s\n' 'FOO=bar' 'BAZ=qux' >"$TMP/outside.want"

    run --separate-stderr ni_etc_env
    assert_success
    outside_block /etc/environment >"$TMP/outside"
    cmp "$TMP/outside.want" "$TMP/outside"
    assert_equal "$(sed -n 1p /etc/environment)" FOO=bar
    assert_equal "$(sed -n '$p' /etc/environment)" BAZ=qux

    run --separate-stderr ssh_root env
    assert_success
    assert_line FOO=bar
    assert_line BAZ=qux
    assert_line NCCL_PROTO=LL
    refute_line --partial NCCL_STALE
}

@test "the block written is render --format etc-environment, byte for byte" {
    printf 'FOO=bar\n' >/etc/environment
    run --separate-stderr ni_etc_env
    assert_success

    env -i PATH="$CLEAN_PATH" "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu \
        --format etc-environment >"$TMP/rendered" 2>/dev/null
    block_of /etc/environment >"$TMP/block"
    [ -s "$TMP/rendered" ]
    cmp "$TMP/rendered" "$TMP/block"
    assert_equal "$(head -n1 "$TMP/rendered")" '# BEGIN nccl-init'
    assert_equal "$(tail -n1 "$TMP/rendered")" '# END nccl-init'
}

# pam_env (Linux-PAM 1.5.2, modules/pam_env/pam_env.c) reads with fgets
# into BUF_SIZE 8192 bytes: _assemble_line gives up on a longer line ("line
# too long") and _parse_env_file stops there, keeping what it set before.
@test "a 9004-byte line: the block goes before it, the login gets the profile, and a warning says why" {
    long=OPERATOR_LONG=$(head -c 8990 /dev/zero | tr '\0' x)
    printf '%s\n' FOO=bar "$long" AFTER=1 >/etc/environment
    cp /etc/environment "$TMP/before"
    assert_equal "$(sed -n 2p /etc/environment | tr -d '\n' | wc -c)" 9004

    run --separate-stderr ni_etc_env
    assert_success
    warned=$stderr

    # the real libpam: the line before the long one and the block, nothing after
    run --separate-stderr ssh_root env
    assert_success
    assert_line FOO=bar
    assert_pcie_8gpu
    refute_line AFTER=1
    refute_line --partial OPERATOR_LONG

    [[ "$warned" == *"warning: sink etc-environment: /etc/environment:11: the line is longer than the 8190 bytes pam_env reads (9004 bytes): pam_env reads no line from there on; the nccl-init block put before it"* ]]
    outside_block /etc/environment >"$TMP/outside"
    cmp "$TMP/before" "$TMP/outside"
    assert_equal "$(sed -n 2p /etc/environment)" '# BEGIN nccl-init'

    # a restart: the block stays where it is, the warning is said again
    first=$(sha256sum </etc/environment)
    run --separate-stderr ni_etc_env
    assert_success
    assert_equal "$(sha256sum </etc/environment)" "$first"
    [[ "$stderr" == *"/etc/environment:11: the line is longer than the 8190 bytes pam_env reads (9004 bytes): pam_env reads no line from there on; the nccl-init block is before it"* ]]

    # remove gives the operator's bytes back
    run --separate-stderr env -i PATH="$CLEAN_PATH" "$NI" remove
    cmp "$TMP/before" /etc/environment
}

# _assemble_line joins a line that ends in '\' with the next one that is not
# a comment: appended after such a last line, the block's first value would
# be glued to it (and pam_env drops a continued line the file ends in).
@test "a last line that ends in '\\': the block goes before it, its values intact" {
    printf '%s\n' FOO=bar 'CONT=a\' >/etc/environment
    cp /etc/environment "$TMP/before"

    run --separate-stderr ni_etc_env
    assert_success
    warned=$stderr

    run --separate-stderr ssh_root env
    assert_success
    assert_line FOO=bar
    assert_pcie_8gpu
    refute_line --partial CONT=

    [[ "$warned" == *"/etc/environment:11: the line ends in a backslash and the file ends: pam_env drops it"* ]]
    outside_block /etc/environment >"$TMP/outside"
    cmp "$TMP/before" "$TMP/outside"
}

# A block appended to a file whose last line had no newline carries the
# note that nccl-init added it. An operator's line put in before the block
# then owns the byte before it: a start that moves the block keeps every
# byte outside it, and remove gives the operator's lines back whole.
@test "a long line put in before a block that added the file's last newline: the block moves before it, no byte of the operator's lost" {
    printf 'A=1' >/etc/environment
    run --separate-stderr ni_etc_env
    assert_success
    grep -qx '# nccl-init added the newline before this block' /etc/environment
    long=L=$(head -c 9000 /dev/zero | tr '\0' x)
    sed -i "/^# BEGIN nccl-init\$/i $long" /etc/environment
    outside_block /etc/environment >"$TMP/outside.before"
    cmp "$TMP/outside.before" <(printf 'A=1\n%s\n' "$long")

    run --separate-stderr ni_etc_env
    assert_success
    [[ "$stderr" == *"/etc/environment:"*": the line is longer than the 8190 bytes pam_env reads (9002 bytes): pam_env reads no line from there on; the nccl-init block put before it"* ]]
    outside_block /etc/environment >"$TMP/outside"
    cmp "$TMP/outside.before" "$TMP/outside"
    assert_equal "$(sed -n 2p /etc/environment)" '# BEGIN nccl-init'

    run --separate-stderr ssh_root env
    assert_success
    assert_line A=1
    assert_pcie_8gpu

    run --separate-stderr env -i PATH="$CLEAN_PATH" "$NI" remove
    assert_success
    cmp /etc/environment <(printf 'A=1\n%s\n' "$long")
}
