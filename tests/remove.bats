#!/usr/bin/env bats
# nccl-init remove: every managed block out of the files the sinks write,
# each file byte for byte as it was before the first start (a file
# nccl-init created deleted), and the record under /run/nccl-init gone.
# The real paths run over the copy-on-write /etc, /usr and /run of
# scripts/sandbox.sh; the fixture roots under --root.

load helpers/common

MADE='# nccl-init created this file'
NEWLINE='# nccl-init added the newline before this block'

setup() {
    unset_nccl_env
    TMP=$(mktemp -d)
    R=$TMP/root
    mkdir -p "$R/etc" "$R/run"
    export LC_ALL=C
}

teardown() {
    rm -rf "$TMP"
}

# A start of pcie-8gpu (all sinks), and a remove, under the options given.
start() { "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu "$@" -- true; }

# Every file and link under each path given, one a line: its path, type,
# mode, owner, and its contents' sha256 or where it links to. Absent paths
# are not listed, so a file that appeared shows as a difference.
tree_state() {
    local p
    for p; do
        [ -e "$p" ] || [ -L "$p" ] || continue
        find "$p" \( -name __pycache__ -prune \) -o -printf '%p %y %m %u:%g %l\n' |
            while read -r path type rest; do
                if [ "$type" = f ]; then
                    echo "$path $type $rest $(sha256sum <"$path" | cut -c1-64)"
                else
                    echo "$path $type $rest"
                fi
            done
    done | sort
}

# The files the sinks write at the real paths (the sandbox's copies).
REAL=(/etc/environment /etc/nccl.conf /run/nccl-init)
real_state() {
    tree_state "${REAL[@]}" /etc/python3*/sitecustomize.py /usr/lib/python3*/sitecustomize.py \
        /usr/local/lib/python3*/sitecustomize.py /opt/conda/lib/python3*/sitecustomize.py
}

# The .pyc of a stdlib's hook is a cache of the file: valid when its header
# names the file's mtime and size (PEP 552, timestamp-based).
pyc_valid() {
    python3 - "$1" "$2" <<'EOF'
import os, struct, sys
pyc, src = sys.argv[1:]
h = open(pyc, 'rb').read(16)
flags, mtime, size = struct.unpack('<III', h[4:16])
st = os.stat(src)
sys.exit(not (flags == 0 and mtime == int(st.st_mtime) & 0xffffffff and size == st.st_size & 0xffffffff))
EOF
}

@test "real paths: after starts and a remove, every sink file is as before, byte for byte; a second remove finds nothing" {
    # Earlier suites may have left blocks: the baseline is the system
    # without any (remove's own first result).
    "$NI" remove -q
    local deb=
    [ -L /usr/lib/python3.11/sitecustomize.py ] && deb=/etc/python3.11/sitecustomize.py
    # three layouts of the files nccl-init shares with others
    local round
    for round in empty-and-absent absent-and-no-newline crlf; do
        case $round in
        empty-and-absent) # a Debian install: an empty /etc/environment, no nccl.conf
            : >/etc/environment
            rm -f /etc/nccl.conf ;;
        absent-and-no-newline)
            rm -f /etc/environment
            printf 'NCCL_DEBUG=WARN\n# mine' >/etc/nccl.conf
            chmod 0600 /etc/nccl.conf
            chown nobody: /etc/nccl.conf ;;
        crlf)
            printf 'LANG=C\r\nTZ=UTC' >/etc/environment
            printf 'NCCL_DEBUG=INFO\n' >/etc/nccl.conf ;;
        esac
        real_state >"$TMP/before"

        start
        start # a restart keeps the notes
        ! cmp -s <(real_state) "$TMP/before"
        [ -d /run/nccl-init ]
        grep -qx '# BEGIN nccl-init' /etc/environment /etc/nccl.conf
        [ -z "$deb" ] || grep -qx '# BEGIN nccl-init' "$deb"

        run --separate-stderr "$NI" remove
        assert_success
        diff "$TMP/before" <(real_state)
        # one info line per file changed or deleted, no warning
        [[ "$stderr" != *warning* ]]
        [[ "$stderr" == *"nccl-init: sink record: /run/nccl-init/profile.env deleted"* ]]
        [[ "$stderr" == *"nccl-init: sink record: /run/nccl-init/state.json deleted"* ]]
        [[ "$stderr" == *"nccl-init: sink record: /run/nccl-init deleted"* ]]
        case $round in
        empty-and-absent)
            [[ "$stderr" == *"nccl-init: sink etc-environment: /etc/environment written"* ]]
            [[ "$stderr" == *"nccl-init: sink nccl-conf: /etc/nccl.conf deleted"* ]] ;;
        absent-and-no-newline)
            [[ "$stderr" == *"nccl-init: sink etc-environment: /etc/environment deleted"* ]]
            [[ "$stderr" == *"nccl-init: sink nccl-conf: /etc/nccl.conf written"* ]] ;;
        esac
        if [ -n "$deb" ]; then
            [[ "$stderr" == *"nccl-init: sink python: $deb written"* ]]
            # the stdlib's cached hook compiled again from the file as it is now
            pyc_valid /usr/lib/python3.11/__pycache__/sitecustomize.cpython-311.pyc "$deb"
        fi
        assert_equal "$(grep -c . <<<"$stderr")" "$((5 + ${deb:+1}))"

        # idempotent: nothing left to take out
        run --separate-stderr "$NI" remove
        assert_success
        assert_equal "$stderr" ""
        diff "$TMP/before" <(real_state)
    done
}

# A root with the layouts the python sink knows: Debian's link from the
# stdlib to its conffile, a stdlib in /usr/local that has no sitecustomize
# (under --root nothing is byte-compiled: the root's interpreter is not
# run), a conda env
# whose own sitecustomize.py does not end in a newline; /etc/environment
# in CRLF without a final newline, no nccl.conf.
make_root() {
    local v
    v=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    PYV=$v
    mkdir -p "$R/usr/lib/python$v" "$R/etc/python$v" "$R/opt/conda/envs/x/lib/python$v"
    : >"$R/usr/lib/python$v/os.py"
    printf 'import apport_python_hook\n' >"$R/etc/python$v/sitecustomize.py"
    ln -s "/etc/python$v/sitecustomize.py" "$R/usr/lib/python$v/sitecustomize.py"
    : >"$R/opt/conda/envs/x/lib/python$v/os.py"
    printf 'import conda_hook' >"$R/opt/conda/envs/x/lib/python$v/sitecustomize.py"
    mkdir -p "$R/usr/local/lib/python$v/__pycache__"
    : >"$R/usr/local/lib/python$v/os.py"
    printf 'LANG=C\r\nTZ=UTC' >"$R/etc/environment"
}

# The root, and the hook's .pyc in /usr/local's stdlib.
root_state() { tree_state "$R"; ls -A "$R/usr/local/lib/python$PYV/__pycache__" | grep sitecustomize || true; }

@test "--root: every hook (Debian's conffile, a new file and its .pyc, a conda env's), etc/environment, nccl.conf and the record" {
    make_root
    root_state >"$TMP/before"
    start --root "$R"
    local made=$R/usr/local/lib/python$PYV/sitecustomize.py
    assert_equal "$(sed -n 2p "$made")" "$MADE"
    [ ! -e "$R/usr/local/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc" ]
    assert_equal "$(sed -n 2p "$R/etc/environment")" 'TZ=UTC'
    assert_equal "$(sed -n 4p "$R/etc/environment")" "$NEWLINE"
    assert_equal "$(sed -n 2p "$R/etc/nccl.conf")" "$MADE"
    assert_equal "$(head -1 "$R/etc/python$PYV/sitecustomize.py")" '# BEGIN nccl-init'
    assert_equal "$(tail -1 "$R/opt/conda/envs/x/lib/python$PYV/sitecustomize.py")" 'import conda_hook'
    [ -f "$R/run/nccl-init/state.json" ]

    run --separate-stderr "$NI" remove --root "$R"
    assert_success
    diff "$TMP/before" <(root_state)
    assert_equal "$(sort <<<"$stderr")" "$(sort <<EOF
nccl-init: sink etc-environment: $R/etc/environment written
nccl-init: sink nccl-conf: $R/etc/nccl.conf deleted
nccl-init: sink python: $R/etc/python$PYV/sitecustomize.py written
nccl-init: sink python: $made deleted
nccl-init: sink python: $R/opt/conda/envs/x/lib/python$PYV/sitecustomize.py written
nccl-init: sink record: $R/run/nccl-init/profile.env deleted
nccl-init: sink record: $R/run/nccl-init/state.json deleted
nccl-init: sink record: $R/run/nccl-init deleted
EOF
)"
    # the same with -q: silent; and again: nothing to do, exit 0
    start --root "$R"
    run --separate-stderr "$NI" remove -q --root "$R"
    assert_success
    assert_equal "$stderr" ""
    diff "$TMP/before" <(root_state)
    run --separate-stderr "$NI" remove --root "$R"
    assert_success
    assert_equal "$stderr" ""
}

@test "nothing to remove: exit 0, nothing written or logged; -v says what it looked at" {
    run --separate-stderr "$NI" remove --root "$R"
    assert_success
    assert_equal "$stderr" "nccl-init: sink python: no Python interpreter found"
    printf 'A=1\n' >"$R/etc/environment"
    ln -s /nonexistent "$R/etc/unrelated"
    tree_state "$R" >"$TMP/before"
    run --separate-stderr "$NI" remove -q --root "$R"
    assert_success
    assert_equal "$stderr" ""
    diff "$TMP/before" <(tree_state "$R")
    run --separate-stderr "$NI" remove -v --root "$R"
    assert_success
    [[ "$stderr" == *"sink etc-environment: $R/etc/environment unchanged"* ]]
}

@test "files nccl-init did not make keep their lines, owner and mode; a made file someone added to is kept" {
    printf 'A=1\r\n' >"$R/etc/environment"
    chmod 0640 "$R/etc/environment"
    chown nobody:nogroup "$R/etc/environment"
    tree_state "$R/etc/environment" >"$TMP/before"
    start --root "$R" --sinks etc-environment,nccl-conf
    printf 'MINE=1\n' >>"$R/etc/nccl.conf" # made by nccl-init, then added to
    run --separate-stderr "$NI" remove -q --root "$R"
    assert_success
    diff "$TMP/before" <(tree_state "$R/etc/environment")
    assert_equal "$(cat "$R/etc/nccl.conf")" 'MINE=1'
}

@test "NCCL_CONF_FILE: remove takes the block out of that file, as the start put it there" {
    # under --root, the path as the root's processes see it
    printf 'NCCL_DEBUG=WARN' >"$R/custom.conf"
    cp "$R/custom.conf" "$TMP/custom.orig"
    NCCL_CONF_FILE=/custom.conf start --root "$R" --sinks nccl-conf
    grep -qx '# BEGIN nccl-init' "$R/custom.conf"
    [ ! -e "$R/etc/nccl.conf" ]
    run --separate-stderr env NCCL_CONF_FILE=/custom.conf "$NI" remove --root "$R"
    assert_success
    cmp "$TMP/custom.orig" "$R/custom.conf"
    [[ "$stderr" == *"sink nccl-conf: $R/custom.conf written"* ]]
}

@test "a damaged block is left alone with one warning, the rest is removed, exit 1" {
    start --root "$R" --sinks etc-environment,nccl-conf,record
    # BEGIN without END
    sed -i '/^# END nccl-init$/d' "$R/etc/environment"
    tree_state "$R/etc/environment" >"$TMP/before"
    local inode
    inode=$(stat -c %i "$R/etc/environment")
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    assert_equal "$(grep -c warning <<<"$stderr")" 1
    [[ "$stderr" == *"nccl-init: warning: sink etc-environment: $R/etc/environment: its nccl-init block is damaged (a BEGIN without an END, or two blocks); skipped"* ]]
    diff "$TMP/before" <(tree_state "$R/etc/environment")
    assert_equal "$(stat -c %i "$R/etc/environment")" "$inode"
    [ ! -e "$R/etc/nccl.conf" ]
    [ ! -e "$R/run/nccl-init" ]
    # two blocks, and an END alone: the same; a second remove still exits 1
    printf '# BEGIN nccl-init\n# END nccl-init\nX\n# BEGIN nccl-init\n# END nccl-init\n' >"$R/etc/nccl.conf"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    assert_equal "$(grep -c warning <<<"$stderr")" 2
    printf 'A=1\n# END nccl-init\n' >"$R/etc/environment"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    assert_equal "$(cat "$R/etc/environment")" $'A=1\n# END nccl-init'
}

@test "a made file whose block holds lines nccl-init did not write is left as it is, one warning, exit 1" {
    start --root "$R" --sinks etc-environment,nccl-conf,record
    # the operator's own line, inside the block of a file nccl-init created
    sed -i 's/^# END nccl-init$/MINE=1\n&/' "$R/etc/nccl.conf"
    tree_state "$R/etc/nccl.conf" >"$TMP/before"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    assert_equal "$(grep -c warning <<<"$stderr")" 1
    [[ "$stderr" == *"nccl-init: warning: sink nccl-conf: $R/etc/nccl.conf: nccl-init created it, but the lines in its block are not the ones it wrote: they may be yours; left as it is"* ]]
    diff "$TMP/before" <(tree_state "$R/etc/nccl.conf")
    grep -qx MINE=1 "$R/etc/nccl.conf"
    # the other sinks are removed all the same
    [ ! -e "$R/etc/environment" ]
    [ ! -e "$R/run/nccl-init" ]
}

@test "a made file that is no longer owned as nccl-init made it loses its block and is kept" {
    start --root "$R" --sinks etc-environment,nccl-conf
    chown nobody:nogroup "$R/etc/environment"
    chmod 0600 "$R/etc/nccl.conf"
    run --separate-stderr "$NI" remove --root "$R"
    assert_success
    assert_equal "$(stat -c '%s %U:%G %a' "$R/etc/environment")" '0 nobody:nogroup 644'
    assert_equal "$(stat -c '%s %U:%G %a' "$R/etc/nccl.conf")" '0 root:root 600'
    [[ "$stderr" == *"sink etc-environment: $R/etc/environment: nccl-init created it, but it is now $(id -u nobody):$(id -g nobody), mode 0644, 1 link(s), not 0:0, 0644, one link: the block taken out, the file kept"* ]]
    [[ "$stderr" == *"sink nccl-conf: $R/etc/nccl.conf: nccl-init created it, but it is now 0:0, mode 0600, 1 link(s)"* ]]
}

@test "NCCL_CONF_FILE in a sticky directory: another user's file with a made block is not deleted" {
    chmod 0755 "$TMP" "$R"
    mkdir -m 1777 "$R/sticky"
    NCCL_CONF_FILE=/sticky/nccl.conf start --root "$R" --sinks nccl-conf
    grep -qx "$MADE" "$R/sticky/nccl.conf"
    # the same bytes, but a file of another user's, there in its place
    cp "$R/sticky/nccl.conf" "$TMP/copy"
    rm "$R/sticky/nccl.conf"
    setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c 'umask 022; cat >"$1"' sh \
        "$R/sticky/nccl.conf" <"$TMP/copy"
    assert_equal "$(stat -c %U "$R/sticky/nccl.conf")" nobody
    run --separate-stderr env NCCL_CONF_FILE=/sticky/nccl.conf "$NI" remove --root "$R"
    assert_success
    assert_equal "$(stat -c '%s %U' "$R/sticky/nccl.conf")" '0 nobody'
    [[ "$stderr" == *"nccl-init created it, but it is now $(id -u nobody):$(id -g nobody), mode 0644"* ]]
}

# The same on the host, without --root: NCCL_CONF_FILE names the file as it
# is. The start writes the nccl-conf sink alone; the remove goes over the
# sandbox's copies of /etc and the stdlibs as well, as on a host.
@test "NCCL_CONF_FILE in a sticky directory, without --root: another user's file with a made block is not deleted" {
    chmod 0755 "$TMP"
    mkdir -m 1777 "$TMP/sticky"
    local f=$TMP/sticky/nccl.conf
    NCCL_CONF_FILE=$f start --sinks nccl-conf
    grep -qx "$MADE" "$f"
    cp "$f" "$TMP/copy"
    rm "$f"
    setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c 'umask 022; cat >"$1"' sh "$f" <"$TMP/copy"
    run --separate-stderr env NCCL_CONF_FILE="$f" "$NI" remove
    assert_success
    assert_equal "$(stat -c '%s %U' "$f")" '0 nobody'
    [[ "$stderr" == *"sink nccl-conf: $f: nccl-init created it, but it is now $(id -u nobody):$(id -g nobody), mode 0644"* ]]
}

@test "a symlink at a target, or in its path, is refused and nothing behind it touched, exit 1" {
    start --root "$R" --sinks etc-environment,record
    mv "$R/etc/environment" "$TMP/environment"
    ln -s "$TMP/environment" "$R/etc/environment"
    cp "$TMP/environment" "$TMP/environment.orig"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    [[ "$stderr" == *"warning: sink etc-environment: $R/etc/environment: "*"symlink"* ]]
    [ -L "$R/etc/environment" ]
    cmp "$TMP/environment" "$TMP/environment.orig"
    # a link at a stdlib's sitecustomize.py that is not Debian's conffile
    rm "$R/etc/environment"
    mkdir -p "$R/usr/lib/python3.99"
    : >"$R/usr/lib/python3.99/os.py"
    printf '# BEGIN nccl-init\n# END nccl-init\n' >"$TMP/site.py"
    ln -s "$TMP/site.py" "$R/usr/lib/python3.99/sitecustomize.py"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    [[ "$stderr" == *"warning: sink python: $R/usr/lib/python3.99/sitecustomize.py: refusing to write through a symlink; skipped"* ]]
    assert_equal "$(cat "$TMP/site.py")" $'# BEGIN nccl-init\n# END nccl-init'
    # a link in the record's path: nothing deleted behind it
    rm "$R/usr/lib/python3.99/sitecustomize.py"
    mkdir "$TMP/elsewhere"
    : >"$TMP/elsewhere/profile.env"
    ln -s "$TMP/elsewhere" "$R/run/nccl-init"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    [[ "$stderr" == *"warning: sink record: $R/run/nccl-init/profile.env: "*"symlink"* ]]
    [ -f "$TMP/elsewhere/profile.env" ]
    [ -L "$R/run/nccl-init" ]
}

@test "a file with another hard link is refused, both names untouched, exit 1" {
    start --root "$R" --sinks etc-environment
    printf 'A=1\n' >>"$R/etc/environment"
    ln "$R/etc/environment" "$TMP/other-name"
    cp "$R/etc/environment" "$TMP/orig"
    run --separate-stderr "$NI" remove --root "$R"
    assert_failure 1
    [[ "$stderr" == *"warning: sink etc-environment: $R/etc/environment: it has 2 hard links; replacing it would split them; skipped"* ]]
    cmp "$TMP/orig" "$R/etc/environment"
    cmp "$TMP/orig" "$TMP/other-name"
}

@test "remove takes --root, -v, -q and --help only: anything else is a usage error, exit 2" {
    start --root "$R" --sinks etc-environment
    cp "$R/etc/environment" "$TMP/orig"
    local args
    for args in "--bogus" "-x" "-p pcie-8gpu" "--sinks all" "--python python3" "extra" "--root"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$NI" remove --root "$R" $args
        assert_failure 2
        [[ "$stderr" == "nccl-init: error: "* ]]
    done
    run --separate-stderr "$NI" remove --root "$R" -p pcie-8gpu
    assert_equal "$stderr" "nccl-init: error: option '-p' does not apply to remove"
    run --separate-stderr "$NI" remove --root "$R" extra
    assert_equal "$stderr" "nccl-init: error: remove: unexpected argument 'extra'"
    run --separate-stderr "$NI" remvoe --root "$R"
    assert_failure 2
    [[ "$stderr" == *"did you mean 'remove'?"* ]]
    cmp "$TMP/orig" "$R/etc/environment"
    run "$NI" remove --help
    assert_success
    assert_line --partial 'remove'
    cmp "$TMP/orig" "$R/etc/environment"
}

# An emptyDir at /run/nccl-init (root's, 0777, not sticky), as a pod has it:
# the record sink writes there, and remove takes its files out the same way.
@test "a 0777 record directory (an emptyDir): remove deletes the record's files, exit 0" {
    mkdir -p "$R/run/nccl-init"
    chmod 0777 "$R/run/nccl-init"
    start --root "$R" --sinks record
    [ -f "$R/run/nccl-init/profile.env" ]
    run --separate-stderr "$NI" remove --root "$R"
    echo "$stderr"
    assert_success
    [[ "$stderr" == *"sink record: $R/run/nccl-init/profile.env deleted"* ]]
    [ ! -e "$R/run/nccl-init/profile.env" ]
    [ ! -e "$R/run/nccl-init/state.json" ]
    [[ "$stderr" != *warning* ]]
}

@test "remove --root on a root without etc/: nothing to take out, no warning, exit 0" {
    mkdir "$TMP/bare"
    run --separate-stderr "$NI" remove --root "$TMP/bare"
    assert_success
    run ! grep -q warning <<<"$stderr"
    [ -z "$(ls -A "$TMP/bare")" ]
}
