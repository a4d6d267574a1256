#!/usr/bin/env bats
# nccl-init install: the Python hook into every stdlib the python sink
# finds, and the env plugin linked onto the loader's default path
# (/usr/lib/<triplet>/libnccl-env.so -> PREFIX/lib/nccl-init/libnccl-env.so),
# so that NCCL's dlopen("libnccl-env.so") finds it with no NCCL_ENV_PLUGIN
# and no nccl.conf. The real paths are the sandbox's copy-on-write /usr;
# the roots are temporary directories. The binary under test is installed
# where make install puts the release one, beside the plugin it links.

load helpers/common
load helpers/prefix

LIBNCCL=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
ENVPROBE=$BATS_TEST_DIRNAME/helpers/nccl-env-probe.py
TRIPLET=$(gcc -dumpmachine | sed 's/-linux-gnu$//; s/$/-linux-gnu/')
LINK=/usr/lib/$TRIPLET/libnccl-env.so
INFO='NCCL INFO'

setup_file() {
    install_scratch_prefix
}

setup() {
    [ "$(id -u)" = 0 ] || skip "installs into the sandbox's /usr"
    unset_nccl_env
    export LC_ALL=C
    TMP=$(mktemp -d)
    R=$TMP/root
    PYV=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    MOUNTS=()
    rm -f "$LINK" /etc/nccl.conf
    rm -rf /run/nccl-init
    # a hook an earlier suite's start left in the sandbox's stdlib: the
    # hook is the same for every profile, so install would find it current
    remove_python_hooks
}

teardown() {
    local m
    stop_writers
    for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || true; done
    rm -f "$LINK" /etc/nccl.conf
    rm -rf "${TMP:-/nonexistent}" /run/nccl-init
    remove_python_hooks
}

# The hook files install writes on this machine: Debian's conffile, or
# the stdlib's own sitecustomize.py.
hooks() {
    local f
    for f in /etc/python3*/sitecustomize.py /usr/lib/python3*/sitecustomize.py \
        /usr/local/lib/python3*/sitecustomize.py; do
        [ -f "$f" ] && [ ! -L "$f" ] && grep -qx '# BEGIN nccl-init' "$f" && echo "$f"
    done
    return 0
}

# Inode, mtime and text of each path given (a link's text, not its target's).
state_of() {
    local p
    for p; do
        stat -c '%n %i %Y %a %u' "$p"
        if [ -L "$p" ]; then readlink "$p"; fi
    done
}

@test "install: the hook and the link, exit 0; a second install writes nothing and says unchanged" {
    run --separate-stderr "$P/bin/nccl-init" install
    echo "$stderr"
    assert_success
    [ -L "$LINK" ]
    assert_equal "$(readlink "$LINK")" "$SO"
    local h
    h=$(hooks)
    [ -n "$h" ]
    assert_equal "$(grep -c . <<<"$stderr")" "$(($(grep -c . <<<"$h") + 1))"
    for f in $h; do
        [[ "$stderr" == *"nccl-init: python hook: $f written"* ]]
    done
    [[ "$stderr" == *"nccl-init: env plugin link: $LINK -> $SO written"* ]]
    # the block is exactly the python sink's: remove takes it out as its own
    local before
    before=$(state_of "$LINK" $h)
    sleep 1.1
    run --separate-stderr "$P/bin/nccl-init" install
    assert_success
    [[ "$stderr" == *"nccl-init: env plugin link: $LINK -> $SO unchanged"* ]]
    [[ "$stderr" != *written* ]]
    [[ "$stderr" != *warning* ]]
    assert_equal "$(state_of "$LINK" $h)" "$before"
    # -q: silent
    run --separate-stderr "$P/bin/nccl-init" install -q
    assert_success
    assert_equal "$stderr" ""
}

@test "install --root: the link in ROOT/usr/lib/<triplet>, to the plugin as seen inside the root; a binary outside the root links nothing (one line, exit 1)" {
    mkdir -p "$R/usr/lib/$TRIPLET" "$R/usr/lib/python$PYV"
    : >"$R/usr/lib/python$PYV/os.py"
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$REPO" -o build/nccl-init \
        -o build/libnccl-env.so install DESTDIR="$R" >/dev/null
    install -m 0755 "$NI" "$R/usr/local/bin/nccl-init"
    run --separate-stderr "$R/usr/local/bin/nccl-init" install --root "$R"
    echo "$stderr"
    assert_success
    assert_equal "$stderr" "nccl-init: python hook: $R/usr/lib/python$PYV/sitecustomize.py written
nccl-init: env plugin link: $R$LINK -> /usr/local/lib/nccl-init/libnccl-env.so written"
    assert_equal "$(readlink "$R$LINK")" /usr/local/lib/nccl-init/libnccl-env.so
    # inside the root, the link finds the plugin
    cmp "$REPO/build/libnccl-env.so" "$R/usr/local/lib/nccl-init/libnccl-env.so"
    grep -qx '# BEGIN nccl-init' "$R/usr/lib/python$PYV/sitecustomize.py"
    [ ! -e "$LINK" ] # nothing outside the root
    run --separate-stderr "$R/usr/local/bin/nccl-init" install --root "$R"
    assert_success
    assert_equal "$stderr" "nccl-init: python hook: $R/usr/lib/python$PYV/sitecustomize.py unchanged
nccl-init: env plugin link: $R$LINK -> /usr/local/lib/nccl-init/libnccl-env.so unchanged"
    # remove under the root takes both out
    run --separate-stderr "$R/usr/local/bin/nccl-init" remove --root "$R"
    assert_success
    [[ "$stderr" == *"nccl-init: env plugin link: $R$LINK deleted"* ]]
    [ ! -e "$R$LINK" ] && [ ! -L "$R$LINK" ]
    [ ! -e "$R/usr/lib/python$PYV/sitecustomize.py" ]

    # the prefix's binary is outside this root
    run --separate-stderr "$P/bin/nccl-init" install --root "$R"
    assert_failure 1
    assert_equal "$(grep -c 'env plugin link' <<<"$stderr")" 1
    [[ "$stderr" == *"nccl-init: warning: env plugin link: $R$LINK: the env plugin $SO is outside --root $R; not made"* ]]
    [ ! -L "$R$LINK" ]
}

@test "install on a read-only filesystem: exit 1, one line per path it could not write, nothing made" {
    mkdir -p "$R/usr/lib/$TRIPLET" "$R/usr/lib/python$PYV"
    : >"$R/usr/lib/python$PYV/os.py"
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$REPO" -o build/nccl-init \
        -o build/libnccl-env.so install DESTDIR="$R" >/dev/null
    install -m 0755 "$NI" "$R/usr/local/bin/nccl-init"
    local d
    for d in "$R/usr/lib/$TRIPLET" "$R/usr/lib/python$PYV"; do
        mount --bind "$d" "$d"
        MOUNTS+=("$d")
        mount -o remount,bind,ro "$d"
    done
    run --separate-stderr "$R/usr/local/bin/nccl-init" install --root "$R"
    echo "$stderr"
    assert_failure 1
    assert_equal "$stderr" "nccl-init: warning: sink python: $R/usr/lib/python$PYV/sitecustomize.py: create temporary file: Read-only file system; skipped
nccl-init: warning: env plugin link: $R$LINK: symlink: Read-only file system; not made"
    assert_equal "$(ls -A "$R/usr/lib/$TRIPLET")" ""
    assert_equal "$(ls -A "$R/usr/lib/python$PYV")" "os.py"
}

@test "a libnccl-env.so there that is not a link to ours is left alone, one warning, exit 1; remove leaves it too and takes out only ours" {
    printf 'not ours\n' >"$LINK"
    cp "$LINK" "$TMP/orig"
    run --separate-stderr "$P/bin/nccl-init" install
    assert_failure 1
    assert_equal "$(grep -c warning <<<"$stderr")" 1
    [[ "$stderr" == *"nccl-init: warning: env plugin link: $LINK: a regular file is there, not a link to $SO; left alone"* ]]
    cmp "$TMP/orig" "$LINK"
    run --separate-stderr "$P/bin/nccl-init" remove
    assert_success
    cmp "$TMP/orig" "$LINK"
    [[ "$stderr" != *"$LINK"* ]]
    # a link to another plugin
    rm "$LINK"
    ln -s /opt/other/libnccl-env.so "$LINK"
    run --separate-stderr "$P/bin/nccl-init" install
    assert_failure 1
    [[ "$stderr" == *"nccl-init: warning: env plugin link: $LINK: a link to /opt/other/libnccl-env.so is there, not a link to $SO; left alone"* ]]
    assert_equal "$(readlink "$LINK")" /opt/other/libnccl-env.so
    run --separate-stderr "$P/bin/nccl-init" remove
    assert_success
    assert_equal "$(readlink "$LINK")" /opt/other/libnccl-env.so
    # ours: remove takes it out
    rm "$LINK"
    run "$P/bin/nccl-init" install -q
    assert_success
    run --separate-stderr "$P/bin/nccl-init" remove
    assert_success
    [[ "$stderr" == *"nccl-init: env plugin link: $LINK deleted"* ]]
    [ ! -L "$LINK" ]
    run --separate-stderr "$P/bin/nccl-init" remove
    assert_success
    [[ "$stderr" != *"$LINK"* ]]
}

@test "an untrusted plugin (group-writable) is not linked: one line, exit 1" {
    local Q=$TMP/q
    cp -a "$P" "$Q"
    chmod 0664 "$Q/lib/nccl-init/libnccl-env.so"
    run --separate-stderr "$Q/bin/nccl-init" install
    assert_failure 1
    [[ "$stderr" == *"nccl-init: warning: env plugin link: $LINK: env plugin $Q/lib/nccl-init/libnccl-env.so: it is writable by group (mode 0664); not linked"* ]]
    [ ! -L "$LINK" ]
    # no plugin beside the binary at all
    rm "$Q/lib/nccl-init/libnccl-env.so"
    run --separate-stderr "$Q/bin/nccl-init" install
    assert_failure 1
    [[ "$stderr" == *"nccl-init: warning: env plugin link: $LINK: no env plugin at $Q/lib/nccl-init/libnccl-env.so; not made"* ]]
}

@test "install takes --root, --python, -v, -q only: anything else is a usage error, exit 2, nothing written" {
    local args
    for args in "--bogus" "-p lo" "--sinks all" "--enforce" "extra" "--root"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$P/bin/nccl-init" install $args
        assert_failure 2
        [[ "$stderr" == "nccl-init: error: "* ]]
    done
    run --separate-stderr "$P/bin/nccl-init" install -p lo
    assert_equal "$stderr" "nccl-init: error: option '-p' does not apply to install"
    [ ! -L "$LINK" ]
    run "$P/bin/nccl-init" install --help
    assert_success
    assert_line --partial 'install: [--root DIR] [--python PY]...'
}

# The issue's point: an env -i process, no NCCL_ENV_PLUGIN, no nccl.conf,
# nothing of the profile in its environment: NCCL's own dlopen of
# libnccl-env.so finds the plugin through the installed link and serves the
# record's values.
@test "through the installed link: an env -i process with no NCCL_ENV_PLUGIN and no nccl.conf loads the plugin and gets the record's NCCL_SOCKET_IFNAME" {
    [ -f "$LIBNCCL" ] || skip "no $LIBNCCL"
    run "$P/bin/nccl-init" install -q
    assert_success
    # the record's writer runs while NCCL reads it
    NI=$P/bin/nccl-init keep_writer --profile-dir "$PDIR" --sinks record -p lo
    [ -f /run/nccl-init/profile.env ]
    [ ! -e /etc/nccl.conf ]
    run timeout 30 env -i NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP \
        /usr/bin/python3 -I "$ENVPROBE" "$LIBNCCL"
    echo "$output"
    assert_success
    assert_line 'uniqueid: ok'
    refute_output --partial 'NCCL_ENV_PLUGIN set by environment'
    assert_output --partial "$INFO ENV/Plugin: Using nccl-init (v1)"
    # the name the loader found it by (dlinfo's l_name): the link's
    # directory as the loader searched it, /lib/<triplet> first, which on a
    # merged /usr is /usr/lib/<triplet>
    assert_line --regexp "$INFO Successfully loaded external env plugin (/usr)?/lib/$TRIPLET/libnccl-env\.so\$"
    local loaded
    loaded=$(sed -nE 's/.* Successfully loaded external env plugin (.*)$/\1/p' <<<"$output")
    [ "$(realpath "$loaded")" = "$(realpath "$SO")" ]
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to lo"
    assert_output --regexp "$INFO Bootstrap: Using lo:"
}
