#!/usr/bin/env bats
# The Python sink: every interpreter applies the record at start-up, even
# with an empty environment. The hook is fixed code (its one variable part is
# the record's path); the values are the record's, read at each start with
# the env plugin's trust rules. Runs over copy-on-write /etc, /usr and /run
# (scripts/sandbox.sh), so the hook lands in the real stdlib paths.

load helpers/common

PY=/usr/bin/python3
PYV=$($PY -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
STDLIB=/usr/lib/python$PYV
CONFFILE=/etc/python$PYV/sitecustomize.py

setup() {
    [ -x "$PY" ] || skip "no $PY"
    TMP=$(mktemp -d)
    rm -rf /run/nccl-init /run/nccl-init.real
}

teardown() {
    stop_writers
    if [ -n "${RO:-}" ]; then umount "$RO" || true; fi
    if [ -n "${ALONE:-}" ]; then alone_restore; fi
    if [ -n "${LIVE:-}" ]; then kill "$LIVE" 2>/dev/null || true; fi
    rm -rf "$TMP"
}

# Installs the hook and writes the record for pcie-8gpu (plus any extra
# options): one start, whose $output and $stderr the test reads; then a
# second with the same options stays (keep_writer), since the readers take
# a record only while the nccl-init that wrote it runs.
hook() {
    run --separate-stderr "$NI" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu "$@" -- true
    assert_success
    keep_writer --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu "$@"
}

# Prints NAME=VALUE for pcie-8gpu's five variables as a Python process sees them.
SHOW='import os
for k in ("NCCL_PROTO","NCCL_ALGO","NCCL_P2P_LEVEL","NCCL_MAX_NCHANNELS","NCCL_BUFFSIZE"):
    print("%s=%s" % (k, os.environ.get(k)))'
WANT='NCCL_PROTO=LL
NCCL_ALGO=Ring
NCCL_P2P_LEVEL=SYS
NCCL_MAX_NCHANNELS=16
NCCL_BUFFSIZE=16777216'

@test "Debian python: the block goes into the conffile, the symlink stays" {
    [ -L "$STDLIB/sitecustomize.py" ] || skip "not Debian's layout"
    before=$(sed '/^# BEGIN nccl-init$/,/^# END nccl-init$/d' "$CONFFILE")
    hook
    [ -L "$STDLIB/sitecustomize.py" ]
    assert_equal "$(readlink "$STDLIB/sitecustomize.py")" "$CONFFILE"
    grep -qx '# BEGIN nccl-init' "$CONFFILE"
    assert_equal "$(sed '/^# BEGIN nccl-init$/,/^# END nccl-init$/d' "$CONFFILE")" "$before"
    # byte-compiled once written
    [ -s "$STDLIB/__pycache__/sitecustomize.cpython-${PYV/./}.pyc" ]
    # the block is what render prints; no chain for Debian's own sitecustomize
    diff <(sed -n '/^# BEGIN nccl-init$/,/^# END nccl-init$/p' "$CONFFILE") \
        <("$NI" render -q --profile-dir "$PROFILES" -p pcie-8gpu --format python)
    ! grep -q _nccl_chain "$CONFFILE"
}

@test "an empty environment: env -i, python -I, subprocess env={}" {
    hook
    run env -i "$PY" -c "$SHOW"
    assert_output "$WANT"
    run env -i "$PY" -I -c "$SHOW"
    assert_output "$WANT"
    run "$PY" -c "
import subprocess, sys
sys.stdout.write(subprocess.run([sys.executable, '-c', '''$SHOW'''], env={}, capture_output=True, text=True).stdout)"
    assert_output "$WANT"
}

@test "multiprocessing spawn and forkserver from a parent that scrubbed os.environ" {
    hook
    cat >"$TMP/mp.py" <<'PY'
import multiprocessing as mp, os, sys
KEYS = ("NCCL_PROTO", "NCCL_ALGO", "NCCL_P2P_LEVEL", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE")
def worker(q):
    q.put(tuple(os.environ.get(k) for k in KEYS))
if __name__ == "__main__":
    os.environ.clear()
    for method in ("spawn", "forkserver"):
        ctx = mp.get_context(method)
        q = ctx.Queue()
        ps = [ctx.Process(target=worker, args=(q,)) for _ in range(3)]
        for p in ps: p.start()
        got = [q.get(timeout=60) for _ in ps]
        for p in ps: p.join()
        print(method, "ok" if all(g == ("LL", "Ring", "SYS", "16", "16777216") for g in got) else got)
PY
    run env -i "$PY" "$TMP/mp.py"
    assert_success
    assert_output $'spawn ok\nforkserver ok'
}

@test "Debian's own sitecustomize still runs" {
    [ -L "$STDLIB/sitecustomize.py" ] || skip "not Debian's layout"
    printf 'import os\nos.environ["DEBIAN_SITE_RAN"] = "1"\n' >>"$CONFFILE"
    hook
    run env -i "$PY" -c 'import os; print(os.environ.get("DEBIAN_SITE_RAN"), os.environ.get("NCCL_PROTO"))'
    assert_output "1 LL"
}

@test "an explicit value wins; an operator override reaches env={} children" {
    hook
    run --separate-stderr env -i NCCL_ALGO=Tree "$PY" -c 'import os; print(os.environ["NCCL_ALGO"])'
    assert_output Tree
    assert_equal "$stderr" ""
    NCCL_ALGO=Tree hook
    run "$PY" -c "
import subprocess, sys
print(subprocess.run([sys.executable, '-c', 'import os; print(os.environ[\"NCCL_ALGO\"])'], env={}, capture_output=True, text=True).stdout.strip())"
    assert_output Tree
}

@test "an enforced record (--enforce) overwrites the process's own value; the hook stays the same" {
    hook
    f=$(readlink -f "$STDLIB/sitecustomize.py")
    sum=$(sha256sum "$f")
    # the Python process runs under the --enforce run: it ends with it
    run --separate-stderr "$NI" -q --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu \
        --enforce -- env -i NCCL_ALGO=Tree NCCL_PROTO=Simple OTHER=x "$PY" -c \
        'import os; print(open("/run/nccl-init/profile.env").read().count("NCCL_INIT_ENFORCE=1\n"), os.environ["NCCL_ALGO"], os.environ["NCCL_PROTO"], os.environ["OTHER"], "NCCL_INIT_ENFORCE" in os.environ)'
    assert_success
    assert_equal "$(sha256sum "$f")" "$sum"
    assert_output "1 Ring LL x False"
    assert_equal "$stderr" ""
}

@test "a venv is covered by its base interpreter's stdlib" {
    "$PY" -m venv --without-pip "$TMP/venv" || skip "no venv module"
    run --separate-stderr "$NI" -v --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu \
        --python "$TMP/venv/bin/python3" -- true
    assert_success
    [[ "$stderr" == *"python: $STDLIB ($PYV)"* ]]
    keep_writer --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run env -i "$TMP/venv/bin/python3" -c "$SHOW"
    assert_output "$WANT"
}

# A prefix-style interpreter: a copy of the binary with its own lib/, as
# python.org builds, pyenv and conda lay them out. Its stdlib is a farm of
# links to Debian's, without a sitecustomize of its own.
make_prefix() {
    local p=$1
    mkdir -p "$p/bin" "$p/lib/python$PYV/site-packages"
    cp "$PY$PYV" "$p/bin/python$PYV" 2>/dev/null || cp "$(readlink -f "$PY")" "$p/bin/python$PYV"
    ln -s "python$PYV" "$p/bin/python3"
    for f in "$STDLIB"/* "$STDLIB"/.[!.]*; do
        [ -e "$f" ] || continue
        case ${f##*/} in sitecustomize.py | __pycache__ | site-packages | dist-packages) continue ;; esac
        ln -s "$f" "$p/lib/python$PYV/${f##*/}"
    done
    mkdir "$p/lib/python$PYV/__pycache__"
}

@test "a prefix-style interpreter given with --python, and as COMMAND" {
    make_prefix "$TMP/prefix"
    run env -i "$TMP/prefix/bin/python3" -c 'import sys; print(sys.prefix)'
    assert_output "$TMP/prefix"
    hook --python "$TMP/prefix/bin/python3"
    [ -f "$TMP/prefix/lib/python$PYV/sitecustomize.py" ]
    [ -s "$TMP/prefix/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc" ]
    run env -i "$TMP/prefix/bin/python3" -c "$SHOW"
    assert_output "$WANT"

    make_prefix "$TMP/other"
    run --separate-stderr env -i "$NI" -q --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu -- \
        "$TMP/other/bin/python3" -c 'print("started")'
    assert_output started
    keep_writer --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run env -i "$TMP/other/bin/python3" -c "$SHOW"
    assert_output "$WANT"
}

@test "a console script whose shebang names the interpreter" {
    make_prefix "$TMP/prefix"
    printf '#!%s\nimport os\nprint(os.environ.get("NCCL_PROTO"))\n' "$TMP/prefix/bin/python$PYV" >"$TMP/serve"
    chmod +x "$TMP/serve"
    run --separate-stderr env -i "$NI" -q --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu -- "$TMP/serve"
    assert_output LL
    [ -f "$TMP/prefix/lib/python$PYV/sitecustomize.py" ]
}

@test "a sitecustomize that the hook would shadow is chained to, and only then" {
    make_prefix "$TMP/prefix"
    # where this interpreter's site.py looks (Debian's: dist-packages)
    site=$(env -i "$TMP/prefix/bin/python3" -c 'import site; print(site.getsitepackages()[-1])')
    [[ "$site" == "$TMP/prefix/"* ]]
    mkdir -p "$site"
    printf 'import os\nos.environ["CHAINED"] = "yes"\n' >"$site/sitecustomize.py"
    run env -i "$TMP/prefix/bin/python3" -c 'import os; print(os.environ.get("CHAINED"))'
    assert_output yes
    hook --python "$TMP/prefix/bin/python3"
    # which one is the interpreter's sys.path's to say, at each start
    grep -qx "_nccl_chain(__file__)" "$TMP/prefix/lib/python$PYV/sitecustomize.py"
    run env -i "$TMP/prefix/bin/python3" -c 'import os; print(os.environ.get("CHAINED"), os.environ.get("NCCL_PROTO"))'
    assert_output "yes LL"
}

# --- The chain: the sitecustomize the hook shadows, as site finds it --------
#
# A stdlib with no sitecustomize of its own gets a file of the hook alone,
# which shadows any sitecustomize later on sys.path. CPython's site
# (Lib/site.py, execsitecustomize) does "import sitecustomize" once the
# site directories are on sys.path, so the one it would have run is the
# next on THIS interpreter's sys.path: for /usr/bin/python3 Debian's
# /usr/lib/python3/dist-packages, for a venv of it the venv's
# site-packages and never the base's dist-packages. Debian's own conffile
# link is taken out for these tests (and put back after).
DIST=/usr/lib/python3/dist-packages

# alone_hook LINE...: the stdlib without Debian's sitecustomize, LINE... as
# the dist-packages sitecustomize it shadows, and the hook put in by
# nccl-init install (exit 1 here: no env plugin beside a build's binary to
# link; the hook is written all the same).
alone_hook() {
    [ -d "$DIST" ] || skip "no $DIST"
    ALONE=1
    if [ -L "$STDLIB/sitecustomize.py" ] && [ -z "${DEBIAN_SAVED:-}" ]; then
        DEBIAN_SAVED=$(readlink "$STDLIB/sitecustomize.py")
        cp -a "$CONFFILE" "$TMP/conffile"
    fi
    rm -f "$STDLIB/sitecustomize.py" "$CONFFILE" "$STDLIB"/__pycache__/sitecustomize.*
    printf '%s\n' "$@" >"$DIST/sitecustomize.py"
    printf 'VALUE = "dist-packages only"\n' >"$DIST/nccl_init_chain_dep.py"
    run --separate-stderr "$NI" install
    [[ "$stderr" == *"nccl-init: python hook: $STDLIB/sitecustomize.py written"* ]]
    [ -f "$STDLIB/sitecustomize.py" ] && [ ! -L "$STDLIB/sitecustomize.py" ]
}

# Puts back what alone_hook took out (one sandbox serves every suite).
alone_restore() {
    rm -f "$DIST/sitecustomize.py" "$DIST/nccl_init_chain_dep.py" "$DIST"/__pycache__/sitecustomize.* \
        "$DIST"/__pycache__/nccl_init_chain_dep.*
    [ -n "${DEBIAN_SAVED:-}" ] || return 0
    rm -f "$STDLIB/sitecustomize.py" "$STDLIB"/__pycache__/sitecustomize.*
    cp -a "$TMP/conffile" "$CONFFILE"
    ln -s "$DEBIAN_SAVED" "$STDLIB/sitecustomize.py"
    DEBIAN_SAVED=
}

@test "chain: after install, a venv of /usr/bin/python3 starts with empty stderr; it runs its own site-packages' sitecustomize, not the base's" {
    alone_hook 'import os, nccl_init_chain_dep' 'os.environ["CHAINED"] = nccl_init_chain_dep.VALUE'
    mkdir -p /run/nccl-init
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines $$; } >/run/nccl-init/profile.env
    # the base interpreter: its dist-packages one runs after the hook
    run --separate-stderr env -i "$PY" -c 'import os; print(os.environ.get("CHAINED"), os.environ.get("NCCL_PROTO"))'
    assert_output "dist-packages only LL"
    assert_equal "$stderr" ""
    # a venv: the base's dist-packages is not on its sys.path, nor is what
    # that sitecustomize imports; without nccl-init it would not run there
    "$PY" -m venv --without-pip "$TMP/venv" || skip "no venv module"
    run --separate-stderr env -i "$TMP/venv/bin/python3" -c 'import os; print(os.environ.get("CHAINED"))'
    assert_success
    assert_output None
    assert_equal "$stderr" ""
    run --separate-stderr env -i "$TMP/venv/bin/python3" -c "$SHOW"
    assert_output "$WANT"
    assert_equal "$stderr" ""
    # one in the venv's own site-packages is the one site would have run
    venvsite=$(env -i "$TMP/venv/bin/python3" -c 'import site; print(site.getsitepackages()[0])')
    printf 'import os\nos.environ["CHAINED"] = "venv"\n' >"$venvsite/sitecustomize.py"
    run --separate-stderr env -i "$TMP/venv/bin/python3" -c 'import os, sitecustomize; print(os.environ.get("CHAINED"), sitecustomize.__file__)'
    assert_output "venv $STDLIB/sitecustomize.py"
    assert_equal "$stderr" ""
}

@test "chain: a shadowed sitecustomize deleted since install: nothing to run, no traceback, the start goes on" {
    alone_hook 'import os' 'os.environ["CHAINED"] = "1"'
    rm "$DIST/sitecustomize.py"
    # site would find none now: nothing is chained, as without the hook
    run --separate-stderr env -i "$PY" -c 'import os; print("ran", os.environ.get("CHAINED"))'
    assert_success
    assert_output "ran None"
    assert_equal "$stderr" ""
}

@test "chain: a shadowed sitecustomize that raises, or cannot be compiled: one line on stderr, the program runs" {
    alone_hook 'import os' 'os.environ["CHAINED"] = "1"' 'raise RuntimeError("boom")'
    mkdir -p /run/nccl-init
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines $$; } >/run/nccl-init/profile.env
    run --separate-stderr env -i "$PY" -c "$SHOW
print('ran')"
    assert_success
    assert_output "$WANT
ran"
    assert_equal "$stderr" "nccl-init hook: chained sitecustomize $DIST/sitecustomize.py: RuntimeError: boom"
    printf 'def (\n' >"$DIST/sitecustomize.py"
    run --separate-stderr env -i "$PY" -c 'print("ran")'
    assert_success
    assert_output ran
    assert_equal "$stderr" "nccl-init hook: chained sitecustomize $DIST/sitecustomize.py: SyntaxError: invalid syntax (sitecustomize.py, line 1)"
}

@test "values round-trip exactly: quotes, backslashes, triple quotes, escapes, non-ASCII, non-UTF-8" {
    printf '%s\n' "Q1=it's \"q\" \\ '''x''' \"\"\" \\n \\x41 {0} %%s" \
        "Q2=é€😀 ünïcödé" "Q3=');import os;open('$TMP/pwned','w');('" \
        'Q4=\' 'Q5="""' >"$TMP/odd.env"
    run --separate-stderr "$NI" check "$TMP/odd.env"
    assert_success
    hook -p "$TMP/odd.env"
    run env -i "$PY" -c 'import os, json; print(json.dumps([os.environ.get(k) for k in ("Q1","Q2","Q3","Q4","Q5")], ensure_ascii=False))'
    assert_success
    want=$(python3 -c '
import json, sys
vals = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1], encoding="utf-8"))
print(json.dumps([vals[k] for k in ("Q1","Q2","Q3","Q4","Q5")], ensure_ascii=False))' "$TMP/odd.env")
    assert_output "$want"
    [ ! -e "$TMP/pwned" ]
    # bytes that are not UTF-8 (a record written by hand): as os.environ
    # decodes the environment, so the process's environment has them back
    { printf 'NCCL_INIT_DIGEST=x\nQ6=a\xff\xfe\xc3\xa9b\n'; record_writer_lines $$; } >/run/nccl-init/profile.env
    run --separate-stderr env -i "$PY" -c 'import os; print(os.environb[b"Q6"] == b"a\xff\xfe\xc3\xa9b")'
    assert_output True
    assert_equal "$stderr" ""
}

@test "a second start, and a start with another profile, change no hook: no rewrite, no recompile" {
    hook
    f=$(readlink -f "$STDLIB/sitecustomize.py")
    pyc="$STDLIB/__pycache__/sitecustomize.cpython-${PYV/./}.pyc"
    sum=$(sha256sum "$f") pycstat=$(stat -c %Y.%s:%i "$pyc") fstat=$(stat -c %Y.%i "$f")
    sleep 1.1
    hook
    hook -p "$PROFILES/nvlink-hgx.env"
    assert_equal "$(sha256sum "$f")" "$sum"
    assert_equal "$(stat -c %Y.%i "$f")" "$fstat"
    assert_equal "$(stat -c %Y.%s:%i "$pyc")" "$pycstat"
    # the values are the new record's
    run env -i "$PY" -c 'import os; print(os.environ["NCCL_INIT_PROFILE"])'
    assert_output pcie-8gpu,nvlink-hgx
}

@test "a current hook in a read-only stdlib: nothing written, no warning" {
    make_prefix "$TMP/prefix"
    hook --python "$TMP/prefix/bin/python3"
    RO=$TMP/prefix/lib/python$PYV
    mount --bind "$RO" "$RO"
    mount -o remount,bind,ro "$RO"
    run --separate-stderr "$NI" -v --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu \
        --python "$TMP/prefix/bin/python3" -- true
    assert_success
    [[ "$stderr" != *warning* ]]
    [[ "$stderr" == *"python: $RO ($PYV)"* ]]
    keep_writer --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run env -i "$TMP/prefix/bin/python3" -c "$SHOW"
    assert_output "$WANT"
    # a hook that is not current there is a warning: the sink cannot write it
    umount "$RO"
    sed -i 's/^# Generated by nccl-init/# Changed/' "$RO/sitecustomize.py"
    mount --bind "$RO" "$RO"
    mount -o remount,bind,ro "$RO"
    run --separate-stderr "$NI" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu \
        --python "$TMP/prefix/bin/python3" -- true
    assert_success
    [[ "$stderr" == *"warning: sink python: $RO/sitecustomize.py: "*"; skipped"* ]]
}

@test "byte-compiling runs the interpreter with -I -S: no .pth of its site directories runs as nccl-init's user" {
    make_prefix "$TMP/prefix"
    site=$(env -i "$TMP/prefix/bin/python3" -c 'import site; print(site.getsitepackages()[-1])')
    [[ "$site" == "$TMP/prefix/"* ]]
    mkdir -p "$site"
    printf 'import os; open(%s, "w").close()\n' "'$TMP/pth-ran'" >"$site/evil.pth"
    env -i "$TMP/prefix/bin/python3" -c pass
    [ -e "$TMP/pth-ran" ] && rm "$TMP/pth-ran"
    hook --python "$TMP/prefix/bin/python3"
    [ ! -e "$TMP/pth-ran" ]
    # compiled all the same: py_compile needs no site
    pyc=$TMP/prefix/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc
    [ -s "$pyc" ]
    env -i "$TMP/prefix/bin/python3" -I -S -c "import importlib.util, sys
data = open(sys.argv[1], 'rb').read(16)
assert data[:4] == importlib.util.MAGIC_NUMBER" "$pyc"
}

@test "an interpreter someone else could change is not run to byte-compile: one warning, the hook works uncompiled" {
    make_prefix "$TMP/prefix"
    local py=$TMP/prefix/bin/python$PYV src=$TMP/prefix/lib/python$PYV/sitecustomize.py
    local pyc=$TMP/prefix/lib/python$PYV/__pycache__/sitecustomize.cpython-${PYV/./}.pyc
    # its directory writable by others (anyone could swap the binary)
    chmod 0777 "$TMP/prefix/bin"
    hook --python "$TMP/prefix/bin/python3"
    [ ! -e "$pyc" ]
    assert_equal "$(grep warning <<<"$stderr")" \
        "nccl-init: warning: sink python: $src: not byte-compiled: interpreter $py: parent $TMP/prefix/bin is writable by group and others (mode 0777); each start compiles it where it can"
    run env -i "$TMP/prefix/bin/python3" -c "$SHOW"
    assert_output "$WANT"
    # another user's binary, in a directory of root's: the same
    chmod 0755 "$TMP/prefix/bin"
    chown 65534 "$py"
    rm -f "$src" "$pyc"
    hook --python "$TMP/prefix/bin/python3"
    [ ! -e "$pyc" ]
    [[ "$stderr" == *"warning: sink python: $src: not byte-compiled: interpreter $py: owned by uid 65534, neither root nor nccl-init's 0; each start compiles it where it can"* ]]
    # root's again: compiled
    chown 0 "$py"
    rm "$src"
    hook --python "$TMP/prefix/bin/python3"
    [[ "$stderr" != *warning* ]]
    [ -s "$pyc" ]
}

@test "a symlink planted in a stdlib directory is refused" {
    make_prefix "$TMP/prefix"
    echo 'x = 1' >"$TMP/victim.py"
    ln -s "$TMP/victim.py" "$TMP/prefix/lib/python$PYV/sitecustomize.py"
    run --separate-stderr "$NI" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu --python "$TMP/prefix/bin/python3" -- true
    assert_success
    [[ "$stderr" == *"warning: sink python: $TMP/prefix/lib/python$PYV/sitecustomize.py: refusing to write through a symlink; skipped"* ]]
    [ -L "$TMP/prefix/lib/python$PYV/sitecustomize.py" ]
    assert_equal "$(cat "$TMP/victim.py")" 'x = 1'
}

@test "the hook keeps the record open, read-only and not inherited by exec; it writes nothing" {
    # verify used to read a note the hook wrote in /run/nccl-init/applied
    # (one symlink per PID); now it reads the hook's descriptor on the
    # record in /proc/PID/fd, so the hook has nothing to write.
    rm -rf /run/nccl-init
    hook
    before=$(find /run/nccl-init -printf '%P %y %s\n' | LC_ALL=C sort)
    run env -i "$PY" -c '
import os, sitecustomize, subprocess, sys
fd = sitecustomize._nccl_record
flags = int(open("/proc/self/fdinfo/%d" % fd).read().split("flags:")[1].split()[0], 8)
print(os.readlink("/proc/self/fd/%d" % fd), flags & os.O_ACCMODE == os.O_RDONLY, os.get_inheritable(fd))
# a fork child shares it; an exec child (here ls) does not get it
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    print("fork child:", os.readlink("/proc/self/fd/%d" % fd)); sys.stdout.flush(); os._exit(0)
os.waitpid(pid, 0)
out = subprocess.run(["/bin/ls", "-l", "/proc/self/fd/"], capture_output=True, text=True).stdout
print("exec child:", "profile.env" in out)
# a new interpreter opens its own
out = subprocess.run([sys.executable, "-c", "import os, sitecustomize as s; print(os.readlink(\"/proc/self/fd/%d\" % s._nccl_record))"], env={}, capture_output=True, text=True).stdout
print("new interpreter:", out.strip())'
    assert_success
    assert_output "/run/nccl-init/profile.env True False
fork child: /run/nccl-init/profile.env
exec child: False
new interpreter: /run/nccl-init/profile.env"
    assert_equal "$(find /run/nccl-init -printf '%P %y %s\n' | LC_ALL=C sort)" "$before"
    [ ! -e /run/nccl-init/applied ]
}

@test "no record: the hook does nothing, and says nothing" {
    hook
    rm -rf /run/nccl-init
    run --separate-stderr env -i "$PY" -c "$SHOW"
    assert_success
    assert_output "$(sed 's/=.*/=None/' <<<"$WANT")"
    assert_equal "$stderr" ""
    run --separate-stderr env -i "$PY" -c 'import sitecustomize; print(sitecustomize._nccl_record)'
    assert_output None
    assert_equal "$stderr" ""
    # nor without /run/nccl-init/profile.env alone
    mkdir /run/nccl-init
    run --separate-stderr env -i "$PY" -c "$SHOW"
    assert_equal "$stderr" ""
}

# A record the hook must not trust, or cannot parse: no value at all, one
# line on stderr, and the interpreter runs to its exit 0.
refused() {
    run --separate-stderr env -i NCCL_ALGO=mine "$PY" -c "$SHOW"
    assert_success
    assert_output "$(sed 's/=.*/=None/; s/NCCL_ALGO=None/NCCL_ALGO=mine/' <<<"$WANT")"
    [[ "$stderr" == "nccl-init hook: record not used: $1" ]] || {
        echo "stderr: $stderr" >&2
        return 1
    }
}

@test "a hostile record gives no values, one line on stderr, and a normal start" {
    hook
    R=/run/nccl-init/profile.env
    cp "$R" "$TMP/good"
    chmod g+w "$R"
    refused "$R is writable by group or others (mode 0664)"
    rm "$R"
    ln -s "$TMP/good" "$R"
    refused "$R is a symbolic link"
    rm "$R"
    cp "$TMP/good" "$R"
    chown 65534 "$R"
    refused "$R is owned by uid 65534, neither root nor this process's 0"
    rm "$R"
    mkfifo -m 644 "$R"
    refused "$R is a FIFO"
    rm "$R"
    printf 'garbage\n' >"$R"
    refused "$R: line 1: not KEY=VALUE (a key is letters, digits and '_', then '=')"
    printf 'NCCL_ALGO=Tree\n' >"$R"
    refused "$R: no NCCL_INIT_DIGEST line"
    printf 'NCCL_INIT_DIGEST=x\nNCCL_INIT_ENFORCE=yes\n' >"$R"
    refused "$R: NCCL_INIT_ENFORCE is not 1"
    printf 'NCCL_INIT_DIGEST=x\nNCCL_ALGO=Tree\nNCCL_ALGO=Ring\n' >"$R"
    refused "$R: the key NCCL_ALGO is there more than once"
    printf 'NCCL_INIT_DIGEST=x\nNCCL_ALGO=a\tb\n' >"$R"
    refused "$R: line 2: a control byte (0x09) in the value"
    head -c 65537 /dev/zero | tr '\0' a >"$R"
    refused "$R is 65537 bytes, more than the 65536 a record may have"
    (cat "$TMP/good"; for i in $(seq 600); do echo "K$i=v"; done) >"$R"
    refused "$R: more than 512 lines"
    (cat "$TMP/good"; printf 'K=%4096s\n' x) >"$R"
    refused "$R: line $(($(wc -l <"$TMP/good") + 1)): longer than 4096 bytes"
    # a hard link another uid could plant, in a record directory others may write to
    rm "$R"
    chmod 0777 /run/nccl-init
    cp "$TMP/good" /run/nccl-init/other-name
    ln /run/nccl-init/other-name "$R"
    refused "$R has 2 links, in a directory others may write to"
    rm "$R" /run/nccl-init/other-name
    # /run/nccl-init a link, or writable by others above the record's own directory
    mv /run/nccl-init /run/nccl-init.real
    ln -s nccl-init.real /run/nccl-init
    refused "/run/nccl-init is a symbolic link or not a directory"
    rm /run/nccl-init
    mv /run/nccl-init.real /run/nccl-init
    chown 65534 /run/nccl-init
    refused "directory /run/nccl-init is owned by uid 65534, neither root nor this process's 0"
}

@test "a record directory others may write to (an emptyDir, 0777 and not sticky): a root-owned record with one link is trusted" {
    hook
    chmod 0777 /run/nccl-init
    [ "$(stat -c '%a %U %h' /run/nccl-init/profile.env)" = "644 root 1" ]
    run --separate-stderr env -i "$PY" -c "$SHOW"
    assert_output "$WANT"
    assert_equal "$stderr" ""
    # and read by a process of another user
    run --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups env -i "$PY" -c "$SHOW"
    assert_output "$WANT"
    assert_equal "$stderr" ""
}

# The hook put in by nccl-init install, with no record (exit 1 here: no env
# plugin beside a build's binary to link; the hook is put in all the same).
install_hook() {
    run --separate-stderr "$NI" install
    grep -qx '# BEGIN nccl-init' "$(readlink -f "$STDLIB/sitecustomize.py")"
}

@test "sub-interpreters: 300 create/run/destroy cycles leave one descriptor on the record, the hook's" {
    install_hook
    mkdir -p /run/nccl-init
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines $$; } >/run/nccl-init/profile.env
    "$PY" -c 'import _xxsubinterpreters' 2>/dev/null || skip "no _xxsubinterpreters in $PY"
    run --separate-stderr env -i "$PY" -c '
import os, sitecustomize, _xxsubinterpreters as interp
def held():  # descriptors on the record
    st = os.stat("/run/nccl-init/profile.env")
    n = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            o = os.fstat(int(fd))
        except OSError:
            continue
        if (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino):
            n.append(int(fd))
    return n
before, held0 = len(os.listdir("/proc/self/fd")), held()
r, w = os.pipe()
for i in range(300):
    x = interp.create()
    # each runs site, and so the hook, again; the first says which it holds
    interp.run_string(x, "import os, sitecustomize as s; os.write(%d, b\"%%d\" %% s._nccl_record)" % w
                      if i == 0 else "pass")
    interp.destroy(x)
os.close(w)
sub = int(os.read(r, 64))
os.close(r)
after = len(os.listdir("/proc/self/fd"))
print(held0 == [sitecustomize._nccl_record], held() == held0, sub == sitecustomize._nccl_record,
      after - before <= 1)
flags = int(open("/proc/self/fdinfo/%d" % sitecustomize._nccl_record).read().split("flags:")[1].split()[0], 8)
print(flags & os.O_ACCMODE == os.O_RDONLY, bool(flags & os.O_CLOEXEC), before, after)'
    assert_success
    assert_equal "$stderr" ""
    assert_line --index 0 "True True True True"
    assert_line --index 1 --regexp '^True True [0-9]+ [0-9]+$'
}

# --- The record's writer: NCCL_INIT_PID and NCCL_INIT_START -----------------
#
# The hook takes the record only while the nccl-init run that wrote it runs:
# /proc/NCCL_INIT_PID/stat there, with NCCL_INIT_START as its start time
# (field 22; a PID reused by another process has another one). The two
# lines are not put into the environment.

@test "the record's writer: a live one is used; a dead one, a reused PID, no PID line: refused with one line" {
    install_hook
    local R=/run/nccl-init/profile.env
    mkdir -p /run/nccl-init
    # a writer whose command name holds ')' and spaces: the start time is
    # read after the last ')'
    cp /bin/sleep "$TMP/a) b ) c"
    "$TMP/a) b ) c" 1000 >/dev/null 2>&1 3>&- &
    LIVE=$!
    local live=$LIVE
    [[ "$(cat "/proc/$live/stat")" == "$live (a) b ) c) "* ]]
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines "$live"; } >"$R"
    run --separate-stderr env -i "$PY" -c "$SHOW"'
import os; print([k for k in os.environ if k in ("NCCL_INIT_PID", "NCCL_INIT_START")])'
    assert_output "$WANT
[]"
    assert_equal "$stderr" ""
    # the same PID, another start time: a PID reused by another process
    local start
    start=$(record_writer_lines "$live" | sed -n 's/^NCCL_INIT_START=//p')
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; printf 'NCCL_INIT_PID=%s\nNCCL_INIT_START=%s\n' "$live" $((start + 1)); } >"$R"
    refused "$R: written by nccl-init pid $live, which is no longer running"
    # the writer gone
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines "$live"; } >"$R"
    kill "$live"
    wait "$live" || true
    refused "$R: written by nccl-init pid $live, which is no longer running"
    # an older nccl-init's record: no PID line
    printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT" >"$R"
    refused "$R: no NCCL_INIT_PID line (written by an older nccl-init)"
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines $$ | grep PID; } >"$R"
    refused "$R: no NCCL_INIT_START line (written by an older nccl-init)"
    { printf 'NCCL_INIT_DIGEST=x\n%s\nNCCL_INIT_PID=-1\n' "$WANT"; record_writer_lines $$ | grep START; } >"$R"
    refused "$R: NCCL_INIT_PID is not a decimal number"
    # the test shell itself: alive all along
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines $$; } >"$R"
    run --separate-stderr env -i "$PY" -c "$SHOW"
    assert_output "$WANT"
    assert_equal "$stderr" ""
}

@test "with --root, the hook opens the record as the root's processes see it: /run/nccl-init/profile.env" {
    # a prefix-style interpreter inside the root, given as seen from outside
    # it; its landmark a copy: a link to the host's stdlib is the root's path
    make_prefix "$TMP/root/prefix"
    cp --remove-destination "$STDLIB/os.py" "$TMP/root/prefix/lib/python$PYV/os.py"
    mkdir -p "$TMP/root/run"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu \
        --python "$TMP/root/prefix/bin/python3" -- true
    assert_success
    local hook=$TMP/root/prefix/lib/python$PYV/sitecustomize.py
    grep -qF "_nccl_init('/run/nccl-init/profile.env')" "$hook"
    # the record where the root's processes look for it (the sandbox's
    # /run), from a writer that runs: the readers take it only then
    keep_writer --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run env -i "$TMP/root/prefix/bin/python3" -c 'import os, sitecustomize as s; print(os.readlink("/proc/self/fd/%d" % s._nccl_record))'
    assert_output /run/nccl-init/profile.env
    run env -i "$TMP/root/prefix/bin/python3" -c "$SHOW"
    assert_output "$WANT"
    # render prints the same block, but for the note of a file nccl-init
    # created and its sha256 line, and the chain (a file of the hook alone)
    assert_equal "$(sed -n 2p "$hook")" '# nccl-init created this file'
    diff <(sed -n '/^# BEGIN nccl-init$/,/^# END nccl-init$/p' "$hook" | sed 2,3d |
        sed '/^# No sitecustomize of its own here/,/^del _nccl_chain$/d') \
        <("$NI" render -q --root "$TMP/root" --profile-dir "$PROFILES" -p pcie-8gpu --format python)
}

# --- The pinned images' interpreters -----------------------------------------
#
# Both images run CPython 3.12 from Ubuntu packages: lmsysorg/sglang (v0.5.9
# cu129) and vllm/vllm-openai (v0.14) install deadsnakes' python3.12, point
# /usr/bin/python3 at it with update-alternatives (/usr/bin/python3 ->
# /etc/alternatives/python3 -> /usr/bin/python3.12), and pip or uv --system
# put the packages in /usr/local/lib/python3.12/dist-packages (the final
# stage of sgl-project/sglang's and vllm-project/vllm's docker/Dockerfile;
# read from the Dockerfiles, not from pulled images). Debian's packaging,
# which Ubuntu's and deadsnakes' follow, makes /usr/lib/python3.X/
# sitecustomize.py a link to the conffile /etc/python3.X/sitecustomize.py
# (here: dpkg -S /usr/lib/python3.11/sitecustomize.py: libpython3.11-minimal);
# both variants are tested.
#
# The fixtures run a real CPython 3.12 (NCCL_INIT_PY312, else
# /usr/bin/python3.12, else pyenv's): a renamed 3.11 cannot stand in, since
# an interpreter finds its stdlib by its own compiled-in version
# (lib/python3.11) and would never read lib/python3.12. Without one, only
# the first test's layout checks run, on the stdlib's landmark os.py alone:
# nccl-init decides from paths and never runs Python to find a stdlib
# (python_find.c).
PY312= PY312_STDLIB=
for c in "${NCCL_INIT_PY312:-}" /usr/bin/python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    PY312_STDLIB=$("$c" -I -c 'import sys, sysconfig
assert sys.version_info[:2] == (3, 12)
print(sysconfig.get_paths()["stdlib"])' 2>/dev/null) && PY312=$(readlink -f "$c") && break
    PY312_STDLIB=
done
MULTIARCH=$(uname -m)-linux-gnu
need_py312() { [ -n "$PY312" ] || skip "${1:-}no CPython 3.12 here (set NCCL_INIT_PY312)"; }

# install_py312 ROOT PREFIX: CPython 3.12 installed at PREFIX in the image
# ROOT as its installers lay it out: PREFIX/bin/python3.12 (the binary,
# copied) and PREFIX/lib/python3.12 (a copy of its stdlib, without the test
# suite, IDLE, Tk, ensurepip, the static library and site-packages), no
# sitecustomize of its own.
install_py312() {
    local p=$1$2
    mkdir -p "$p/bin" "$p/lib/python3.12"
    if [ -z "$PY312" ]; then
        : >"$p/lib/python3.12/os.py"
        return
    fi
    cp "$PY312" "$p/bin/python3.12"
    tar -C "$PY312_STDLIB" --exclude=__pycache__ --exclude=./test --exclude=./idlelib \
        --exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip --exclude=./lib2to3 \
        --exclude='./config-3.12*' --exclude=./site-packages --exclude=./pydoc_data \
        --exclude=./sitecustomize.py -cf - . | tar -C "$p/lib/python3.12" -xf -
}

# image_libs ROOT BINARY...: the C libraries BINARY loads, copied into ROOT's
# /usr/lib/<multiarch> (the loader looks there when nothing else names
# them), and the loader at the path the binary names.
image_libs() {
    local r=$1 b kind path
    shift
    mkdir -p "$r/usr/lib/$MULTIARCH"
    for b; do
        while read -r kind path; do
            if [ "$kind" = L ]; then
                cp -L "$path" "$r/usr/lib/$MULTIARCH/"
            else
                mkdir -p "$r${path%/*}"
                cp -L "$path" "$r$path"
            fi
        done < <(ldd "$b" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print "L", $3 } $1 ~ /^\// { print "I", $1 }')
    done
}

# in_image ROOT COMMAND...: COMMAND chrooted in ROOT with an empty
# environment (PATH aside), as a process of the image: absolute links
# (update-alternatives', Debian's conffile link, uv's) resolve in it. Its
# own mount namespace holds ROOT/proc (nccl-init and ASan read /proc) and
# goes away with it.
in_image() {
    local r=$1
    shift
    mkdir -p "$r/proc"
    unshare --mount --propagation private sh -c \
        'mount -t proc proc "$2/proc" && exec env -i PATH=/usr/local/bin:/usr/bin:/bin "$@"' \
        sh "$(command -v chroot)" "$r" "$@"
}

# put_nccl_init ROOT: nccl-init at /usr/local/bin and the profiles at
# /etc/nccl-init/profiles of the image, as docker/Dockerfile installs them.
put_nccl_init() {
    mkdir -p "$1/usr/local/bin" "$1/etc/nccl-init"
    cp "$NI" "$1/usr/local/bin/nccl-init"
    cp -r "$PROFILES" "$1/etc/nccl-init/profiles"
    image_libs "$1" "$NI"
}

# make_system_image ROOT [plain]: the system Python of both images (above)
# under ROOT; with "plain", no conffile link (the stdlib's own file).
DEBIAN_SITE='# install the apport exception handler if available
try:
    import apport_python_hook
except ImportError:
    pass
else:
    apport_python_hook.install()'
make_system_image() {
    local r=$1
    install_py312 "$r" /usr
    mkdir -p "$r/etc/alternatives" "$r/usr/local/lib/python3.12/dist-packages"
    ln -s /etc/alternatives/python3 "$r/usr/bin/python3"
    ln -s /usr/bin/python3.12 "$r/etc/alternatives/python3"
    if [ "${2:-}" != plain ]; then
        mkdir -p "$r/etc/python3.12"
        printf '%s\n' "$DEBIAN_SITE" >"$r/etc/python3.12/sitecustomize.py"
        ln -s /etc/python3.12/sitecustomize.py "$r/usr/lib/python3.12/sitecustomize.py"
    fi
    [ -z "$PY312" ] || image_libs "$r" "$PY312"
}

@test "the images' system Python 3.12 under --root: the block goes into /etc/python3.12's conffile" {
    R=$TMP/image
    make_system_image "$R"
    run --separate-stderr "$NI" -v --root "$R" --sinks python --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    # (a) one stdlib found, under the root's /usr/lib; the link kept, the
    # block at the top of the conffile it names, Debian's code below it
    [[ "$stderr" == *"python: $R/usr/lib/python3.12 (3.12)"* ]]
    assert_equal "$(grep -cE '^nccl-init: python: /.* \(3\.[0-9]+\)$' <<<"$stderr")" 1
    assert_equal "$(readlink "$R/usr/lib/python3.12/sitecustomize.py")" /etc/python3.12/sitecustomize.py
    assert_equal "$(head -1 "$R/etc/python3.12/sitecustomize.py")" '# BEGIN nccl-init'
    assert_equal "$(sed '/^# BEGIN nccl-init$/,/^# END nccl-init$/d' "$R/etc/python3.12/sitecustomize.py")" \
        "$DEBIAN_SITE"
    # nothing in dist-packages (the stdlib comes first on sys.path) or elsewhere
    assert_equal "$(cd "$R" && find . -name sitecustomize.py | LC_ALL=C sort)" \
        "$(printf '%s\n' ./etc/python3.12/sitecustomize.py ./usr/lib/python3.12/sitecustomize.py)"
    [[ "$stderr" != *warning* ]]
    # under --root the hook names the record as the image's processes see it
    grep -qF "_nccl_init('/run/nccl-init/profile.env')" "$R/etc/python3.12/sitecustomize.py"
    # (b) the image's python3, run in the image, runs it: the record it
    # names is not there (nothing, silently), and with one there it applies
    # it. Under --root nccl-init does not run the image's python3.12 (its
    # code, on the host): no .pyc; the image's first start as root writes it
    need_py312 "the layout checks passed; "
    pyc=$R/usr/lib/python3.12/__pycache__/sitecustomize.cpython-312.pyc
    [ ! -e "$pyc" ]
    run --separate-stderr in_image "$R" /usr/bin/python3 -c "$SHOW"
    assert_output "$(sed 's/=.*/=None/' <<<"$WANT")"
    assert_equal "$stderr" ""
    [ -s "$pyc" ]
    pycsum=$(sha256sum <"$pyc")
    mkdir -p "$R/run/nccl-init"
    { printf 'NCCL_INIT_DIGEST=x\n%s\n' "$WANT"; record_writer_lines $$; } >"$R/run/nccl-init/profile.env"
    run in_image "$R" /usr/bin/python3 -c "$SHOW"
    assert_output "$WANT"
    # the .pyc was valid for it: not compiled again
    assert_equal "$(sha256sum <"$pyc")" "$pycsum"
    run in_image "$R" /usr/bin/python3 -I -c 'import sitecustomize; print(sitecustomize.__file__)'
    assert_output /usr/lib/python3.12/sitecustomize.py
}

@test "the images' system Python 3.12 with nccl-init inside the image: COMMAND python3 through update-alternatives" {
    need_py312
    R=$TMP/image
    make_system_image "$R"
    put_nccl_init "$R"
    mkdir -p "$R/run"
    run --separate-stderr in_image "$R" /usr/local/bin/nccl-init -v --sinks python,record -p pcie-8gpu -- \
        /usr/bin/python3 -c "import subprocess, sys
sys.stdout.write(subprocess.run([sys.executable, '-c', '''$SHOW'''], env={}, capture_output=True, text=True).stdout)"
    assert_success
    assert_output "$WANT"
    [[ "$stderr" == *"python: /usr/lib/python3.12 (3.12)"* ]]
    [[ "$stderr" != *warning* ]]
    grep -qx '# BEGIN nccl-init' "$R/etc/python3.12/sitecustomize.py"
    [ -L "$R/usr/lib/python3.12/sitecustomize.py" ]
    # byte-compiled once written, where the image's python3 looks for it
    [ -s "$R/usr/lib/python3.12/__pycache__/sitecustomize.cpython-312.pyc" ]
}

@test "the images' system Python 3.12 without Debian's conffile link: the stdlib's own sitecustomize.py" {
    need_py312
    R=$TMP/image
    make_system_image "$R" plain
    mkdir -p "$R/run"
    run --separate-stderr "$NI" --root "$R" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [[ "$stderr" != *warning* ]]
    [ -f "$R/usr/lib/python3.12/sitecustomize.py" ] && [ ! -L "$R/usr/lib/python3.12/sitecustomize.py" ]
    [ ! -e "$R/etc/python3.12" ]
    assert_equal "$(cd "$R" && find . -name sitecustomize.py)" ./usr/lib/python3.12/sitecustomize.py
    [ ! -e "$R/usr/lib/python3.12/__pycache__/sitecustomize.cpython-312.pyc" ]
    # it names the record as seen inside the root: run in the image, it
    # applies the record a start writes there, while that start runs
    keep_writer --root "$R" --sinks record --profile-dir "$PROFILES" -p pcie-8gpu
    run in_image "$R" /usr/bin/python3 -c "$SHOW"
    assert_output "$WANT"
}

# A uv-managed CPython under /opt and a venv on it, as forks build their
# images: UV_PYTHON_INSTALL_DIR=/opt/uv/python, then uv venv /opt/venv.
# astral-sh/uv docs/reference/storage.md ("Python versions") and
# docs/concepts/python-versions.md ("Minor version directories"): each
# install is <dir>/cpython-3.12.N-linux-x86_64-gnu (bin/python3.12,
# lib/python3.12), and since uv 0.10 (changelogs/0.10.x.md, "Stabilizations")
# <dir>/cpython-3.12-linux-x86_64-gnu is a link to the newest patch install.
# A venv made without a patch version names that link
# (crates/uv-virtualenv/src/virtualenv.rs): bin/python -> <link>/bin/python3.12,
# python3 and python3.12 -> python, pyvenv.cfg "home = <link>/bin" and
# "version_info = 3.12"; with a patch version (uv venv -p 3.12.N, or an
# older uv) the patch directory and the full version instead. A console
# script's #! is the venv's python (crates/uv-install-wheel/src/wheel.rs,
# get_script_executable).
#
# Where such a venv reads sitecustomize (CPython Lib/site.py): main() runs
# venv(), which for include-system-site-packages = false sets PREFIXES to
# the venv alone, so sys.path holds the base interpreter's stdlib (from
# getpath, through pyvenv.cfg's home) and the venv's site-packages, never
# the base's site-packages; execsitecustomize() then does a plain "import
# sitecustomize" along sys.path, the stdlib first. The hook goes into the
# base's stdlib.
#
# nccl-init runs inside the image (chroot), as PID 1 does: pyvenv.cfg's
# home and uv's links are image paths. (Under --root they are resolved
# inside the root: tests/root.bats.)
make_uv_image() {
    local r=$1 link=$2 v home py
    v=$("$PY312" -c 'import platform; print(platform.python_version())')
    py=/opt/uv/python/cpython-$v-linux-x86_64-gnu
    install_py312 "$r" "$py"
    ln -s python3.12 "$r$py/bin/python3"
    ln -s python3.12 "$r$py/bin/python"
    ln -s "$py" "$r/opt/uv/python/cpython-3.12-linux-x86_64-gnu"
    if [ "$link" = minor ]; then
        home=/opt/uv/python/cpython-3.12-linux-x86_64-gnu/bin
    else
        home=$py/bin
    fi
    mkdir -p "$r/opt/venv/bin" "$r/opt/venv/lib/python3.12/site-packages/fake_vllm"
    printf 'home = %s\nimplementation = CPython\nuv = 0.10.0\nversion_info = %s\ninclude-system-site-packages = false\n' \
        "$home" "$([ "$link" = minor ] && echo 3.12 || echo "$v")" >"$r/opt/venv/pyvenv.cfg"
    ln -s "$home/python3.12" "$r/opt/venv/bin/python"
    ln -s python "$r/opt/venv/bin/python3"
    ln -s python "$r/opt/venv/bin/python3.12"
    # vllm's entry point, as pip and uv write it; "-m fake_vllm" the same
    printf '#!/opt/venv/bin/python\n# -*- coding: utf-8 -*-\nimport sys\nfrom fake_vllm import main\nif __name__ == "__main__":\n    sys.exit(main())\n' \
        >"$r/opt/venv/bin/vllm"
    chmod +x "$r/opt/venv/bin/vllm"
    cat >"$r/opt/venv/lib/python3.12/site-packages/fake_vllm/__init__.py" <<PY
import os, sys
def main():
    print("sitecustomize", getattr(sys.modules.get("sitecustomize"), "__file__", None))
    print("sys.path", [p for p in sys.path if "site-packages" in p or p.endswith("python3.12")])
$(sed 's/^/    /' <<<"$SHOW")
PY
    printf 'from fake_vllm import main\nmain()\n' >"$r/opt/venv/lib/python3.12/site-packages/fake_vllm/__main__.py"
    image_libs "$r" "$PY312"
    put_nccl_init "$r"
    UV_PY=$py UV_HOME=$home
}

# Runs COMMAND under nccl-init in the uv image; checks where the hook went
# and what the server saw.
uv_start() {
    run --separate-stderr in_image "$R" /usr/local/bin/nccl-init -v --sinks python -p pcie-8gpu -- "$@"
    assert_success
    [[ "$stderr" != *warning* ]]
    [[ "$stderr" == *"python: $UV_PY/lib/python3.12 (3.12)"* ]]
    [ -f "$R$UV_PY/lib/python3.12/sitecustomize.py" ] && [ ! -L "$R$UV_PY/lib/python3.12/sitecustomize.py" ]
    [ -s "$R$UV_PY/lib/python3.12/__pycache__/sitecustomize.cpython-312.pyc" ]
    [ -z "$(find "$R/opt/venv" -name 'sitecustomize*')" ]
    assert_output "sitecustomize ${UV_HOME%/bin}/lib/python3.12/sitecustomize.py
sys.path ['${UV_HOME%/bin}/lib/python3.12', '/opt/venv/lib/python3.12/site-packages']
$WANT"
}

@test "a uv venv on uv's minor-version link: /opt/venv/bin/vllm and python -m" {
    need_py312
    R=$TMP/image
    make_uv_image "$R" minor
    uv_start /opt/venv/bin/vllm
    uv_start /opt/venv/bin/python -m fake_vllm
}

@test "a uv venv on a patch install (uv venv -p 3.12.N): /opt/venv/bin/vllm and python3 -m" {
    need_py312
    R=$TMP/image
    make_uv_image "$R" patch
    uv_start /opt/venv/bin/vllm
    uv_start /opt/venv/bin/python3 -m fake_vllm
}
