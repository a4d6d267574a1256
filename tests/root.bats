#!/usr/bin/env bats
# --root DIR: the image's tree, seen from outside. A start under it writes
# nothing outside DIR: an interpreter named on the command line (COMMAND,
# --python) is the root's, its links resolved inside DIR; the hook and
# state.json name paths as the root's processes see them; and remove --root
# takes out exactly what the starts under DIR wrote, DIR then as before.
#
# Each start and remove runs in `contained` (below): a mount namespace of
# its own inside scripts/sandbox.sh's, where /etc, /usr, /run and /opt are
# overlays whose upper directories collect every file changed there, and
# the rest of / is read-only but for the test's own directory. So a write
# outside the root shows as a file in an upper directory, or as a
# read-only error, and the sandbox's /etc and /usr are never changed.

load helpers/common

PY=/usr/bin/python3
PYV=$($PY -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)

setup() {
    [ -x "$PY" ] || skip "no $PY"
    unset_nccl_env
    TMP=$(mktemp -d)
    R=$TMP/root
    mkdir -p "$R/etc" "$R/run"
    export LC_ALL=C
}

teardown() {
    stop_writers
    rm -rf "$TMP"
}

# contained COMMAND...: COMMAND in the namespace described above; then, in
# the same namespace, the checksums of /etc and the Python stdlibs into
# $TMP/sums.after. What changed under /etc, /usr, /run and /opt is in
# $TMP/up/*.upper afterwards (changed_outside).
contained() {
    local d up=$TMP/up script='set -e; mount --bind "$T" "$T"'
    rm -rf "$up"
    for d in /etc /usr /run /opt; do
        [ -d "$d" ] || continue
        mkdir -p "$up/${d#/}.upper" "$up/${d#/}.work"
        script+="; mount -t overlay overlay -o lowerdir=$d,upperdir=$up/${d#/}.upper,workdir=$up/${d#/}.work $d"
    done
    script+='; mount -o remount,bind,ro /; s=0; "$@" || s=$?; sums >"$T/sums.after"; exit $s'
    T=$TMP unshare --mount --propagation private bash -c "$(declare -f sums); $script" contained "$@"
}

# Every file and link of /etc and the stdlibs: path and sha256, or where it links.
sums() {
    local d
    for d in /etc /usr/lib/python3* /usr/local/lib/python3*; do
        [ -d "$d" ] || continue
        find "$d" -type l -printf '%p -> %l\n'
        find "$d" -type f -print0 | xargs -0 -r sha256sum
    done
}

# What a contained command changed outside the root: one line per entry of
# the overlays' upper directories.
changed_outside() { (cd "$TMP/up" && find ./*.upper -mindepth 1 | sort); }

# Nothing outside the root changed: no overlay entry, the same checksums.
assert_contained() {
    assert_equal "$(changed_outside)" ""
    diff "$TMP/sums.before" "$TMP/sums.after"
    [[ "$stderr" != *"Read-only file system"* ]]
}

# Every file and link under DIR: path, type, mode, owner, sha256 or link
# (a .pyc, a cache of its source's mtime, apart: pyc_valid).
tree_state() {
    find "$1" \( -name __pycache__ -prune \) -o -printf '%P %y %m %u:%g %l\n' |
        while read -r path type rest; do
            if [ "$type" = f ]; then
                echo "$path $type $rest $(sha256sum <"$1/$path" | cut -c1-64)"
            else
                echo "$path $type $rest"
            fi
        done | sort
}

# The .pyc is valid for its source (PEP 552, timestamp-based).
pyc_valid() {
    python3 - "$1" "$2" <<'EOF'
import os, struct, sys
pyc, src = sys.argv[1:]
flags, mtime, size = struct.unpack('<III', open(pyc, 'rb').read(16)[4:16])
st = os.stat(src)
sys.exit(not (flags == 0 and mtime == int(st.st_mtime) & 0xffffffff and size == st.st_size & 0xffffffff))
EOF
}

# "sink path" of state.json's entries with outcome written.
state_written() {
    python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["sinks"]:
    if s["outcome"] == "written":
        print(s["sink"], s["path"])' "$R/run/nccl-init/state.json"
}

start() { "$NI" --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" "$@"; }

# A prefix-style interpreter at $1 (as tests/python.bats's make_prefix): a
# copy of the system binary that finds its stdlib by its own location, and
# copies of the stdlib files it loads to start (with site, as python3 -I) and
# to byte-compile: copies, not links, since under --root a link inside the
# root leads to the root's path, never to the host's stdlib.
make_prefix() {
    local p=$1 f
    mkdir -p "$p/bin" "$p/lib/python$PYV/__pycache__" "$p/lib/python$PYV/lib-dynload"
    cp "$(readlink -f "$PY")" "$p/bin/python$PYV"
    ln -s "python$PYV" "$p/bin/python3"
    "$PY" -I -c 'import py_compile, sys
for m in list(sys.modules.values()):
    print(getattr(m, "__file__", None) or "")' | sort -u | while read -r f; do
        case $f in "/usr/lib/python$PYV/sitecustomize.py") continue ;; "/usr/lib/python$PYV/"*) ;; *) continue ;; esac
        mkdir -p "$p/lib/python$PYV/$(dirname "${f#/usr/lib/python$PYV/}")"
        cp -L "$f" "$p/lib/python$PYV/${f#/usr/lib/python$PYV/}"
    done
    [ -f "$p/lib/python$PYV/os.py" ]
}

@test "COMMAND /usr/bin/python3 and --python outside a root without Python: nothing written outside it, one warning each" {
    make_prefix "$TMP/prefix"
    sums >"$TMP/sums.before"
    tree_state "$TMP/prefix" >"$TMP/prefix.before"
    run --separate-stderr contained "$NI" --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" \
        --python "$TMP/prefix/bin/python3" -- "$PY" -c 'print("ran")'
    assert_success
    assert_output ran
    assert_contained
    # the prefix outside the root is not the root's: untouched
    diff "$TMP/prefix.before" <(tree_state "$TMP/prefix")
    assert_equal "$(grep 'sink python' <<<"$stderr")" "\
nccl-init: warning: sink python: $TMP/prefix/bin/python3: no Python standard library for it under --root $R; no hook for it
nccl-init: warning: sink python: $PY: no Python standard library for it under --root $R; no hook for it
nccl-init: sink python: no Python interpreter found"
    # the root holds the record and the two /etc files, nothing else
    assert_equal "$(cd "$R" && find . -type f | sort)" "$(printf '%s\n' ./etc/environment ./etc/nccl.conf \
        ./run/nccl-init/profile.env ./run/nccl-init/state.json)"
    run ! grep -q '"sink": "python"' "$R/run/nccl-init/state.json"
}

# The system Python's Debian layout, copied into the root: the binary, its
# stdlib (with Debian's link sitecustomize.py -> /etc/python3.X/...), the
# conffile, and the C libraries it loads, so that it runs in the root.
copy_system_python() {
    local b
    mkdir -p "$R/usr/bin" "$R/usr/lib" "$R/etc/python$PYV"
    cp -a "/usr/bin/python$PYV" "$R/usr/bin/"
    ln -s "python$PYV" "$R/usr/bin/python3"
    cp -a "/usr/lib/python$PYV" "$R/usr/lib/"
    printf 'import os\nos.environ["DEBIAN_SITE_RAN"] = "1"\n' >"$R/etc/python$PYV/sitecustomize.py"
    [ -L "$R/usr/lib/python$PYV/sitecustomize.py" ] ||
        ln -sf "/etc/python$PYV/sitecustomize.py" "$R/usr/lib/python$PYV/sitecustomize.py"
    for b in $(ldd "/usr/bin/python$PYV" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
        mkdir -p "$R${b%/*}"
        cp -L "$b" "$R$b"
    done
}

# Runs COMMAND chrooted into the root with an empty environment.
in_root() {
    mkdir -p "$R/proc"
    unshare --mount --propagation private sh -c \
        'mount -t proc proc "$2/proc" && exec env -i PATH=/usr/bin:/bin "$@"' \
        sh "$(command -v chroot)" "$R" "$@"
}

@test "COMMAND /usr/bin/python3 with the system Python copied into the root: the root's conffile gets the hook, nothing outside; remove --root gives DIR back" {
    [ -L "/usr/lib/python$PYV/sitecustomize.py" ] || skip "not Debian's layout"
    copy_system_python
    local conf=/etc/python$PYV/sitecustomize.py pyc=$R/usr/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc
    tree_state "$R" >"$TMP/root.before"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" -v --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" \
        -- "$PY" -c 'print("ran")'
    assert_success
    assert_output ran
    assert_contained
    [[ "$stderr" != *warning* ]]
    [[ "$stderr" == *"nccl-init: sink python: $R$conf written"* ]]
    # the block at the top of the root's conffile, naming the record as the
    # root's processes see it; the link kept; not byte-compiled (the root's
    # interpreter is not run on the host), and no .pyc of the file before
    assert_equal "$(head -1 "$R$conf")" '# BEGIN nccl-init'
    grep -qF "_nccl_init('/run/nccl-init/profile.env')" "$R$conf"
    assert_equal "$(readlink "$R/usr/lib/python$PYV/sitecustomize.py")" "$conf"
    [[ "$stderr" == *"nccl-init: python: $R$conf: not byte-compiled under --root"* ]]
    [ ! -e "$pyc" ]
    # state.json: the paths inside the root
    run state_written
    assert_output "$(printf '%s\n' 'record /run/nccl-init/profile.env' 'etc-environment /etc/environment' \
        'nccl-conf /etc/nccl.conf' "python $conf")"
    # the root's python3, run in the root, applies the root's record while
    # a start that wrote it runs, and compiles the hook itself (as root
    # there, it can write __pycache__)
    keep_writer --root "$R" --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run --separate-stderr in_root /usr/bin/python3 -c 'import os; print(os.environ.get("NCCL_ALGO"), os.environ.get("DEBIAN_SITE_RAN"))'
    assert_output "Ring 1"
    assert_equal "$stderr" ""
    pyc_valid "$pyc" "$R$conf"

    rm -rf "$R/proc"
    run --separate-stderr contained "$NI" remove --root "$R"
    assert_success
    assert_contained
    diff "$TMP/root.before" <(tree_state "$R")
    # the file's .pyc went with the block: it was the hook's
    [[ "$stderr" == *"nccl-init: sink python: $pyc deleted"* ]]
    [ ! -e "$pyc" ]
}

@test "remove --root takes out the hook of an interpreter outside the standard prefixes, from state.json, as current and older binaries write it" {
    make_prefix "$R/opt/py"
    tree_state "$R" >"$TMP/root.before"
    local hook=$R/opt/py/lib/python$PYV/sitecustomize.py
    local pyc=$R/opt/py/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc
    for format in inside prefixed; do
        sums >"$TMP/sums.before"
        run --separate-stderr contained "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" \
            --python /opt/py/bin/python3 -- true
        assert_success
        assert_contained
        [ -f "$hook" ] && [ ! -e "$pyc" ]
        grep -qF "\"path\": \"/opt/py/lib/python$PYV/sitecustomize.py\"" "$R/run/nccl-init/state.json"
        # an older nccl-init wrote the paths with the root in front
        [ "$format" = inside ] || sed -i "s|\"path\": \"/|\"path\": \"$R/|" "$R/run/nccl-init/state.json"
        run --separate-stderr contained "$NI" remove --root "$R"
        assert_success
        assert_contained
        [[ "$stderr" == *"nccl-init: sink python: $hook deleted"* ]]
        [[ "$stderr" != *warning* ]]
        diff "$TMP/root.before" <(tree_state "$R")
        [ ! -e "$pyc" ]
    done
}

@test "an interpreter's links, relative and absolute, and a venv's home are resolved inside the root; a loop is a warning" {
    # a stdlib at a prefix the search does not look at, only its landmark
    # (no binary: nothing is run, nccl-init decides from paths)
    mkdir -p "$R/srv/py/bin" "$R/srv/py/lib/python3.9" "$R/opt/bin" "$R/venv/bin"
    : >"$R/srv/py/lib/python3.9/os.py"
    : >"$R/srv/py/bin/python3.9"
    # ".." above the root stays at the root, "/" is the root's
    ln -s ../../../../../../../../srv/py/bin/python3.9 "$R/opt/bin/python3"
    ln -s /srv/py/bin/python3.9 "$R/opt/bin/python3-abs"
    printf 'home = /srv/py/bin\nversion = 3.9.1\n' >"$R/venv/pyvenv.cfg"
    ln -s /srv/py/bin/python3.9 "$R/venv/bin/python"
    ln -s python-loop "$R/opt/bin/python-loop"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" -v --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" --sinks python \
        --python /opt/bin/python3 --python "$R/opt/bin/python3-abs" --python /venv/bin/python \
        --python /opt/bin/python-loop -- true
    assert_success
    assert_contained
    [[ "$stderr" == *"nccl-init: python: $R/srv/py/lib/python3.9 (3.9)"* ]]
    assert_equal "$(grep -c 'python: .* (3\.9)$' <<<"$stderr")" 1
    assert_equal "$(grep warning <<<"$stderr")" \
        "nccl-init: warning: sink python: /opt/bin/python-loop: no Python standard library for it under --root $R; no hook for it"
    [ -f "$R/srv/py/lib/python3.9/sitecustomize.py" ]
    assert_equal "$(cd "$R" && find . -name 'sitecustomize*')" ./srv/py/lib/python3.9/sitecustomize.py
}

@test "remove --root: state.json's paths are untrusted: out of the root, with .., through a link, another sink's file, a file without the block: left alone" {
    start -q --sinks nccl-conf,record -- true
    local block
    # the block without its "created" note: in a file with other lines
    block=$(sed -n '/^# BEGIN nccl-init$/,/^# END nccl-init$/p' "$R/etc/nccl.conf" | grep -vx '# nccl-init created this file')
    mkdir -p "$TMP/outside/lib/python3.9" "$R/etc/python3.9" "$R/data"
    printf '%s\nimport x\n' "$block" >"$TMP/outside/lib/python3.9/sitecustomize.py"
    : >"$TMP/outside/lib/python3.9/os.py"
    printf '%s\n' "$block" >"$TMP/outside/nccl.conf"
    ln -s "$TMP/outside" "$R/link"
    printf 'A=1\n%s\n' "$block" >"$R/etc/other"
    printf 'mine\n' >"$R/data/plain.conf"
    # a legitimate entry: Debian's conffile of a stdlib the search does not see
    printf '%s\nimport apport\n' "$block" >"$R/etc/python3.9/sitecustomize.py"
    python3 - "$R/run/nccl-init/state.json" "$TMP" <<'EOF'
import json, sys
path, tmp = sys.argv[1:]
# entries as nccl-init writes them (sinks.c, state_text), after "sinks": [
text = open(path).read()
json.loads(text)
add = "".join('\n    {"sink": %s, "path": %s, "outcome": "written"},' % (json.dumps(s), json.dumps(p)) for s, p in [
    ("python", "/../" + tmp.lstrip("/") + "/outside/lib/python3.9/sitecustomize.py"),
    ("python", "/link/lib/python3.9/sitecustomize.py"),
    ("nccl-conf", "/link/nccl.conf"),
    ("nccl-conf", "/./etc/other"),
    ("python", "/etc/other"),
    ("etc-environment", "/etc/other"),
    ("nccl-conf", "/data/plain.conf"),
    ("python", "/etc/python3.9/sitecustomize.py"),
])
text = text.replace('\n  "sinks": [', '\n  "sinks": [' + add, 1)
json.loads(text)
open(path, "w").write(text)
EOF
    tree_state "$TMP/outside" >"$TMP/outside.before"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" remove --root "$R"
    assert_contained
    diff "$TMP/outside.before" <(tree_state "$TMP/outside")
    cmp "$R/data/plain.conf" <(printf 'mine\n')
    cmp "$R/etc/other" <(printf 'A=1\n%s\n' "$block")
    cmp "$R/etc/python3.9/sitecustomize.py" <(printf 'import apport\n')
    [ ! -e "$R/etc/nccl.conf" ] && [ ! -e "$R/run/nccl-init" ]
    # one warning each; the link is refused by the walk (exit 1: not taken out)
    assert_failure 1
    assert_equal "$(grep -c warning <<<"$stderr")" 6
    [[ "$stderr" == *"sink python: /../${TMP#/}/outside/lib/python3.9/sitecustomize.py: named in state.json, not a path inside --root $R; left alone"* ]]
    [[ "$stderr" == *"sink nccl-conf: /./etc/other: named in state.json, not a path inside --root $R; left alone"* ]]
    [[ "$stderr" == *"sink python: /etc/other: named in state.json, not a file of that sink's; left alone"* ]]
    [[ "$stderr" == *"sink etc-environment: /etc/other: named in state.json, not a file of that sink's; left alone"* ]]
    [[ "$stderr" == *"sink python: $R/link/lib/python3.9/sitecustomize.py: parent $R/link is a symlink; skipped"* ]]
    [[ "$stderr" == *"sink nccl-conf: $R/link/nccl.conf: parent $R/link is a symlink; skipped"* ]]
    [[ "$stderr" == *"sink python: $R/etc/python3.9/sitecustomize.py written"* ]]
}

@test "without --root, remove does not read state.json's paths" {
    # a hook of a prefix outside the search, in the sandbox's own tree
    make_prefix "$TMP/prefix"
    run --separate-stderr "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --sinks python,record \
        --python "$TMP/prefix/bin/python3" -- true
    assert_success
    grep -qF "\"path\": \"$TMP/prefix/lib/python$PYV/sitecustomize.py\"" /run/nccl-init/state.json
    run --separate-stderr "$NI" remove -q
    [ -f "$TMP/prefix/lib/python$PYV/sitecustomize.py" ]
    remove_python_hooks
}

@test "--root .: state.json names the root's paths from /, and remove --root . takes them out without a warning, as current and older binaries write them" {
    # a stdlib the search does not look at: found again only from state.json
    mkdir -p "$R/srv/py/bin" "$R/srv/py/lib/python3.9"
    : >"$R/srv/py/lib/python3.9/os.py"
    : >"$R/srv/py/bin/python3.9"
    tree_state "$R" >"$TMP/root.before"
    # DIR is the working directory, entered inside contained's mounts
    for format in current older; do
        sums >"$TMP/sums.before"
        run --separate-stderr contained sh -c 'cd "$0" && exec "$@"' "$R" "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --root . \
            --python /srv/py/bin/python3.9 -- true
        assert_success
        assert_contained
        run state_written
        assert_output "$(printf '%s\n' 'record /run/nccl-init/profile.env' 'etc-environment /etc/environment' \
            'nccl-conf /etc/nccl.conf' 'python /srv/py/lib/python3.9/sitecustomize.py')"
        # an older nccl-init wrote them as found under ".", relative
        [ "$format" = current ] || sed -i 's|"path": "/|"path": "|' "$R/run/nccl-init/state.json"
        run --separate-stderr contained sh -c 'cd "$0" && exec "$@"' "$R" "$NI" remove --root .
        assert_success
        assert_contained
        [[ "$stderr" != *warning* ]]
        [[ "$stderr" == *"nccl-init: sink python: srv/py/lib/python3.9/sitecustomize.py deleted"* ]]
        diff "$TMP/root.before" <(tree_state "$R")
    done
}

@test "remove --root: a state.json entry left alone is something not taken out: exit 1" {
    start -q --sinks record -- true
    sed -i 's|^  "sinks": \[$|&\n    {"sink": "nccl-conf", "path": "/../x/nccl.conf", "outcome": "written"},|' \
        "$R/run/nccl-init/state.json"
    python3 -m json.tool "$R/run/nccl-init/state.json" >/dev/null
    grep -qF '"path": "/../x/nccl.conf"' "$R/run/nccl-init/state.json"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" remove --root "$R"
    assert_failure 1
    assert_contained
    assert_equal "$stderr" "nccl-init: sink python: no Python interpreter found
nccl-init: warning: sink nccl-conf: /../x/nccl.conf: named in state.json, not a path inside --root $R; left alone
nccl-init: sink record: $R/run/nccl-init/profile.env deleted
nccl-init: sink record: $R/run/nccl-init/state.json deleted
nccl-init: sink record: $R/run/nccl-init deleted"
}

@test "under --root the root's interpreter is never run: a .pth of its dist-packages runs nothing, the hook is not byte-compiled, and a stale .pyc goes" {
    make_prefix "$R/opt/py"
    mkdir -p "$R/opt/py/lib/python3/dist-packages"
    printf 'import os; open(%s, "w").close()\n' "'$TMP/pth-ran'" >"$R/opt/py/lib/python3/dist-packages/evil.pth"
    # the .pth runs in that interpreter whenever site does
    env -i "$R/opt/py/bin/python3" -c pass
    [ -e "$TMP/pth-ran" ] && rm "$TMP/pth-ran"
    local hook=$R/opt/py/lib/python$PYV/sitecustomize.py
    local pyc=$R/opt/py/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc
    printf 'stale' >"$pyc"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" -v --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" \
        --python /opt/py/bin/python3 -- true
    assert_success
    assert_contained
    [ ! -e "$TMP/pth-ran" ]
    [[ "$stderr" != *warning* ]]
    [[ "$stderr" == *"nccl-init: python: $hook: not byte-compiled under --root"* ]]
    [[ "$stderr" == *"nccl-init: sink python: $pyc deleted"* ]]
    [ -f "$hook" ] && [ ! -e "$pyc" ]
}

@test "under --root the hook chains to a shadowed sitecustomize by its path inside the root, and the root's python runs it there" {
    copy_system_python
    # no sitecustomize of the stdlib's own: the hook is what shadows Debian's
    # /usr/lib/python3/dist-packages one
    rm -f "$R/usr/lib/python$PYV/sitecustomize.py" "$R/etc/python$PYV/sitecustomize.py"
    mkdir -p "$R/usr/lib/python3/dist-packages"
    printf 'import os\nos.environ["CHAINED"] = "1"\n' >"$R/usr/lib/python3/dist-packages/sitecustomize.py"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" -q --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" \
        -- "$PY" -c 'print("ran")'
    assert_success
    assert_output ran
    assert_contained
    local hook=$R/usr/lib/python$PYV/sitecustomize.py
    grep -qxF "_nccl_chain(__file__)" "$hook"
    grep -qF "\"note\": \"chains to /usr/lib/python3/dist-packages/sitecustomize.py\"" "$R/run/nccl-init/state.json"
    keep_writer --root "$R" --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run --separate-stderr in_root /usr/bin/python3 -c 'import os; print(os.environ.get("NCCL_ALGO"), os.environ.get("CHAINED"))'
    assert_output "Ring 1"
    assert_equal "$stderr" ""
}

@test "a stdlib's lib/python3.X and os.py are looked at inside the root: an absolute link there is the root's path, never the host's" {
    # /opt/a: os.py links to the host's stdlib, which the root does not have
    mkdir -p "$R/opt/a/bin" "$R/opt/a/lib/python$PYV" "$R/opt/b/bin" "$R/opt/b/lib" "$R/srv/real/python3.9"
    : >"$R/opt/a/bin/python$PYV"
    ln -s "/usr/lib/python$PYV/os.py" "$R/opt/a/lib/python$PYV/os.py"
    # /opt/b: lib/python3.X links to the host's stdlib directory
    : >"$R/opt/b/bin/python$PYV"
    ln -s "/usr/lib/python$PYV" "$R/opt/b/lib/python$PYV"
    # /opt/c: lib/python3.9 links, absolutely, to a stdlib that is the root's
    mkdir -p "$R/opt/c/bin" "$R/opt/c/lib"
    : >"$R/opt/c/bin/python3.9"
    : >"$R/srv/real/python3.9/os.py"
    ln -s /srv/real/python3.9 "$R/opt/c/lib/python3.9"
    sums >"$TMP/sums.before"
    run --separate-stderr contained "$NI" -v --profile-dir "$PROFILES" -p pcie-8gpu --root "$R" --sinks python \
        --python "/opt/a/bin/python$PYV" --python "/opt/b/bin/python$PYV" --python /opt/c/bin/python3.9 -- true
    assert_success
    assert_contained
    assert_equal "$(grep warning <<<"$stderr")" "\
nccl-init: warning: sink python: /opt/a/bin/python$PYV: no Python standard library for it under --root $R; no hook for it
nccl-init: warning: sink python: /opt/b/bin/python$PYV: no Python standard library for it under --root $R; no hook for it"
    [[ "$stderr" == *"nccl-init: python: $R/srv/real/python3.9 (3.9)"* ]]
    assert_equal "$(cd "$R" && find . -name 'sitecustomize*')" ./srv/real/python3.9/sitecustomize.py
}
