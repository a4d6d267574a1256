#!/usr/bin/env bats
# Propagation: the sinks that carry the resolved set beyond the child's
# environment (etc-environment, nccl-conf, record), written under --root.
# Python is left out here (it has its own suite): every run names its sinks.

load helpers/common

SINKS=etc-environment,nccl-conf,record
BEGIN='# BEGIN nccl-init'
END='# END nccl-init'
# The note after BEGIN in a file nccl-init created, or whose last line it
# ended (block.h): render does not print it.
MADE='# nccl-init created this file'
NEWLINE='# nccl-init added the newline before this block'
# After MADE, the sha256 of the block's lines below it (remove deletes the
# file only while they are what nccl-init wrote).
SUM_RE='^# sha256 of the lines nccl-init wrote below: [0-9a-f]{64}$'

setup() {
    unset_nccl_env
    ROOT=$(mktemp -d)
    mkdir "$ROOT/etc" "$ROOT/run"
    # Scratch space outside the root: originals, traces, markers.
    TMP=$(mktemp -d)
    # sed, grep, sort and strerror byte-wise and in English
    export LC_ALL=C
}

teardown() {
    if mountpoint -q "$ROOT/etc"; then umount "$ROOT/etc"; fi
    if mountpoint -q "$ROOT"; then umount "$ROOT"; fi
    rm -rf "$ROOT" "$TMP"
}

# One start of the pcie-8gpu profile under the root; the caller names the
# sinks (--sinks) and the rest.
ni_start() { "$NI" -q --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu "$@"; }

# The managed block of a file, markers included, without its note (what
# render prints); its note; and everything else.
block_of() { sed -n "/^$BEGIN\$/,/^$END\$/p" "$1" | grep -vxF -e "$MADE" -e "$NEWLINE" | grep -vE "$SUM_RE"; }
note_of() { sed -n "/^$BEGIN\$/{n;p}" "$1" | grep -xF -e "$MADE" -e "$NEWLINE" || true; }
outside_of() { sed "/^$BEGIN\$/,/^$END\$/d" "$1"; }

# What nccl-init must leave outside its block: the original minus its block,
# plus the '\n' it adds before appending to a file with no final newline.
expected_outside() {
    if [ ! -e "$1" ]; then
        return 0
    fi
    outside_of "$1"
    if ! grep -qx -- "$BEGIN" "$1" && [ -s "$1" ] && [ -n "$(tail -c1 "$1")" ]; then
        printf '\n'
    fi
}

# Random contents for files that someone else owns, from one python3 start:
# gen_files SEED KIND PATH [SEED KIND PATH...]. KIND: absent, empty, nl
# (ends with a newline), nonl (does not), block (a stale block in the
# middle), blockeof (a stale block at the end, no final newline), blockonly.
# Lines: comments, KEY=VALUE, export lines, blanks, tabs, CRLF, UTF-8, and
# near-misses of the markers that must not count as markers. Seeded: the
# same files on every run.
gen_files() {
    python3 - "$@" <<'EOF'
import random, sys

printable = [chr(c) for c in range(0x20, 0x7f)]
# A marker may end in CRLF now ('# BEGIN nccl-init\r' + '\n' is a marker, so
# no longer a near-miss); two CRs are still not one.
near = ['# BEGIN nccl-init ', ' # BEGIN nccl-init', '#BEGIN nccl-init', '# begin nccl-init',
        '# BEGIN nccl-init\r\r', '# END nccl-init.', 'X# END nccl-init', '# END  nccl-init',
        '## BEGIN nccl-init', '# BEGIN nccl-init-2']
stale = '# BEGIN nccl-init\nNCCL_ALGO=Stale\nNCCL_OLD=1\n# END nccl-init'

def gen(r, kind):
    def word(n):
        return ''.join(r.choice(printable) for _ in range(r.randrange(n)))
    def name():
        return r.choice(['NCCL_', 'PATH', 'LANG', 'X', '_a', 'NCCL_ALGO', 'NCCL_PROTO']) + \
            ''.join(r.choice('ABCXYZ019_') for _ in range(r.randrange(6)))
    def line():
        k = r.randrange(9)
        if k == 0: return ''
        if k == 1: return '#' + word(60)
        if k == 2: return '%s=%s' % (name(), word(40))
        if k == 3: return 'export %s="%s"' % (name(), word(20))
        if k == 4: return r.choice(near)
        if k == 5: return '\t%s = %s\t' % (name(), word(10))
        if k == 6: return '%s=caf\u00e9 \u2603\r' % name()
        if k == 7: return '   '
        return word(80)
    def lines(n):
        return ''.join(line() + '\n' for _ in range(n))
    body = lines(r.randrange(1, 30))
    return {
        'empty': lambda: '',
        'nl': lambda: body,
        'nonl': lambda: body + word(30) + 'Z',
        'block': lambda: body + stale + '\n' + lines(r.randrange(1, 10)) + 'tail',
        'blockeof': lambda: body + stale,
        'blockonly': lambda: stale + '\n',
    }[kind]()

args = sys.argv[1:]
for i in range(0, len(args), 3):
    seed, kind, path = int(args[i]), args[i + 1], args[i + 2]
    if kind != 'absent':
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write(gen(random.Random(seed), kind))
EOF
}

# "sink outcome" per line, from the record's state.json.
state_sinks() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["sinks"]:
    print(s["sink"], s["outcome"])' "$ROOT/run/nccl-init/state.json"
}

# The sink warnings of a run's stderr.
sink_warnings() { grep '^nccl-init: warning: sink ' <<<"$stderr" || true; }

# The files of a directory, hidden ones included, one a line.
files_in() { ls -A "$1"; }

@test "contents outside the block survive 100 starts byte for byte; the block is replaced, never added" {
    # 5 cases x 100 starts: each start rewrites the record's state.json
    # (a new child pid) with two fsyncs, so the roots live on a tmpfs to
    # keep this fast whatever the disk.
    mount -t tmpfs -o size=16m,mode=0700 tmpfs "$ROOT"
    mkdir "$ROOT/etc" "$ROOT/run"
    # KIND of etc/environment, KIND of etc/nccl.conf
    local cases=(
        "absent empty"
        "nonl nl"
        "nl nonl"
        "block blockeof"
        "blockonly absent"
    )
    local want_env want_conf
    want_env=$(ni_render -p pcie-8gpu --format etc-environment 2>/dev/null)
    want_conf=$(ni_render -p pcie-8gpu --format nccl-conf 2>/dev/null)
    [[ "$want_env" == "$BEGIN"$'\n'*$'\n'"$END" ]]
    [[ "$want_conf" == "$BEGIN"$'\n'*$'\n'"$END" ]]

    local c kenv kconf f i want gen=()
    for c in "${!cases[@]}"; do
        mkdir "$ROOT/case$c" "$ROOT/case$c/etc" "$ROOT/case$c/run" "$TMP/case$c"
        read -r kenv kconf <<<"${cases[$c]}"
        gen+=("$((c * 2 + 1))" "$kenv" "$ROOT/case$c/etc/environment")
        gen+=("$((c * 2 + 2))" "$kconf" "$ROOT/case$c/etc/nccl.conf")
    done
    gen_files "${gen[@]}"
    # the generator made what each case is about
    [ ! -e "$ROOT/case0/etc/environment" ]
    [ -e "$ROOT/case0/etc/nccl.conf" ]
    [ ! -s "$ROOT/case0/etc/nccl.conf" ]
    [ -n "$(tail -c1 "$ROOT/case1/etc/environment")" ]
    [ -z "$(tail -c1 "$ROOT/case1/etc/nccl.conf")" ]
    [ -z "$(tail -c1 "$ROOT/case2/etc/environment")" ]
    [ -n "$(tail -c1 "$ROOT/case2/etc/nccl.conf")" ]
    grep -qx -- "$BEGIN" "$ROOT/case3/etc/environment"
    grep -qx -- "$BEGIN" "$ROOT/case3/etc/nccl.conf"
    [ "$(tail -c ${#END} "$ROOT/case3/etc/nccl.conf")" = "$END" ]
    [ ! -e "$ROOT/case4/etc/nccl.conf" ]
    grep -q $'\r$' "$ROOT"/case[123]/etc/*
    grep -q '^# BEGIN nccl-init.' "$ROOT"/case[123]/etc/*

    local r t
    for c in "${!cases[@]}"; do
        r=$ROOT/case$c t=$TMP/case$c
        for f in environment nccl.conf; do
            [ ! -e "$r/etc/$f" ] || cp -p "$r/etc/$f" "$t/$f.orig"
            expected_outside "$t/$f.orig" >"$t/$f.outside"
        done
        for i in $(seq 1 100); do
            "$NI" -q --root "$r" --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- true \
                2>>"$t/stderr" || { echo "case $c (${cases[$c]}): start $i failed"; cat "$t/stderr"; return 1; }
            if [ "$i" = 1 ]; then
                for f in environment nccl.conf; do
                    sha256sum <"$r/etc/$f" >"$t/$f.sha1"
                    stat -c '%i %y %z' "$r/etc/$f" >"$t/$f.stat1"
                done
            fi
        done
        if grep -q '^nccl-init: \(warning: sink\|error\)' "$t/stderr"; then
            echo "case $c (${cases[$c]}): unexpected diagnostics:"; cat "$t/stderr"; return 1
        fi

        for f in environment nccl.conf; do
            # after start 100 as after start 1, and not even rewritten
            diff <(sha256sum <"$r/etc/$f") "$t/$f.sha1" ||
                { echo "case $c: $f changed between start 1 and start 100"; return 1; }
            diff <(stat -c '%i %y %z' "$r/etc/$f") "$t/$f.stat1" ||
                { echo "case $c: $f rewritten with the same contents"; return 1; }
            # everything else byte for byte (cmp: a lost final newline counts)
            cmp <(outside_of "$r/etc/$f") "$t/$f.outside" ||
                { echo "case $c (${cases[$c]}): outside the block of $f differs"; return 1; }
            [ "$(grep -cx -- "$BEGIN" "$r/etc/$f")" = 1 ]
            [ "$(grep -cx -- "$END" "$r/etc/$f")" = 1 ]
            [ "$(stat -c %a "$r/etc/$f")" = 644 ]
        done
        # no temporary file left behind
        assert_equal "$(files_in "$r/etc" | paste -sd' ')" "environment nccl.conf"
        # the block is exactly what render prints
        diff <(block_of "$r/etc/environment") <(printf '%s\n' "$want_env") ||
            { echo "case $c: etc/environment block != render"; return 1; }
        diff <(block_of "$r/etc/nccl.conf") <(printf '%s\n' "$want_conf") ||
            { echo "case $c: nccl.conf block != render"; return 1; }
        # the note says what nccl-init added: the file, or its last newline
        read -r kenv kconf <<<"${cases[$c]}"
        for f in environment:$kenv nccl.conf:$kconf; do
            case ${f#*:} in
            absent) want=$MADE ;;
            nonl) want=$NEWLINE ;;
            *) want= ;;
            esac
            assert_equal "$(note_of "$r/etc/${f%%:*}")" "$want"
        done
        # start 100 wrote neither file; the record is new at every start,
        # since it names its writer
        [ "$(grep -c '"outcome": "unchanged"' "$r/run/nccl-init/state.json")" = 2 ]
        grep -q '"sink": "record", .*"outcome": "written"' "$r/run/nccl-init/state.json"
        [ "$(grep -c '"outcome": ' "$r/run/nccl-init/state.json")" = 3 ]
    done
}

@test "a value from the environment wins in both files; --enforce puts the profile's back" {
    run --separate-stderr env NCCL_ALGO=Tree "$NI" -q --root "$ROOT" --sinks "$SINKS" \
        --profile-dir "$PROFILES" -p pcie-8gpu -- printenv NCCL_ALGO
    assert_success
    assert_output Tree
    for f in environment nccl.conf; do
        [ "$(grep -c '^NCCL_ALGO=' "$ROOT/etc/$f")" = 1 ]
        grep -qx NCCL_ALGO=Tree "$ROOT/etc/$f"
        grep -qx NCCL_PROTO=LL "$ROOT/etc/$f" # the rest of the profile
    done
    grep -qx NCCL_ALGO=Tree "$ROOT/run/nccl-init/profile.env"
    diff <(block_of "$ROOT/etc/environment") \
        <(env NCCL_ALGO=Tree "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu \
            --format etc-environment 2>/dev/null)

    # the record read while the run lasts: an --enforce run takes it back
    # when it ends
    run --separate-stderr env NCCL_ALGO=Tree "$NI" --enforce --root "$ROOT" --sinks "$SINKS" \
        --profile-dir "$PROFILES" -p pcie-8gpu -- \
        sh -c 'printenv NCCL_ALGO; grep -x NCCL_ALGO=Ring "$1"' sh "$ROOT/run/nccl-init/profile.env"
    assert_success
    assert_output $'Ring\nNCCL_ALGO=Ring'
    for f in environment nccl.conf; do
        [ "$(grep -c '^NCCL_ALGO=' "$ROOT/etc/$f")" = 1 ]
        grep -qx NCCL_ALGO=Ring "$ROOT/etc/$f"
        [ "$(grep -cx -- "$BEGIN" "$ROOT/etc/$f")" = 1 ]
    done
    [[ "$stderr" == *"sink record: $ROOT/run/nccl-init/profile.env: taken back: the --enforce run has ended"* ]]
    [ ! -e "$ROOT/run/nccl-init/profile.env" ]
}

@test "a value pam_env cannot carry is left out of etc/environment only, with a warning" {
    run --separate-stderr env 'NCCL_ALGO=Ring#x' "$NI" -q --root "$ROOT" --sinks "$SINKS" \
        --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink etc-environment: NCCL_ALGO left out: pam_env treats '#' as a comment, even in quotes"
    run ! grep -q '^NCCL_ALGO' "$ROOT/etc/environment"
    grep -qx NCCL_PROTO=LL "$ROOT/etc/environment"
    grep -qx 'NCCL_ALGO=Ring#x' "$ROOT/etc/nccl.conf"
    grep -qx 'NCCL_ALGO=Ring#x' "$ROOT/run/nccl-init/profile.env"
    # and render agrees with the sink
    diff <(block_of "$ROOT/etc/environment") \
        <(env 'NCCL_ALGO=Ring#x' "$NI" render --profile-dir "$PROFILES" -p pcie-8gpu \
            --format etc-environment 2>/dev/null)
}

@test "under --root, NCCL_CONF_FILE names the root's file; one that could climb out of the root is refused" {
    mkdir "$TMP/outside"
    # in /etc, which the sandbox overlays: a binary that gets this wrong
    # writes the machine's copy there, not the machine's file
    mkdir -p "$ROOT/etc"
    run --separate-stderr env NCCL_CONF_FILE=/etc/custom-nccl.conf "$NI" --root "$ROOT" \
        --sinks nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    grep -qx '# BEGIN nccl-init' "$ROOT/etc/custom-nccl.conf"
    [ ! -e /etc/custom-nccl.conf ]
    local cf up
    up=$(realpath --relative-to="$ROOT" "$TMP/outside")
    for cf in "/$up/nccl.conf" "/etc/../$up/nccl.conf" relative.conf; do
        run --separate-stderr env NCCL_CONF_FILE="$cf" "$NI" --root "$ROOT" --sinks nccl-conf \
            --profile-dir "$PROFILES" -p pcie-8gpu -- true
        assert_success
        [[ "$stderr" == *"nccl-init: warning: sink nccl-conf: NCCL_CONF_FILE=$cf: under --root $ROOT it must be an absolute path without '.', '..' or empty parts"*"; skipped"* ]]
        [ -z "$(ls -A "$TMP/outside")" ]
    done
    # a host path outside the root is the root's file of that name: here none
    run --separate-stderr env NCCL_CONF_FILE="$TMP/outside/nccl.conf" "$NI" --root "$ROOT" \
        --sinks nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [[ "$stderr" == *"warning: sink nccl-conf: $ROOT$TMP/outside/nccl.conf: "*"No such file or directory; skipped"* ]]
    [ -z "$(ls -A "$TMP/outside")" ]
    # --strict: a sink that cannot be written starts nothing
    run --separate-stderr env NCCL_CONF_FILE="/$up/nccl.conf" "$NI" --strict --root "$ROOT" \
        --sinks nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
}

@test "NCCL_CONF_FILE is honoured: its file gets the block, etc/nccl.conf is not created" {
    printf 'NCCL_DEBUG=WARN\n# mine' >"$ROOT/custom.conf"
    cp "$ROOT/custom.conf" "$TMP/custom.orig"
    run --separate-stderr env NCCL_CONF_FILE="$ROOT/custom.conf" "$NI" --root "$ROOT" \
        --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- printenv NCCL_CONF_FILE
    assert_success
    assert_output "$ROOT/custom.conf"
    [[ "$stderr" == *"nccl-init: NCCL_CONF_FILE is set: writing the nccl.conf block to $ROOT/custom.conf"* ]]
    [ -z "$(sink_warnings)" ]
    [ ! -e "$ROOT/etc/nccl.conf" ]
    [ -f "$ROOT/etc/environment" ] # the other sinks as usual
    cmp <(outside_of "$ROOT/custom.conf") <(cat "$TMP/custom.orig"; printf '\n')
    diff <(block_of "$ROOT/custom.conf") \
        <(ni_render -p pcie-8gpu --format nccl-conf 2>/dev/null)
    run ! grep -q NCCL_CONF_FILE "$ROOT/custom.conf"
    run state_sinks
    assert_line 'nccl-conf written'
    # under --root state.json names it as seen inside the root
    grep -qF '"path": "/custom.conf"' "$ROOT/run/nccl-init/state.json"
}

@test "nccl.conf holds only KEY=VALUE lines, its markers and its note" {
    # A CR in a value would become part of it in NCCL's reader: left out.
    run --separate-stderr env NCCL_ALGO=Tree NCCL_PROTO=$'LL\r' "$NI" -q --root "$ROOT" \
        --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [[ "$(sink_warnings)" == *"nccl-init: warning: sink nccl-conf: NCCL_PROTO left out: it contains a control character"* ]]
    local f=$ROOT/etc/nccl.conf n=0 line
    [ -s "$f" ]
    [ -z "$(tail -c1 "$f")" ] # ends with a newline
    run ! grep -q $'\r' "$f"
    while IFS= read -r line; do
        n=$((n + 1))
        if [[ "$line" == '#'* ]]; then
            [[ "$line" == "$BEGIN" || "$line" == "$END" || "$line" == "$MADE" ||
                "$line" =~ $SUM_RE ]] || { echo "line $n: $line"; return 1; }
        else
            [[ "$line" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]] ]] || { echo "line $n: $line"; return 1; }
            [[ "$line" == NCCL_* ]] || { echo "line $n: not NCCL_*: $line"; return 1; }
        fi
    done <"$f"
    [ "$n" -ge 8 ]
    # the sum is the sha256 of the lines between it and END
    assert_equal "$(sed -n 3p "$f" | sed 's/.*: //')" \
        "$(sed -n '4,/^# END nccl-init$/p' "$f" | sed '$d' | sha256sum | cut -c1-64)"
    grep -qx NCCL_ALGO=Tree "$f"
    run ! grep -q '^NCCL_PROTO' "$f"
}

@test "the record: profile.env is the resolved set, state.json names the command's pid" {
    run --separate-stderr ni_start --sinks "$SINKS" -- \
        sh -c 'echo $$ >"$1"; printenv NCCL_INIT_DIGEST >"$2"; echo $PPID >"$3"' \
        sh "$TMP/pid" "$TMP/digest" "$TMP/ppid"
    assert_success
    local digest pid
    digest=$(cat "$TMP/digest")
    pid=$(cat "$TMP/pid")
    [[ "$digest" =~ ^[0-9a-f]{64}$ ]]
    [ "$pid" -gt 0 ]
    # profile.env: the profile's lines, the four nccl-init adds (its
    # writer: nccl-init, the command's parent, and its start time), nothing
    # else
    local start
    start=$(sed -n 's/^NCCL_INIT_START=//p' "$ROOT/run/nccl-init/profile.env")
    [[ "$start" =~ ^[0-9]+$ ]]
    {
        grep -E '^[A-Z_][A-Z0-9_]*=' "$PROFILES/pcie-8gpu.env"
        echo NCCL_INIT_PROFILE=pcie-8gpu
        echo "NCCL_INIT_DIGEST=$digest"
        echo "NCCL_INIT_PID=$(cat "$TMP/ppid")"
        echo "NCCL_INIT_START=$start"
    } | LC_ALL=C sort >"$TMP/want.env"
    [ "$(wc -l <"$TMP/want.env")" = 9 ]
    diff <(LC_ALL=C sort "$ROOT/run/nccl-init/profile.env") "$TMP/want.env"
    [ -z "$(tail -c1 "$ROOT/run/nccl-init/profile.env")" ]
    # state.json parses and agrees
    run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("profile", d["profile"])
print("digest", d["digest"])
print("child_pid", d["child_pid"], type(d["child_pid"]).__name__)
for v in sorted(d["variables"], key=lambda v: v["key"]):
    print(v["key"] + "=" + v["value"])
for s in d["sinks"]:
    print(s["sink"], s["outcome"], s["path"])' "$ROOT/run/nccl-init/state.json"
    assert_success
    assert_output "$(
        echo profile pcie-8gpu
        echo "digest $digest"
        echo "child_pid $pid int"
        grep -v '^NCCL_INIT_\(PID\|START\)=' "$TMP/want.env"
        # the paths as seen inside the root
        echo "record written /run/nccl-init/profile.env"
        echo "etc-environment written /etc/environment"
        echo "nccl-conf written /etc/nccl.conf"
    )"

    # a second start: same files, outcome unchanged, a new pid
    run --separate-stderr ni_start --sinks "$SINKS" -- sh -c 'echo $$ >"$1"' sh "$TMP/pid"
    assert_success
    # (the record is new at every start: it names its writer)
    run state_sinks
    assert_output "$(printf '%s\n' 'record written' 'etc-environment unchanged' 'nccl-conf unchanged')"
    # the pid sits in room reserved before the fork, padded with spaces
    grep -qE "\"child_pid\": $(cat "$TMP/pid") *,\$" "$ROOT/run/nccl-init/state.json"
}

@test "written files are 0644 whatever the umask" {
    run --separate-stderr bash -c 'umask 077; exec "$@"' sh "$NI" -q --root "$ROOT" \
        --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    for f in etc/environment etc/nccl.conf run/nccl-init/profile.env run/nccl-init/state.json; do
        [ "$(stat -c %a "$ROOT/$f")" = 644 ] || { echo "$f: $(stat -c %a "$ROOT/$f")"; return 1; }
    done
}

@test "--sinks none writes nothing; a bad sink name exits 2 and starts nothing" {
    run --separate-stderr ni_start --sinks none -- sh -c 'exit 5'
    assert_failure 5
    assert_equal "$(cd "$ROOT" && find . -mindepth 1 | sort | paste -sd' ')" "./etc ./run"

    for bad in etc-environment,bogus bogus '' 'etc-environment,' all,none python3; do
        run --separate-stderr ni_start --sinks "$bad" -- touch "$TMP/started"
        assert_failure 2
        [[ "$stderr" == "nccl-init: error: --sinks: unknown sink '"*"' (expected etc-environment, python, nccl-conf, record, all or none)" ]] ||
            { echo "--sinks '$bad': $stderr"; return 1; }
        [ ! -e "$TMP/started" ]
        assert_equal "$(cd "$ROOT" && find . -mindepth 1 | sort | paste -sd' ')" "./etc ./run"
    done
    run --separate-stderr ni_start --sinks etc-environment,bogus -- true
    assert_equal "$stderr" "nccl-init: error: --sinks: unknown sink 'bogus' (expected etc-environment, python, nccl-conf, record, all or none)"
}

@test "only the sinks named are written" {
    run --separate-stderr ni_start --sinks nccl-conf -- true
    assert_success
    assert_equal "$(cd "$ROOT" && find . -mindepth 1 | sort | paste -sd' ')" "./etc ./etc/nccl.conf ./run"
    run --separate-stderr ni_start --sinks record,etc-environment -- true
    assert_success
    [ -f "$ROOT/etc/environment" ]
    [ -f "$ROOT/run/nccl-init/profile.env" ]
    [ -f "$ROOT/run/nccl-init/state.json" ]
}

# ---- faults ------------------------------------------------------------

# Makes $ROOT/etc a read-only bind mount of itself (we are root in the
# sandbox's private mount namespace; teardown unmounts it).
etc_read_only() {
    mount --bind "$ROOT/etc" "$ROOT/etc"
    mount -o remount,bind,ro "$ROOT/etc"
    if touch "$ROOT/etc/.probe" 2>/dev/null; then
        echo "$ROOT/etc is still writable"
        return 1
    fi
}

@test "read-only target directory: one warning per sink, the command runs, files untouched; --strict starts nothing" {
    printf 'LANG=C\n# keep me' >"$ROOT/etc/environment"
    cp "$ROOT/etc/environment" "$TMP/environment.orig"
    etc_read_only

    run --separate-stderr ni_start --sinks "$SINKS" -- sh -c 'touch "$1"; exit 7' sh "$TMP/started"
    assert_failure 7
    [ -e "$TMP/started" ]
    assert_equal "$(sink_warnings)" "$(printf '%s\n' \
        "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: create temporary file: Read-only file system; skipped" \
        "nccl-init: warning: sink nccl-conf: $ROOT/etc/nccl.conf: create temporary file: Read-only file system; skipped")"
    cmp "$ROOT/etc/environment" "$TMP/environment.orig"
    [ ! -e "$ROOT/etc/nccl.conf" ]
    assert_equal "$(files_in "$ROOT/etc")" environment
    run state_sinks
    assert_output "$(printf '%s\n' 'record written' 'etc-environment failed' 'nccl-conf failed')"
    grep -qF '"note": "create temporary file: Read-only file system"' "$ROOT/run/nccl-init/state.json"

    rm -f "$TMP/started"
    run --separate-stderr ni_start --strict --sinks "$SINKS" -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    [[ "$stderr" == *"nccl-init: error: --strict: 2 sinks could not be written; command not started" ]]
    [ "$(sink_warnings | wc -l)" = 2 ]
    cmp "$ROOT/etc/environment" "$TMP/environment.orig"
    assert_equal "$(files_in "$ROOT/etc")" environment

    run --separate-stderr ni_start --strict --sinks etc-environment -- touch "$TMP/started"
    assert_failure 2
    [[ "$stderr" == *"nccl-init: error: --strict: 1 sink could not be written; command not started" ]]
    [ ! -e "$TMP/started" ]
}

@test "read-only target directory with the block already current: nothing to write, no warning" {
    run --separate-stderr ni_start --sinks "$SINKS" -- true
    assert_success
    etc_read_only
    run --separate-stderr ni_start --strict --sinks "$SINKS" -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    [ -z "$(sink_warnings)" ]
    run state_sinks # the record is new at every start: it names its writer
    assert_output "$(printf '%s\n' 'record written' 'etc-environment unchanged' 'nccl-conf unchanged')"
}

# The fault tests need strace, and ptrace allowed where they run.
need_strace() {
    command -v strace >/dev/null || skip "no strace"
    strace -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
}

# strace_start TRACE STRACE_ARGS... -- NI_ARGS...: one start of nccl-init
# alone (no -f: the command runs untraced) with injected faults. The trace
# goes to TRACE, so that the test can see what was injected where.
strace_start() {
    local trace=$1
    shift
    local sargs=()
    while [ "$1" != -- ]; do
        sargs+=("$1")
        shift
    done
    shift
    strace -qq -y -o "$trace" "${sargs[@]}" \
        "$NI" -q --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu "$@"
}

# The one warning of a failed sink; REASONS is strerror's text, or texts
# separated by '|' (musl and glibc word some errors differently).
# is_sink_warning TEXT SINK PATH STEP REASONS
is_sink_warning() {
    local r reasons
    IFS='|' read -ra reasons <<<"$5"
    for r in "${reasons[@]}"; do
        [ "$1" != "nccl-init: warning: sink $2: $3: $4: $r; skipped" ] || return 0
    done
    echo "not the expected warning (sink $2: $3: $4: $5): '$1'"
    return 1
}

# The checks every injected fault shares: exactly that one warning, the
# original byte for byte, no temporary file left behind, the command run;
# then the same fault with --strict: exit 2 and no command.
# check_fault STEP REASONS STRACE_ARGS...
check_fault() {
    local step=$1 reason=$2
    shift 2
    local target=$ROOT/etc/environment
    rm -f "$TMP/started"
    run --separate-stderr strace_start "$TMP/trace" "$@" -- --sinks etc-environment \
        -- sh -c 'touch "$1"; exit 3' sh "$TMP/started"
    assert_failure 3
    [ -e "$TMP/started" ]
    is_sink_warning "$(sink_warnings)" etc-environment "$target" "$step" "$reason"
    [ "$(grep -c INJECTED "$TMP/trace")" = 1 ] || { cat "$TMP/trace"; return 1; }
    cmp "$target" "$TMP/environment.orig"
    assert_equal "$(files_in "$ROOT/etc")" environment

    rm -f "$TMP/started"
    run --separate-stderr strace_start "$TMP/trace" "$@" -- --strict --sinks etc-environment \
        -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    is_sink_warning "$(sink_warnings)" etc-environment "$target" "$step" "$reason"
    [[ "$stderr" == *"nccl-init: error: --strict: 1 sink could not be written; command not started" ]]
    [ "$(grep -c INJECTED "$TMP/trace")" = 1 ]
    cmp "$target" "$TMP/environment.orig"
    assert_equal "$(files_in "$ROOT/etc")" environment
}

# temp_file_call SYSCALLS: runs the same start in a scratch copy of the root
# under strace and prints "NAME N": the first of SYSCALLS that touches the
# temporary file, and its number among the calls of that syscall (strace
# counts when= per syscall).
temp_file_call() {
    rm -rf "$TMP/scratch"
    mkdir -p "$TMP/scratch/etc" "$TMP/scratch/run"
    cp -a "$ROOT/etc/." "$TMP/scratch/etc/"
    strace -qq -y -o "$TMP/discover" -e trace="$1" "$NI" -q --root "$TMP/scratch" \
        --profile-dir "$PROFILES" -p pcie-8gpu --sinks etc-environment -- true 2>/dev/null
    awk '{ name = $0; sub(/\(.*/, "", name); n[name]++ }
         /\.environment\.nccl-init-/ { print name, n[name]; exit }' "$TMP/discover"
}

original_environment() {
    printf '# site settings\nLANG=C.UTF-8\n\nTZ=UTC' >"$ROOT/etc/environment"
    cp "$ROOT/etc/environment" "$TMP/environment.orig"
}

@test "injected fsync failure (EIO): original kept, no temporary file, a warning; --strict starts nothing" {
    need_strace
    original_environment
    check_fault fsync "Input/output error|I/O error" -e trace=fsync -e inject=fsync:error=EIO:when=1
    grep -q '^fsync([0-9]*<.*/etc/\.environment\.nccl-init-[0-9]*-[0-9a-f]*>) = -1 EIO' "$TMP/trace"
}

@test "injected rename failure (ENOSPC): original kept, no temporary file, a warning; --strict starts nothing" {
    need_strace
    original_environment
    check_fault rename "No space left on device" \
        -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:error=ENOSPC
    grep -Eq '^rename(at2?)?\(.*\.environment\.nccl-init-[0-9]+-[0-9a-f]+.* = -1 ENOSPC' "$TMP/trace"
}

@test "injected write failure (ENOSPC) on the temporary file only: original kept, no temporary file, a warning" {
    need_strace
    original_environment
    # Which write() of nccl-init goes to the temporary file: stderr gets the
    # profile's warnings first.
    local sc n
    read -r sc n < <(temp_file_call write)
    [ "$sc" = write ]
    [ "$n" -ge 1 ]
    check_fault write "No space left on device" -e trace=write -e inject=write:error=ENOSPC:when="$n"
    # and it was the temporary file's write that failed, not a log line
    grep -Eq '^write\([0-9]+<[^>]*/etc/\.environment\.nccl-init-[0-9]+-[0-9a-f]+>, .* = -1 ENOSPC \(No space left on device\) \(INJECTED\)$' \
        "$TMP/trace" || { cat "$TMP/trace"; return 1; }
}

@test "injected failure creating the temporary file (EACCES): original kept, a warning" {
    need_strace
    original_environment
    # musl and glibc open files with different syscalls and counts: find
    # the call that creates the temporary file.
    local sc n
    read -r sc n < <(temp_file_call open,openat,creat)
    [ -n "$sc" ]
    [ "$n" -ge 1 ]
    check_fault "create temporary file" "Permission denied" \
        -e trace="$sc" -e inject="$sc":error=EACCES:when="$n"
    grep -q "^$sc(.*\.environment\.nccl-init-.*O_EXCL.*(INJECTED)" "$TMP/trace"
}

@test "injected failure of the directory's fsync: the new file is in place, the warning says so" {
    need_strace
    original_environment
    run --separate-stderr strace_start "$TMP/trace" -e trace=fsync -e inject=fsync:error=EIO:when=2 \
        -- --sinks etc-environment -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    is_sink_warning "$(sink_warnings)" etc-environment "$ROOT/etc/environment" \
        "fsync directory" "Input/output error|I/O error"
    grep -Eq '^fsync\([0-9]+<[^>]*/etc>\) += -1 EIO' "$TMP/trace"
    cmp <(outside_of "$ROOT/etc/environment") <(cat "$TMP/environment.orig"; printf '\n')
    [ "$(grep -cx -- "$BEGIN" "$ROOT/etc/environment")" = 1 ]
    assert_equal "$(files_in "$ROOT/etc")" environment
}

@test "a symlink at the target is refused; the file it points to is untouched" {
    printf 'VICTIM=1\n' >"$ROOT/victim"
    cp "$ROOT/victim" "$TMP/victim.orig"
    ln -s "$ROOT/victim" "$ROOT/etc/environment"
    ln -s "$ROOT/missing" "$ROOT/etc/nccl.conf" # dangling: must not be created
    run --separate-stderr ni_start --sinks "$SINKS" -- sh -c 'touch "$1"; exit 4' sh "$TMP/started"
    assert_failure 4
    [ -e "$TMP/started" ]
    assert_equal "$(sink_warnings)" "$(printf '%s\n' \
        "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: read: refusing to write through a symlink; skipped" \
        "nccl-init: warning: sink nccl-conf: $ROOT/etc/nccl.conf: read: refusing to write through a symlink; skipped")"
    cmp "$ROOT/victim" "$TMP/victim.orig"
    [ ! -e "$ROOT/missing" ]
    [ -L "$ROOT/etc/environment" ]
    [ "$(readlink "$ROOT/etc/environment")" = "$ROOT/victim" ]
    [ -L "$ROOT/etc/nccl.conf" ]
    [ "$(readlink "$ROOT/etc/nccl.conf")" = "$ROOT/missing" ]
    assert_equal "$(files_in "$ROOT/etc" | paste -sd' ')" "environment nccl.conf"

    run --separate-stderr ni_start --strict --sinks "$SINKS" -- touch "$TMP/started2"
    assert_failure 2
    [ ! -e "$TMP/started2" ]
    cmp "$ROOT/victim" "$TMP/victim.orig"
}

@test "a symlink at the record's file is refused too" {
    mkdir "$ROOT/run/nccl-init"
    printf 'VICTIM=1\n' >"$ROOT/victim"
    cp "$ROOT/victim" "$TMP/victim.orig"
    ln -s "$ROOT/victim" "$ROOT/run/nccl-init/profile.env"
    run --separate-stderr ni_start --sinks record -- true
    assert_success
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink record: $ROOT/run/nccl-init/profile.env: check target: refusing to write through a symlink; skipped"
    cmp "$ROOT/victim" "$TMP/victim.orig"
    [ -L "$ROOT/run/nccl-init/profile.env" ]
}

@test "a FIFO at the target is refused without blocking" {
    mkfifo "$ROOT/etc/environment"
    run --separate-stderr timeout 10 "$NI" -q --root "$ROOT" --sinks etc-environment \
        --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: read: Invalid argument; skipped"
    [ -p "$ROOT/etc/environment" ]
}

@test "a damaged block (BEGIN without END, END alone, two blocks) is left alone with a warning" {
    local damaged=(
        "A=1\n$BEGIN\nNCCL_ALGO=Old\nB=2\n"
        "A=1\nNCCL_ALGO=Old\n$END\nB=2"
        "$BEGIN\nX=1\n$END\nmid\n$BEGIN\nY=1\n$END\n"
        "$BEGIN\n$BEGIN\nX=1\n$END\n"
    )
    local d
    for d in "${damaged[@]}"; do
        printf '%b' "$d" >"$ROOT/etc/environment"
        printf '%b' "$d" >"$ROOT/etc/nccl.conf"
        cp "$ROOT/etc/environment" "$TMP/orig"
        run --separate-stderr ni_start --sinks "$SINKS" -- touch "$TMP/started"
        assert_success
        [ -e "$TMP/started" ]
        assert_equal "$(sink_warnings)" "$(printf '%s\n' \
            "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: its nccl-init block is damaged (a BEGIN without an END, or two blocks); skipped" \
            "nccl-init: warning: sink nccl-conf: $ROOT/etc/nccl.conf: its nccl-init block is damaged (a BEGIN without an END, or two blocks); skipped")"
        cmp "$ROOT/etc/environment" "$TMP/orig"
        cmp "$ROOT/etc/nccl.conf" "$TMP/orig"
        run state_sinks
        assert_line --index 0 --regexp '^record (written|unchanged)$'
        assert_line --index 1 'etc-environment failed'
        assert_line --index 2 'nccl-conf failed'

        rm -f "$TMP/started"
        run --separate-stderr ni_start --strict --sinks "$SINKS" -- touch "$TMP/started"
        assert_failure 2
        [ ! -e "$TMP/started" ]
        cmp "$ROOT/etc/environment" "$TMP/orig"
    done
}

# ---- the path to a sink: links, owners, modes, hard links ---------------
# Every directory below the root (or below --root, which is opened as given)
# is opened without following a link and must be root's and writable by no
# one else (sticky excepted); the file keeps its owner and mode, and a file
# with other hard links is left alone.

# A directory's entries, recursively: type, mode, owner, size, inode and
# contents, so that any change to them shows.
tree_state() {
    find "$@" -printf '%p %y %m %U:%G %s %i\n' | sort
    find "$@" -type f -exec sha256sum {} + | sort
}

# A stdlib directory as python_find knows one: it has os.py.
fake_stdlib() {
    mkdir -p "$1"
    : >"$1/os.py"
}

@test "a symlinked parent directory is refused: a stdlib, Debian's /etc/python3.X, \$NCCL_CONF_FILE's" {
    # /usr/lib/python3.98 -> a directory elsewhere: under --root an absolute
    # link is the root's path, so that stdlib is not there (not even read)
    mkdir -p "$ROOT/usr/lib" "$TMP/out"
    fake_stdlib "$TMP/out/stdlib"
    ln -s "$TMP/out/stdlib" "$ROOT/usr/lib/python3.98"
    # Debian's layout, with /etc/python3.99 -> a directory elsewhere
    fake_stdlib "$ROOT/usr/lib/python3.99"
    ln -s /etc/python3.99/sitecustomize.py "$ROOT/usr/lib/python3.99/sitecustomize.py"
    mkdir "$TMP/out/etcpy"
    printf '# Debian\n' >"$TMP/out/etcpy/sitecustomize.py"
    ln -s "$TMP/out/etcpy" "$ROOT/etc/python3.99"
    # $NCCL_CONF_FILE is used as given, so walked from /
    mkdir "$TMP/out/conf"
    ln -s "$TMP/out/conf" "$ROOT/confdir"
    tree_state "$TMP/out" "$ROOT" >"$TMP/before"

    run --separate-stderr env NCCL_CONF_FILE="$ROOT/confdir/nccl.conf" "$NI" -q --root "$ROOT" \
        --sinks python,nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    assert_equal "$(sink_warnings | sort)" "$(printf '%s\n' \
        "nccl-init: warning: sink nccl-conf: $ROOT/confdir/nccl.conf: parent $ROOT/confdir is a symlink; skipped" \
        "nccl-init: warning: sink python: $ROOT/etc/python3.99/sitecustomize.py: parent $ROOT/etc/python3.99 is a symlink; skipped" |
        sort)"
    diff "$TMP/before" <(tree_state "$TMP/out" "$ROOT")

    rm -f "$TMP/started"
    run --separate-stderr env NCCL_CONF_FILE="$ROOT/confdir/nccl.conf" "$NI" -q --root "$ROOT" \
        --strict --sinks python,nccl-conf --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    [[ "$stderr" == *"nccl-init: error: --strict: 2 sinks could not be written; command not started" ]]
    diff "$TMP/before" <(tree_state "$TMP/out" "$ROOT")
}

@test "a symlinked /run/nccl-init is refused: nothing is made or written at its target" {
    mkdir "$TMP/elsewhere"
    ln -s "$TMP/elsewhere" "$ROOT/run/nccl-init"
    run --separate-stderr ni_start --sinks record -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink record: $ROOT/run/nccl-init/profile.env: parent $ROOT/run/nccl-init is a symlink; skipped"
    # no applied/ (1777), no profile.env, no state.json
    assert_equal "$(files_in "$TMP/elsewhere")" ""
    [ -L "$ROOT/run/nccl-init" ]

    rm -f "$TMP/started"
    run --separate-stderr ni_start --strict --sinks record -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    assert_equal "$(files_in "$TMP/elsewhere")" ""
}

@test "as root, a parent directory others may write to is refused; a sticky one is not" {
    local mode who
    for mode in 0777:"group and others" 0775:group 0757:others; do
        who=${mode#*:} mode=${mode%%:*}
        chmod "$mode" "$ROOT/etc"
        run --separate-stderr ni_start --sinks etc-environment,nccl-conf -- touch "$TMP/started"
        assert_success
        [ -e "$TMP/started" ]
        assert_equal "$(sink_warnings)" "$(printf '%s\n' \
            "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: parent $ROOT/etc is writable by $who (mode $mode); skipped" \
            "nccl-init: warning: sink nccl-conf: $ROOT/etc/nccl.conf: parent $ROOT/etc is writable by $who (mode $mode); skipped")"
        assert_equal "$(files_in "$ROOT/etc")" ""
        rm -f "$TMP/started"
        run --separate-stderr ni_start --strict --sinks etc-environment -- touch "$TMP/started"
        assert_failure 2
        [ ! -e "$TMP/started" ]
        assert_equal "$(files_in "$ROOT/etc")" ""
    done
    # Sticky, like /tmp: no one else can rename or remove what is not theirs.
    chmod 1777 "$ROOT/etc"
    run --separate-stderr ni_start --strict --sinks etc-environment,nccl-conf -- true
    assert_success
    [ -z "$(sink_warnings)" ]
    assert_equal "$(files_in "$ROOT/etc" | paste -sd' ')" "environment nccl.conf"
}

@test "as root, a parent directory owned by another user is refused: etc, /run/nccl-init, a home" {
    chown 12345:12345 "$ROOT/etc"
    mkdir -m 0755 "$ROOT/run/nccl-init"
    chown 12345:12345 "$ROOT/run/nccl-init"
    # $NCCL_CONF_FILE in a user's own directory
    mkdir -p -m 0700 "$ROOT/home/alice"
    printf 'NCCL_DEBUG=WARN\n' >"$ROOT/home/alice/nccl.conf"
    chmod 0600 "$ROOT/home/alice/nccl.conf"
    chown -R 12345:12345 "$ROOT/home/alice"
    tree_state "$ROOT" >"$TMP/before"
    run --separate-stderr env NCCL_CONF_FILE="$ROOT/home/alice/nccl.conf" "$NI" -q --root "$ROOT" \
        --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    assert_equal "$(sink_warnings)" "$(printf '%s\n' \
        "nccl-init: warning: sink record: $ROOT/run/nccl-init/profile.env: parent $ROOT/run/nccl-init is owned by uid 12345, not by root; skipped" \
        "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: parent $ROOT/etc is owned by uid 12345, not by root; skipped" \
        "nccl-init: warning: sink nccl-conf: $ROOT/home/alice/nccl.conf: parent $ROOT/home/alice is owned by uid 12345, not by root; skipped")"
    # nothing written, nothing made (no applied/ in the user's directory)
    diff "$TMP/before" <(tree_state "$ROOT")

    rm -f "$TMP/started"
    run --separate-stderr env NCCL_CONF_FILE="$ROOT/home/alice/nccl.conf" "$NI" -q --root "$ROOT" \
        --strict --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    diff "$TMP/before" <(tree_state "$ROOT")
}

@test "not as root, directories of one's own are fine; another user's are refused" {
    command -v setpriv >/dev/null || skip "no setpriv"
    local u=(setpriv --reuid 12345 --regid 12345 --clear-groups)
    chmod 0755 "$TMP" # mktemp's 0700
    mkdir -p "$TMP/u/root/etc"
    chown -R 12345:12345 "$TMP/u"
    run --separate-stderr "${u[@]}" "$NI" -q --root "$TMP/u/root" --sinks etc-environment,nccl-conf \
        --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [ -z "$(sink_warnings)" ]
    assert_equal "$(stat -c '%u:%g %a' "$TMP/u/root/etc/environment" "$TMP/u/root/etc/nccl.conf" | sort -u)" \
        "12345:12345 644"

    # another user's directory, even one we may write to
    chown 23456:23456 "$TMP/u/root/etc"
    chmod 0777 "$TMP/u/root/etc"
    rm "$TMP/u/root/etc/nccl.conf"
    run --separate-stderr "${u[@]}" "$NI" -q --root "$TMP/u/root" --sinks nccl-conf \
        --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink nccl-conf: $TMP/u/root/etc/nccl.conf: parent $TMP/u/root/etc is owned by uid 23456, not by root or uid 12345; skipped"
    [ ! -e "$TMP/u/root/etc/nccl.conf" ]
}

@test "a file keeps its owner and mode: \$NCCL_CONF_FILE at a user's 0600 file; a new file is root:root 0644" {
    printf 'NCCL_DEBUG=WARN\n' >"$ROOT/alice.conf"
    chown 12345:12346 "$ROOT/alice.conf"
    chmod 0600 "$ROOT/alice.conf"
    printf 'LANG=C\n' >"$ROOT/etc/environment"
    chmod 0600 "$ROOT/etc/environment"
    # A setgid directory would give a new file its group: not root's.
    chgrp 12346 "$ROOT/run"
    chmod 2755 "$ROOT/run"
    run --separate-stderr bash -c 'umask 077; exec "$@"' sh env NCCL_CONF_FILE="$ROOT/alice.conf" \
        "$NI" -q --root "$ROOT" --sinks "$SINKS" --profile-dir "$PROFILES" -p pcie-8gpu -- true
    assert_success
    [ -z "$(sink_warnings)" ]
    assert_equal "$(stat -c '%u:%g %a' "$ROOT/alice.conf")" "12345:12346 600"
    assert_equal "$(stat -c '%u:%g %a' "$ROOT/etc/environment")" "0:0 600"
    grep -qx NCCL_DEBUG=WARN "$ROOT/alice.conf"
    grep -qx "$BEGIN" "$ROOT/alice.conf"
    grep -qx LANG=C "$ROOT/etc/environment"
    grep -qx "$BEGIN" "$ROOT/etc/environment"
    local f
    for f in run/nccl-init/profile.env run/nccl-init/state.json; do
        assert_equal "$(stat -c '%u:%g %a' "$ROOT/$f")" "0:0 644"
    done
}

@test "a file with another hard link is refused: both names keep the same bytes, mode and inode" {
    printf 'LANG=C\nSECRET=1\n' >"$ROOT/etc/environment"
    chmod 0600 "$ROOT/etc/environment"
    ln "$ROOT/etc/environment" "$ROOT/environment.other"
    cp -p "$ROOT/etc/environment" "$TMP/orig"
    local ino
    ino=$(stat -c %i "$ROOT/etc/environment")
    run --separate-stderr ni_start --sinks etc-environment,record -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink etc-environment: $ROOT/etc/environment: it has 2 hard links; replacing it would split them; skipped"
    cmp "$ROOT/etc/environment" "$TMP/orig"
    cmp "$ROOT/environment.other" "$TMP/orig"
    assert_equal "$(stat -c '%i %h %a' "$ROOT/etc/environment" "$ROOT/environment.other" | sort -u)" "$ino 2 600"
    assert_equal "$(files_in "$ROOT/etc")" environment
    run state_sinks
    assert_line 'etc-environment failed'

    rm -f "$TMP/started"
    run --separate-stderr ni_start --strict --sinks etc-environment -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    cmp "$ROOT/etc/environment" "$TMP/orig"
    cmp "$ROOT/environment.other" "$TMP/orig"
}

@test "markers with CRLF line ends: the block is replaced, not added a second time" {
    local f old=$'LANG=C\r\n# BEGIN nccl-init\r\nNCCL_ALGO=Stale\r\nNCCL_OLD=1\r\n# END nccl-init\r\nTZ=UTC\r\n'
    for f in environment nccl.conf; do printf '%s' "$old" >"$ROOT/etc/$f"; done
    run --separate-stderr ni_start --sinks "$SINKS" -- true
    assert_success
    [ -z "$(sink_warnings)" ]
    # The markers keep the file's CRLF; the lines between them are the
    # block's own, '\n' alone (a CR would become part of a value).
    local fmt body
    for f in environment nccl.conf; do
        fmt=$([ "$f" = environment ] && echo etc-environment || echo nccl-conf)
        body=$(ni_render -p pcie-8gpu --format "$fmt" 2>/dev/null | sed '1d;$d')
        cmp "$ROOT/etc/$f" <(printf 'LANG=C\r\n%s\r\n%s\n%s\r\nTZ=UTC\r\n' "$BEGIN" "$body" "$END")
        [ "$(grep -c "^$BEGIN" "$ROOT/etc/$f")" = 1 ]
        [ "$(grep -c "^$END" "$ROOT/etc/$f")" = 1 ]
    done
    # and a restart leaves it alone
    run --separate-stderr ni_start --sinks "$SINKS" -- true
    assert_success
    run state_sinks # the record is new at every start: it names its writer
    assert_output "$(printf '%s\n' 'record written' 'etc-environment unchanged' 'nccl-conf unchanged')"
}

# --- a restart: every file read and compared, an unchanged one left alone ---

# Two starts: the first writes the files, the second finds them current.
restarted() {
    ni_start --sinks "$SINKS" -- true
    ni_start --sinks "$SINKS" -- true
}

@test "restart: as PID 1 (the child is pid 2 again), a current state.json is left alone; a changed one is put right" {
    unshare --pid --fork true 2>/dev/null || skip "no PID namespaces here"
    restarted
    # Each start's record names its writer, pid 1 with its start time in
    # clock ticks (10 ms): 20 ms apart, every start writes a record of its
    # own, and state.json says "written" for it each time.
    pid1_start() {
        sleep 0.02
        unshare --pid --fork "$NI" -q --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu --sinks "$SINKS" -- true
    }
    pid1_start # the record is written for pid 2
    grep -qE '"child_pid": 2,$' "$ROOT/run/nccl-init/state.json"
    cp "$ROOT/run/nccl-init/state.json" "$TMP/state.want"
    local ino
    ino=$(stat -c %i "$ROOT/run/nccl-init/state.json")
    # The same start again: found current, not written (same inode).
    pid1_start
    cmp "$ROOT/run/nccl-init/state.json" "$TMP/state.want"
    [ "$(stat -c %i "$ROOT/run/nccl-init/state.json")" = "$ino" ]
    # A record that differs (here one byte more) is written again, whole.
    echo >>"$ROOT/run/nccl-init/state.json"
    pid1_start
    cmp "$ROOT/run/nccl-init/state.json" "$TMP/state.want"
    [ "$(stat -c %i "$ROOT/run/nccl-init/state.json")" != "$ino" ]
}

@test "restart: state.json follows what it is made of: a profile line that moved, another child pid" {
    unshare --pid --fork true 2>/dev/null || skip "no PID namespaces here"
    cp "$PROFILES/pcie-8gpu.env" "$TMP/moving.env"
    pid1_start() { unshare --pid --fork "$NI" -q --root "$ROOT" --profile-dir "$TMP" -p moving --sinks "$SINKS" -- true; }
    pid1_start
    pid1_start
    local line
    line=$(grep -o '"key": "NCCL_PROTO".*"line": [0-9]*' "$ROOT/run/nccl-init/state.json" | grep -o '[0-9]*$')
    # A comment above NCCL_PROTO moves its line: the value and the blocks
    # stay, state.json's "line" does not.
    sed -i '1i # one more line' "$TMP/moving.env"
    pid1_start
    grep -q "\"key\": \"NCCL_PROTO\".*\"line\": $((line + 1))," "$ROOT/run/nccl-init/state.json"
    # Outside a PID namespace the child has another pid: written again.
    "$NI" -q --root "$ROOT" --profile-dir "$TMP" -p moving --sinks "$SINKS" -- true
    ! grep -qE '"child_pid": 2,$' "$ROOT/run/nccl-init/state.json"
    pid1_start
    grep -qE '"child_pid": 2,$' "$ROOT/run/nccl-init/state.json"
}

@test "restart: a file changed in place, same size and mtime set back, is read and put right" {
    restarted
    cp -p "$ROOT/etc/environment" "$TMP/environment.want" # its mtime too
    # One byte of the block changed in place (the same inode), the size
    # kept, the mtime set back: only the content tells.
    local ino
    ino=$(stat -c %i "$ROOT/etc/environment")
    python3 - "$ROOT/etc/environment" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    data = f.read()
    at = data.index(b"NCCL_ALGO=Ring") + len("NCCL_ALGO=R")
    f.seek(at)
    f.write(b"o")
PY
    touch -r "$TMP/environment.want" "$ROOT/etc/environment"
    [ "$(stat -c %i "$ROOT/etc/environment")" = "$ino" ]
    [ "$(stat -c %s "$ROOT/etc/environment")" = "$(stat -c %s "$TMP/environment.want")" ]
    [ "$(stat -c %Y.%y "$ROOT/etc/environment")" = "$(stat -c %Y.%y "$TMP/environment.want")" ]
    grep -qx NCCL_ALGO=Rong "$ROOT/etc/environment"
    run --separate-stderr "$NI" -v --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu \
        --sinks "$SINKS" -- true
    assert_success
    cmp "$ROOT/etc/environment" "$TMP/environment.want"
    run state_sinks # the record is new at every start: it names its writer
    assert_output "$(printf '%s\n' 'record written' 'etc-environment written' 'nccl-conf unchanged')"
}

@test "restart: another profile value, or another set of sinks, writes what changed" {
    restarted
    mkdir "$TMP/profiles"
    sed 's/^NCCL_BUFFSIZE=.*/NCCL_BUFFSIZE=8388608/' "$PROFILES/pcie-8gpu.env" >"$TMP/profiles/pcie-8gpu.env"
    run --separate-stderr "$NI" -v --root "$ROOT" --profile-dir "$TMP/profiles" -p pcie-8gpu \
        --sinks "$SINKS" -- true
    assert_success
    grep -qx NCCL_BUFFSIZE=8388608 "$ROOT/etc/environment"
    grep -qx 'NCCL_BUFFSIZE=8388608' "$ROOT/etc/nccl.conf"
    run state_sinks
    assert_output "$(printf '%s\n' 'record written' 'etc-environment written' 'nccl-conf written')"
}

# ---- the record's enforce line and bounds (lib/paths.h) ----

@test "the record has NCCL_INIT_ENFORCE=1 with --enforce only; state.json says which" {
    run --separate-stderr ni_start --sinks record -- true
    assert_success
    ! grep -q '^NCCL_INIT_ENFORCE=' "$ROOT/run/nccl-init/profile.env"
    grep -qx '  "enforce": false,' "$ROOT/run/nccl-init/state.json"
    # the record as the --enforce run has it (it takes it back at its end)
    run --separate-stderr ni_start --enforce --sinks record -- \
        sh -c 'cp "$1" "$2"; printenv NCCL_INIT_ENFORCE' sh "$ROOT/run/nccl-init/profile.env" \
        "$TMP/enforced.env"
    assert_failure 1 # not in the child's environment
    [ "$(grep -c '^NCCL_INIT_ENFORCE=' "$TMP/enforced.env")" = 1 ]
    grep -qx 'NCCL_INIT_ENFORCE=1' "$TMP/enforced.env"
    grep -qx '  "enforce": true,' "$ROOT/run/nccl-init/state.json"
    # in key order among the rest, and in no other sink
    diff <(LC_ALL=C sort "$TMP/enforced.env") "$TMP/enforced.env"
    run --separate-stderr ni_start --enforce --sinks "$SINKS" -- true
    ! grep -q NCCL_INIT_ENFORCE "$ROOT/etc/environment" "$ROOT/etc/nccl.conf"
}

@test "a record line over RECORD_LINE_MAX is left out of the record with a warning; the child still gets it" {
    printf 'MY_LONG=short\nNCCL_PROTO=LL\n' >"$TMP/p.env"
    long=$(head -c 5000 /dev/zero | tr '\0' v)
    run --separate-stderr env MY_LONG="$long" "$NI" -q --root "$ROOT" -p "$TMP/p.env" \
        --sinks record -- printenv MY_LONG
    assert_success
    assert_output "$long"
    assert_equal "$(sink_warnings)" \
        "nccl-init: warning: sink record: MY_LONG left out: its line would be longer than the 4096 bytes the record's readers take"
    ! grep -q '^MY_LONG=' "$ROOT/run/nccl-init/profile.env"
    grep -qx NCCL_PROTO=LL "$ROOT/run/nccl-init/profile.env"
}

@test "a record over its readers' bounds is not written, one warning; --strict writes nothing and starts nothing" {
    for i in $(seq 1 520); do printf 'MY_K%04d=1\n' "$i"; done >"$TMP/many.env"
    # --strict: nothing written at all, nothing started
    run --separate-stderr "$NI" -q --strict --root "$ROOT" -p "$TMP/many.env" --sinks "$SINKS" \
        -- touch "$TMP/started"
    assert_failure 2
    [ ! -e "$TMP/started" ]
    # 520 keys, the digest, the profile and the writer's two lines; the
    # bytes depend on the digits of the writer's pid and start time
    [[ "$(sink_warnings)" =~ ^"nccl-init: warning: sink record: $ROOT/run/nccl-init/profile.env: 524 lines, 58"[0-9][0-9]" bytes: more than its readers take (512 lines, 65536 bytes); skipped"$ ]]
    [[ "$stderr" == *"nccl-init: error: --strict: 1 sink could not be written; command not started" ]]
    assert_equal "$(files_in "$ROOT/etc")" ""
    assert_equal "$(files_in "$ROOT/run")" ""

    # without it: the other sinks are written, the command starts, and the
    # previous start's record goes, so that no reader takes it for this one's
    run --separate-stderr ni_start --sinks "$SINKS" -- true
    assert_success
    [ -f "$ROOT/run/nccl-init/profile.env" ]
    run --separate-stderr "$NI" --root "$ROOT" -p "$TMP/many.env" --sinks "$SINKS" \
        -- touch "$TMP/started"
    assert_success
    [ -e "$TMP/started" ]
    [ "$(sink_warnings | wc -l)" = 1 ]
    [[ "$(sink_warnings)" == *"sink record: $ROOT/run/nccl-init/profile.env: 524 lines, 58"[0-9][0-9]" bytes: more than its readers take (512 lines, 65536 bytes); skipped" ]]
    [[ "$stderr" == *"sink record: $ROOT/run/nccl-init/profile.env deleted"* ]]
    [[ "$stderr" == *"sink record: $ROOT/run/nccl-init/state.json deleted"* ]]
    [ ! -e "$ROOT/run/nccl-init/profile.env" ]
    [ ! -e "$ROOT/run/nccl-init/state.json" ]
    grep -qx MY_K0520=1 "$ROOT/etc/environment"
}

# ---- the env plugin the nccl-conf block names (sinks/env_plugin.c) ----

# A copy of the binary at $TMP/prefix/bin, and a plugin file beside it where
# make install puts it (any regular file: only its path and its owner count).
make_prefix() {
    mkdir -p "$TMP/prefix/bin" "$TMP/prefix/lib/nccl-init"
    cp "$NI" "$TMP/prefix/bin/nccl-init"
    PLUGIN=$TMP/prefix/lib/nccl-init/libnccl-env.so
    echo plugin >"$PLUGIN"
    chmod 0644 "$PLUGIN"
    PNI=$TMP/prefix/bin/nccl-init
}

# A start of the copy without --root: nccl-conf into $NCCL_CONF_FILE, the
# record under the sandbox's /run.
# P_ENV: more of its environment.
P_ENV=()
p_start() {
    env NCCL_CONF_FILE="$TMP/nccl.conf" "${P_ENV[@]}" "$PNI" -q --profile-dir "$PROFILES" -p pcie-8gpu \
        --sinks nccl-conf,record "$@"
}

plugin_warnings() { grep 'env plugin' <<<"$stderr" || true; }

# "sink outcome path note" of the env-plugin entry of state.json.
plugin_state() {
    python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["sinks"]:
    if s["sink"] == "env-plugin":
        print(s["outcome"], s["path"], s.get("note", ""))' "${1:-/run/nccl-init/state.json}"
}

@test "the nccl-conf block names the plugin beside the binary; render prints the same block; remove takes it out" {
    make_prefix
    run --separate-stderr p_start -- true
    assert_success
    assert_equal "$(plugin_warnings)" ""
    [ "$(grep -c '^NCCL_ENV_PLUGIN=' "$TMP/nccl.conf")" = 1 ]
    grep -qx "NCCL_ENV_PLUGIN=$PLUGIN" "$TMP/nccl.conf"
    diff <(block_of "$TMP/nccl.conf") \
        <(NCCL_CONF_FILE="$TMP/nccl.conf" "$PNI" render --profile-dir "$PROFILES" -p pcie-8gpu \
            --format nccl-conf 2>/dev/null)
    run plugin_state
    assert_output "named $PLUGIN NCCL_ENV_PLUGIN=$PLUGIN"
    # only the block: not the child's environment, nor the record
    run --separate-stderr p_start -- printenv NCCL_ENV_PLUGIN
    assert_failure 1
    ! grep -q NCCL_ENV_PLUGIN /run/nccl-init/profile.env
    # a second start leaves the file as it is
    run --separate-stderr p_start -- true
    run plugin_state
    assert_output "named $PLUGIN NCCL_ENV_PLUGIN=$PLUGIN"
    grep -q '"sink": "nccl-conf", "path": ".*", "outcome": "unchanged"' /run/nccl-init/state.json
    run --separate-stderr env NCCL_CONF_FILE="$TMP/nccl.conf" "$PNI" remove
    assert_success
    [ ! -e "$TMP/nccl.conf" ]
    rm -rf /run/nccl-init
}

@test "under --root the plugin is named as seen inside the root, and only when it lies there" {
    mkdir -p "$ROOT/usr/bin" "$ROOT/usr/lib/nccl-init"
    cp "$NI" "$ROOT/usr/bin/nccl-init"
    echo plugin >"$ROOT/usr/lib/nccl-init/libnccl-env.so"
    run --separate-stderr "$ROOT/usr/bin/nccl-init" -q --root "$ROOT" --profile-dir "$PROFILES" \
        -p pcie-8gpu --sinks nccl-conf,record -- true
    assert_success
    grep -qx "NCCL_ENV_PLUGIN=/usr/lib/nccl-init/libnccl-env.so" "$ROOT/etc/nccl.conf"
    diff <(block_of "$ROOT/etc/nccl.conf") \
        <("$ROOT/usr/bin/nccl-init" render --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu \
            --format nccl-conf 2>/dev/null)
    run plugin_state "$ROOT/run/nccl-init/state.json"
    assert_output "named /usr/lib/nccl-init/libnccl-env.so NCCL_ENV_PLUGIN=/usr/lib/nccl-init/libnccl-env.so"
    # a binary outside the root names nothing inside it: no line, a debug line only
    make_prefix
    run --separate-stderr "$PNI" -vv --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu \
        --sinks nccl-conf,record -- true
    assert_success
    ! grep -q NCCL_ENV_PLUGIN "$ROOT/etc/nccl.conf"
    [[ "$stderr" == *"nccl-init: env plugin: $PLUGIN is outside --root $ROOT; none named"* ]]
    [ "$(grep -c 'warning' <<<"$stderr")" = 0 ]
    run plugin_state "$ROOT/run/nccl-init/state.json"
    assert_output ""
}

@test "a plugin that is group-writable, not root's, or reached through a link is not named, one warning" {
    make_prefix
    chmod 0664 "$PLUGIN"
    run --separate-stderr p_start -- true
    assert_success
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: env plugin $PLUGIN: it is writable by group (mode 0664); not named"
    ! grep -q NCCL_ENV_PLUGIN "$TMP/nccl.conf"
    run plugin_state
    assert_output "left out $PLUGIN it is writable by group (mode 0664)"
    chmod 0644 "$PLUGIN"
    chown 1234 "$PLUGIN"
    run --separate-stderr p_start -- true
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: env plugin $PLUGIN: it is owned by uid 1234, not by root; not named"
    chown 0 "$PLUGIN"
    # a link in its path: lib/ is a link to a real directory elsewhere
    mv "$TMP/prefix/lib" "$TMP/lib.real"
    ln -s "$TMP/lib.real" "$TMP/prefix/lib"
    run --separate-stderr p_start -- true
    assert_success
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: env plugin $PLUGIN: parent $TMP/prefix/lib is a symlink; not named"
    ! grep -q NCCL_ENV_PLUGIN "$TMP/nccl.conf"
    # the plugin itself a link
    rm "$TMP/prefix/lib"
    mv "$TMP/lib.real" "$TMP/prefix/lib"
    mv "$PLUGIN" "$TMP/real.so"
    ln -s "$TMP/real.so" "$PLUGIN"
    run --separate-stderr p_start -- true
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: env plugin $PLUGIN: it is a symlink; not named"
    rm -rf /run/nccl-init
}

# The one warning when another env plugin is configured.
LEFT_ALONE="left alone; NCCL takes its parameters through that plugin, and the profile reaches NCCL only through the environment, the Python hook and nccl.conf (--enforce does not hold against a process's own value)"

@test "another env plugin in the environment, or none, is left alone: one warning, no line of ours" {
    make_prefix
    P_ENV=(NCCL_ENV_PLUGIN=/opt/other/libnccl-env.so)
    run --separate-stderr p_start -- printenv NCCL_ENV_PLUGIN
    assert_success
    assert_output /opt/other/libnccl-env.so
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (NCCL_ENV_PLUGIN=/opt/other/libnccl-env.so in the environment): $LEFT_ALONE"
    ! grep -q NCCL_ENV_PLUGIN "$TMP/nccl.conf"
    run plugin_state
    assert_output "left out $PLUGIN another env plugin: NCCL_ENV_PLUGIN=/opt/other/libnccl-env.so in the environment"
    # render says the same, prints the block without the line
    run --separate-stderr env NCCL_ENV_PLUGIN=/opt/other/libnccl-env.so NCCL_CONF_FILE="$TMP/nccl.conf" \
        "$PNI" render --profile-dir "$PROFILES" -p pcie-8gpu --format nccl-conf
    refute_output --partial NCCL_ENV_PLUGIN
    [ "$(plugin_warnings | wc -l)" = 1 ]
    # none: the operator turned plugins off
    P_ENV=(NCCL_ENV_PLUGIN=NONE)
    run --separate-stderr p_start -- true
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: env plugins turned off (NCCL_ENV_PLUGIN=NONE in the environment): left alone; NCCL then loads no env plugin, and the profile reaches NCCL only through the environment, the Python hook and nccl.conf (--enforce does not hold against a process's own value)"
    ! grep -q NCCL_ENV_PLUGIN "$TMP/nccl.conf"
    # exactly ours is ours
    P_ENV=(NCCL_ENV_PLUGIN="$PLUGIN")
    run --separate-stderr p_start -- true
    assert_equal "$(plugin_warnings)" ""
    grep -qx "NCCL_ENV_PLUGIN=$PLUGIN" "$TMP/nccl.conf"
    # warned whether or not ours is installed
    rm "$PLUGIN"
    P_ENV=(NCCL_ENV_PLUGIN=other)
    run --separate-stderr p_start -- true
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (NCCL_ENV_PLUGIN=other in the environment): $LEFT_ALONE"
    rm -rf /run/nccl-init
}

@test "a NCCL_ENV_PLUGIN line outside the block, in the sink's file or in etc/nccl.conf after \$NCCL_CONF_FILE, is left alone" {
    mkdir -p "$ROOT/usr/bin" "$ROOT/usr/lib/nccl-init"
    cp "$NI" "$ROOT/usr/bin/nccl-init"
    echo plugin >"$ROOT/usr/lib/nccl-init/libnccl-env.so"
    rni() { "$ROOT/usr/bin/nccl-init" -q --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu \
        --sinks nccl-conf "$@" -- true; }
    printf '# mine\nNCCL_ENV_PLUGIN=theirs\n' >"$ROOT/etc/nccl.conf"
    run --separate-stderr rni
    assert_success
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (NCCL_ENV_PLUGIN=theirs in $ROOT/etc/nccl.conf): $LEFT_ALONE"
    [ "$(grep -c '^NCCL_ENV_PLUGIN=' "$ROOT/etc/nccl.conf")" = 1 ]
    # the line gone, the block names ours; ours inside the block is no other
    printf '# mine\n' >"$ROOT/etc/nccl.conf"
    run --separate-stderr rni
    assert_equal "$(plugin_warnings)" ""
    grep -qx NCCL_ENV_PLUGIN=/usr/lib/nccl-init/libnccl-env.so "$ROOT/etc/nccl.conf"
    run --separate-stderr rni
    assert_equal "$(plugin_warnings)" ""
    # $NCCL_CONF_FILE is the sink's file: etc/nccl.conf, read after it, counts too
    printf 'NCCL_ENV_PLUGIN=theirs\n' >"$ROOT/etc/nccl.conf"
    run --separate-stderr env NCCL_CONF_FILE="$ROOT/custom.conf" "$ROOT/usr/bin/nccl-init" -q \
        --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu --sinks nccl-conf -- true
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (NCCL_ENV_PLUGIN=theirs in $ROOT/etc/nccl.conf): $LEFT_ALONE"
    ! grep -q NCCL_ENV_PLUGIN "$ROOT/custom.conf"
}

@test "another libnccl-env.so on the loader's path is left alone: LD_LIBRARY_PATH, the system directories, ld.so.cache" {
    make_prefix
    mkdir "$TMP/ld"
    # ours linked onto the path is still ours
    ln -s "$PLUGIN" "$TMP/ld/libnccl-env.so"
    P_ENV=(LD_LIBRARY_PATH="/nonexistent:$TMP/ld")
    run --separate-stderr p_start -- true
    assert_equal "$(plugin_warnings)" ""
    grep -qx "NCCL_ENV_PLUGIN=$PLUGIN" "$TMP/nccl.conf"
    rm "$TMP/ld/libnccl-env.so"
    echo other >"$TMP/ld/libnccl-env.so"
    P_ENV=(LD_LIBRARY_PATH="/nonexistent:$TMP/ld")
    run --separate-stderr p_start -- true
    assert_success
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (another libnccl-env.so at $TMP/ld/libnccl-env.so (LD_LIBRARY_PATH)): $LEFT_ALONE"
    ! grep -q NCCL_ENV_PLUGIN "$TMP/nccl.conf"
    rm -rf /run/nccl-init

    # under --root: the root's system directory, then the root's ld.so.cache
    mkdir -p "$ROOT/usr/bin" "$ROOT/usr/lib/nccl-init"
    cp "$NI" "$ROOT/usr/bin/nccl-init"
    echo plugin >"$ROOT/usr/lib/nccl-init/libnccl-env.so"
    triplet=$(gcc -dumpmachine)
    mkdir -p "$ROOT/usr/lib/$triplet"
    echo other >"$ROOT/usr/lib/$triplet/libnccl-env.so"
    rni() { "$ROOT/usr/bin/nccl-init" -q --root "$ROOT" --profile-dir "$PROFILES" -p pcie-8gpu \
        --sinks nccl-conf -- true; }
    run --separate-stderr rni
    assert_success
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (another libnccl-env.so at $ROOT/usr/lib/$triplet/libnccl-env.so (a system library directory)): $LEFT_ALONE"
    ! grep -q NCCL_ENV_PLUGIN "$ROOT/etc/nccl.conf"
    rm "$ROOT/usr/lib/$triplet/libnccl-env.so"
    # a library ldconfig indexed (an ELF whose SONAME is libnccl-env.so)
    mkdir -p "$ROOT/opt/other/lib"
    echo /opt/other/lib >"$ROOT/etc/ld.so.conf"
    echo 'int f(void) { return 0; }' >"$TMP/f.c"
    gcc -shared -fPIC -Wl,-soname,libnccl-env.so -o "$ROOT/opt/other/lib/libnccl-env.so" "$TMP/f.c"
    ldconfig -r "$ROOT"
    run --separate-stderr rni
    assert_equal "$(plugin_warnings)" \
        "nccl-init: warning: sink nccl-conf: another env plugin (another libnccl-env.so at $ROOT/opt/other/lib/libnccl-env.so (ld.so.cache)): $LEFT_ALONE"
    # ldconfig's cache gone: ours again
    rm "$ROOT/etc/ld.so.cache"
    run --separate-stderr rni
    assert_equal "$(plugin_warnings)" ""
    grep -qx NCCL_ENV_PLUGIN=/usr/lib/nccl-init/libnccl-env.so "$ROOT/etc/nccl.conf"
}
