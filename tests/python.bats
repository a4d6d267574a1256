#!/usr/bin/env bats
# The Python sink: every interpreter applies the resolved set at start-up,
# even with an empty environment. Runs over copy-on-write /etc and /usr
# (scripts/sandbox.sh), so the hook lands in the real stdlib paths.

load helpers/common

PY=/usr/bin/python3
PYV=$($PY -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
STDLIB=/usr/lib/python$PYV
CONFFILE=/etc/python$PYV/sitecustomize.py

setup() {
    [ -x "$PY" ] || skip "no $PY"
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

# Installs the hook for pcie-8gpu (plus any extra options).
hook() {
    run --separate-stderr "$NI" --sinks python --profile-dir "$PROFILES" -p pcie-8gpu "$@" -- true
    assert_success
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
    ! grep -q _nccl_path "$CONFFILE"
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
    run env -i NCCL_ALGO=Tree "$PY" -c 'import os; print(os.environ["NCCL_ALGO"])'
    assert_output Tree
    NCCL_ALGO=Tree hook
    run "$PY" -c "
import subprocess, sys
print(subprocess.run([sys.executable, '-c', 'import os; print(os.environ[\"NCCL_ALGO\"])'], env={}, capture_output=True, text=True).stdout.strip())"
    assert_output Tree
}

@test "a venv is covered by its base interpreter's stdlib" {
    "$PY" -m venv --without-pip "$TMP/venv" || skip "no venv module"
    run --separate-stderr "$NI" -v --sinks python --profile-dir "$PROFILES" -p pcie-8gpu \
        --python "$TMP/venv/bin/python3" -- true
    assert_success
    [[ "$stderr" == *"python: $STDLIB ($PYV)"* ]]
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
    run --separate-stderr env -i "$NI" -q --sinks python --profile-dir "$PROFILES" -p pcie-8gpu -- \
        "$TMP/other/bin/python3" -c 'print("started")'
    assert_output started
    run env -i "$TMP/other/bin/python3" -c "$SHOW"
    assert_output "$WANT"
}

@test "a console script whose shebang names the interpreter" {
    make_prefix "$TMP/prefix"
    printf '#!%s\nimport os\nprint(os.environ.get("NCCL_PROTO"))\n' "$TMP/prefix/bin/python$PYV" >"$TMP/serve"
    chmod +x "$TMP/serve"
    run --separate-stderr env -i "$NI" -q --sinks python --profile-dir "$PROFILES" -p pcie-8gpu -- "$TMP/serve"
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
    grep -q "_nccl_path = '$site/sitecustomize.py'" \
        "$TMP/prefix/lib/python$PYV/sitecustomize.py"
    run env -i "$TMP/prefix/bin/python3" -c 'import os; print(os.environ.get("CHAINED"), os.environ.get("NCCL_PROTO"))'
    assert_output "yes LL"
}

@test "values round-trip exactly: quotes, backslashes, triple quotes, escapes, non-ASCII" {
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
}

@test "a second start changes nothing: no rewrite, no recompile" {
    hook
    f=$(readlink -f "$STDLIB/sitecustomize.py")
    pyc="$STDLIB/__pycache__/sitecustomize.cpython-${PYV/./}.pyc"
    sum=$(sha256sum "$f") pycstat=$(stat -c %Y.%s "$pyc")
    sleep 1.1
    hook
    assert_equal "$(sha256sum "$f")" "$sum"
    assert_equal "$(stat -c %Y.%s "$pyc")" "$pycstat"
}

@test "a symlink planted in a stdlib directory is refused" {
    make_prefix "$TMP/prefix"
    echo 'x = 1' >"$TMP/victim.py"
    ln -s "$TMP/victim.py" "$TMP/prefix/lib/python$PYV/sitecustomize.py"
    run --separate-stderr "$NI" --sinks python --profile-dir "$PROFILES" -p pcie-8gpu --python "$TMP/prefix/bin/python3" -- true
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
    hook --sinks python,record
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

@test "no record: the hook still applies the values, and starts as before" {
    rm -rf /run/nccl-init
    hook
    run env -i "$PY" -c "$SHOW"
    assert_output "$WANT"
    run env -i "$PY" -c 'import sitecustomize; print(sitecustomize._nccl_record)'
    assert_output None
}

@test "with --root, the hook opens the record under that root" {
    make_prefix "$TMP/prefix"
    mkdir -p "$TMP/root/run"
    run --separate-stderr "$NI" --root "$TMP/root" --sinks python,record --profile-dir "$PROFILES" -p pcie-8gpu \
        --python "$TMP/prefix/bin/python3" -- true
    assert_success
    run env -i "$TMP/prefix/bin/python3" -c 'import os, sitecustomize as s; print(os.readlink("/proc/self/fd/%d" % s._nccl_record))'
    assert_output "$TMP/root/run/nccl-init/profile.env"
    # render prints the same block
    diff <(sed -n '/^# BEGIN nccl-init$/,/^# END nccl-init$/p' "$TMP/prefix/lib/python$PYV/sitecustomize.py") \
        <("$NI" render -q --root "$TMP/root" --profile-dir "$PROFILES" -p pcie-8gpu --format python)
}
