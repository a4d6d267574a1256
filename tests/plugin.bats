#!/usr/bin/env bats
# The NCCL env plugin (plugin/, build/libnccl-env.so), as make install puts
# it, under a real libnccl.so.2: each probe (helpers/nccl-env-probe.py)
# runs NCCL's first init (ncclGetUniqueId, no GPU needed) with NCCL_DEBUG=INFO
# and NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP, so NCCL says in its own words
# which plugin it loaded and what it took; the plugin's own line says what
# it made of the record. The record is /run/nccl-init/profile.env (copy-on-
# write in the sandbox), written by the binary under test.

load helpers/common
load helpers/prefix

LIBNCCL=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
ENVPROBE=$BATS_TEST_DIRNAME/helpers/nccl-env-probe.py
# A C server's side of the plugin (helpers/plugin-harness.c; make test builds it).
HARNESS=$REPO/build/test/plugin-harness
RECORD=/run/nccl-init/profile.env
# What NCCL's debug lines start with: "HOST:PID:TID [DEV] NCCL INFO".
INFO='NCCL INFO'

setup_file() {
    install_scratch_prefix
}

setup() {
    [ "$(id -u)" = 0 ] || skip "writes /run/nccl-init (copy-on-write in the sandbox)"
    [ -f "$LIBNCCL" ] || skip "no $LIBNCCL"
    unset_nccl_env
    export LC_ALL=C
    TMP=$(mktemp -d)
    PIDS=()
    rm -rf /run/nccl-init /etc/nccl.conf
}

teardown() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "${TMP:-/nonexistent}" /run/nccl-init /run/nccl-init.real /etc/nccl.conf
    remove_python_hooks
}

# The record of the lo profile, as nccl-init writes it; $@: more options.
# Its writer stays, until teardown: the readers take a record only while
# the nccl-init that wrote it runs (doc/sinks.md, "The writer rule").
# WRITER: its pid.
write_record() {
    rm -f "$RECORD"
    "$NI" -q --profile-dir "$PDIR" --sinks record -p lo "$@" -- sleep 1000 &
    WRITER=$!
    PIDS+=("$WRITER")
    local _
    for _ in $(seq 200); do
        grep -qx "NCCL_INIT_PID=$WRITER" "$RECORD" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# Stops the writer of write_record, which takes back an enforced record.
stop_writer() {
    kill -TERM "$WRITER"
    wait "$WRITER" || true
}

# probe [VAR=VALUE...] [MODE ARGS...]: the probe in an empty environment
# with NCCL's debug output on and NCCL_ENV_PLUGIN naming the installed
# plugin, plus the VAR=VALUEs (a bare NCCL_ENV_PLUGIN= or NCCL_DEBUG= takes
# that one out).
# timeout: a probe that hangs fails instead.
probe() {
    local -a vars=(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP)
    local plugin="NCCL_ENV_PLUGIN=$SO"
    while [[ ${1:-} == *=* ]]; do
        case $1 in
            NCCL_ENV_PLUGIN=) plugin= ;;
            NCCL_ENV_PLUGIN=*) plugin=$1 ;;
            NCCL_DEBUG=) vars=("${vars[@]:1}") ;;
            *) vars+=("$1") ;;
        esac
        shift
    done
    [ -z "$plugin" ] || vars+=("$plugin")
    run timeout 30 env -i "${vars[@]}" /usr/bin/python3 -I "$ENVPROBE" "$@" "$LIBNCCL"
    echo "$output"
}

# What a probe shows when NCCL ran with the record's values through the
# plugin.
assert_served() {
    assert_success
    assert_line 'uniqueid: ok'
    assert_output --partial "$INFO ENV/Plugin: Using nccl-init (v1)"
    assert_output --partial "$INFO Successfully loaded external env plugin $SO"
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to lo"
    assert_output --regexp "$INFO Bootstrap: Using lo:"
}

# What a probe shows when the plugin refused the record: NCCL ran, with its
# own defaults, and the plugin's one line says why ($1, its end).
assert_refused() {
    assert_success
    assert_line 'uniqueid: ok'
    assert_output --partial "$INFO ENV/Plugin: Using nccl-init (v1)"
    refute_output --partial 'NCCL_SOCKET_IFNAME set by environment'
    [ "$(grep -c 'nccl-init:' <<<"$output")" = 1 ]
    assert_line --regexp "^[^ ]+:[0-9]+:[0-9]+ NCCL WARN nccl-init: record not used: $1; NCCL's own environment only\$"
}

@test "the plugin's ELF: NEEDED libc.so.6 only, SONAME libnccl-env.so, RELRO and BIND_NOW, two symbols exported, nothing above GLIBC_2.28" {
    run readelf -d "$SO"
    assert_success
    [ "$(grep '(NEEDED)' <<<"$output" | sed 's/.*\[\(.*\)\]/\1/')" = libc.so.6 ]
    assert_line --regexp '\(SONAME\) +Library soname: \[libnccl-env\.so\]'
    assert_output --regexp '\(FLAGS\) +BIND_NOW'
    # -z nodelete: NCCL's atexit dlclose leaves it mapped (issue 34, finding 5)
    assert_output --regexp '\(FLAGS_1\) +Flags: .*\bNODELETE\b'
    readelf -lW "$SO" | grep -q GNU_RELRO
    # Defined dynamic symbols: the two plugin structs, nothing else.
    run bash -c "objdump -T '$SO' | awk '\$4 != \"*UND*\" && \$NF ~ /^[A-Za-z_]/ && / g /' | awk '{ print \$NF }' | sort"
    assert_output $'ncclEnvPlugin_v1\nncclEnvPlugin_v2'
    # Every glibc version a symbol needs, the newest 2.28 (statx), for the
    # servers built on RHEL 8's glibc.
    local newest
    newest=$(objdump -T "$SO" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)
    echo "newest: GLIBC_$newest"
    [ "$(printf '%s\n' "$newest" 2.28 | sort -V | tail -n1)" = 2.28 ]
    run objdump -T "$SO"
    refute_output --regexp '\b(fstat|fstatat|fstat64|stat|lstat)(64)?\b'
}

@test "an env -i process gets the record's NCCL_SOCKET_IFNAME=lo through the plugin, and bootstraps on lo" {
    write_record
    probe
    assert_served
    assert_line --regexp "^[^ ]+:[0-9]+:[0-9]+ $INFO nccl-init: 2 values from $RECORD \(profile lo, digest [0-9a-f]{12}\), not enforced\$"
    # The digest is the record's.
    local d
    d=$(sed -n 's/^NCCL_INIT_DIGEST=//p' "$RECORD")
    assert_output --partial "digest ${d:0:12})"
}

@test "a multiprocessing spawn worker whose parent cleared every NCCL_* gets the record's values" {
    write_record
    # Nothing NCCL_* in the worker's environment: NCCL finds the plugin and
    # its debug level in /etc/nccl.conf, as the nccl-conf sink would put
    # them there, and the profile's values only in the record.
    printf 'NCCL_DEBUG=INFO\nNCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP\nNCCL_ENV_PLUGIN=%s\n' "$SO" >/etc/nccl.conf
    probe NCCL_SOCKET_IFNAME=bogus0 spawn
    assert_served
    refute_output --partial bogus0
}

@test "the plugin found by its default name (NCCL_ENV_PLUGIN unset): dlopen(libnccl-env.so) through the loader's path" {
    write_record
    probe NCCL_ENV_PLUGIN= LD_LIBRARY_PATH="${SO%/*}"
    assert_success
    assert_output --partial "$INFO ENV/Plugin: Using nccl-init (v1)"
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to lo"
    assert_output --partial "$INFO Bootstrap: Using lo:"
}

@test "the process's own value wins over the record's; NCCL_INIT_* lines are never served" {
    write_record
    probe NCCL_SOCKET_IFNAME=bogus0
    # As without nccl-init: NCCL takes bogus0, finds no such interface.
    assert_failure 1
    assert_line --regexp '^uniqueid: failed [0-9]+$'
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to bogus0"
    assert_output --partial 'NCCL WARN Bootstrap : no socket interface found'
    assert_output --partial 'not enforced'
    # getEnv itself, from 8 threads at once: the record's value, the same
    # every time, and nothing for the record's own lines.
    probe threads "$SO" NCCL_BUFFSIZE
    assert_success
    assert_line 'threads: 8388608'
    probe threads "$SO" NCCL_INIT_DIGEST
    assert_success
    assert_line 'threads: NULL'
    probe NCCL_INIT_PROFILE=mine threads "$SO" NCCL_INIT_PROFILE
    assert_line 'threads: mine'
    probe threads "$SO" NCCL_NOT_IN_THE_RECORD
    assert_line 'threads: NULL'
}

@test "enforce: with NCCL_INIT_ENFORCE=1 in the record, a process's own NCCL_SOCKET_IFNAME=bogus0 still bootstraps on lo" {
    write_record
    # The record as nccl-init --enforce writes it: its lines sorted, the
    # enforce line among them.
    { cat "$RECORD"; echo NCCL_INIT_ENFORCE=1; } | sort >"$TMP/r"
    cat "$TMP/r" >"$RECORD"
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_served
    assert_output --partial ', enforced'
    refute_output --partial bogus0
}

# needs the sinkside branch (the record sink writes NCCL_INIT_ENFORCE=1 under --enforce)
@test "enforce: a record written by nccl-init --enforce beats the process's own value; without --enforce it does not" {
    write_record --enforce
    run grep -x 'NCCL_INIT_ENFORCE=1' "$RECORD"
    assert_success
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_served
    assert_output --partial ', enforced'
    write_record
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to bogus0"
    assert_output --partial 'not enforced'
}

@test "--enforce ends with its run: at its end (not a container's PID 1) the record and nccl.conf's NCCL_ENV_PLUGIN line are taken back; a later process's own value wins" {
    run --separate-stderr "$P/bin/nccl-init" --profile-dir "$PDIR" --enforce -p lo --sinks record,nccl-conf -- \
        sh -c "grep -c '^NCCL_INIT_ENFORCE=1\$' $RECORD; grep -c '^NCCL_ENV_PLUGIN=$SO\$' /etc/nccl.conf"
    echo "$stderr"
    assert_success
    assert_output $'1\n1'
    [[ "$stderr" == *"sink record: $RECORD: taken back: the --enforce run has ended"* ]]
    [[ "$stderr" == *"sink nccl-conf: /etc/nccl.conf: NCCL_ENV_PLUGIN line taken back: the --enforce run has ended"* ]]
    [ ! -e "$RECORD" ]
    cat /etc/nccl.conf
    run grep -c '^NCCL_ENV_PLUGIN=' /etc/nccl.conf
    assert_output 0
    # the block's values stay, as after any run: defaults a process's own beats
    grep -qx 'NCCL_SOCKET_IFNAME=lo' /etc/nccl.conf
    # nccl.conf no longer names the plugin; named anyway, it has no record
    probe NCCL_ENV_PLUGIN= NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to bogus0"
    refute_output --partial "NCCL_ENV_PLUGIN set by environment to $SO"
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial "nccl-init: no record (no $RECORD)"
}

@test "a killed --enforce run leaves its record, which the plugin refuses: its writer no longer runs" {
    write_record --enforce
    local child
    child=$(pgrep -P "$WRITER" sleep)
    kill -KILL "$WRITER"
    wait "$WRITER" || true
    kill -KILL "$child"
    grep -qx NCCL_INIT_ENFORCE=1 "$RECORD"
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to bogus0"
    assert_line --regexp "^[^ ]+:[0-9]+:[0-9]+ $INFO nccl-init: no record \($RECORD: written by nccl-init pid $WRITER, which is no longer running \(a run that has ended, or an older record put back\)\): NCCL's own environment only\$"
    # a pid taken by another process since: its start time differs
    sed -i "s/^NCCL_INIT_PID=.*/NCCL_INIT_PID=$$/" "$RECORD"
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial "written by nccl-init pid $$, which is no longer running"
}

@test "roll-back: in a 0777 record directory another uid puts an earlier start's enforced record back; the plugin and verify refuse it" {
    local nobody=(setpriv --reuid nobody --regid nogroup --clear-groups)
    write_record --enforce
    local first=$WRITER
    chmod 0777 /run/nccl-init
    "${nobody[@]}" mv "$RECORD" /run/nccl-init/kept.env
    stop_writer
    # the next start, not enforced, writes its own record
    write_record
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial 'not enforced'
    # and the other uid renames the earlier one over it
    "${nobody[@]}" mv /run/nccl-init/kept.env "$RECORD"
    grep -qx NCCL_INIT_ENFORCE=1 "$RECORD"
    probe NCCL_SOCKET_IFNAME=bogus0
    assert_failure 1
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to bogus0"
    assert_output --partial "nccl-init: no record ($RECORD: written by nccl-init pid $first, which is no longer running"
    refute_output --partial 'Bootstrap: Using lo'
    run --separate-stderr "$NI" verify
    assert_failure 2
    [[ "$stderr" == *"the resolved set in $RECORD was written by nccl-init pid $first, which is not running in this PID namespace"* ]]
}

@test "a group-writable record is refused; one in an other-writable record directory (an emptyDir, sticky or not) is served" {
    write_record
    chmod 0664 "$RECORD"
    probe
    assert_refused "$RECORD is writable by group or others \(mode 0664\)"
    chmod 0644 "$RECORD"
    # Kubernetes makes an emptyDir root's, 0777, not sticky: the record's own
    # directory may be writable by others (spec-25 decision 1).
    local mode
    for mode in 0777 0757 1777 0775; do
        chmod "$mode" /run/nccl-init
        probe
        assert_served
    done
    chmod 0755 /run/nccl-init
    probe
    assert_served
}

@test "in a 0777 record directory: a hard link (nlink 2) is refused, a record owned by another uid is refused" {
    write_record
    chmod 0777 /run/nccl-init
    ln "$RECORD" /run/nccl-init/planted
    probe
    assert_refused "$RECORD has 2 hard links, in a directory others may write to"
    rm /run/nccl-init/planted
    probe
    assert_served
    local nobody
    nobody=$(id -u nobody)
    chown nobody "$RECORD"
    probe
    assert_refused "$RECORD is owned by uid $nobody, neither root nor this process's 0"
    # an ancestor others may write to, without the sticky bit: still refused
    chown root "$RECORD"
    chmod 0777 /run
    probe
    assert_refused 'directory /run is writable by group or others \(mode 0777\)'
    chmod 0755 /run
}

# spec-25's hardened shape: nccl-init as uid 65532, a root-owned 0777
# /run/nccl-init (the emptyDir), the readers as 65532 too.
@test "as uid 65532 with a root-owned 0777 /run/nccl-init: the record is written (65532's, 0644) and served to a 65532 process" {
    local u=(setpriv --reuid 65532 --regid 65532 --clear-groups)
    chmod 0755 "$TMP"
    cp "$PDIR/lo.env" "$TMP/lo.env"
    cp "$SO" "$TMP/libnccl-env.so"
    mkdir -m 0777 /run/nccl-init
    chmod 0777 /run/nccl-init
    run --separate-stderr "${u[@]}" "$NI" --profile-dir "$TMP" --sinks record -p lo -- /bin/true
    echo "$stderr"
    assert_success
    [[ "$stderr" != *warning* ]]
    assert_equal "$(stat -c '%u %a %h' "$RECORD" /run/nccl-init/state.json | sort -u)" "65532 644 1"
    grep -qx NCCL_SOCKET_IFNAME=lo "$RECORD"
    # a restart: a new record, which names its own writer, 65532's again
    local ino
    ino=$(stat -c %i "$RECORD")
    run --separate-stderr "${u[@]}" "$NI" --profile-dir "$TMP" --sinks record -p lo -- /bin/true
    assert_success
    [ "$(stat -c %i "$RECORD")" != "$ino" ]
    assert_equal "$(stat -c '%u %a %h' "$RECORD")" "65532 644 1"
    # a file of root's there is replaced by one of 65532's (root's was
    # not made by this writer)
    cp "$RECORD" "$TMP/r"
    rm "$RECORD"
    install -m 0644 "$TMP/r" "$RECORD"
    # the probe as the command: it runs while its writer does
    run timeout 30 "${u[@]}" "$NI" -q --profile-dir "$TMP" --sinks record -p lo -- \
        sh -c 'stat -c "%u %a" '"$RECORD"'; exec env -i NCCL_DEBUG=INFO \
        NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP NCCL_ENV_PLUGIN='"$TMP/libnccl-env.so"' \
        /usr/bin/python3 -I '"$ENVPROBE $LIBNCCL"
    echo "$output"
    assert_success
    assert_line --index 0 "65532 644"
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to lo"
    assert_output --partial 'nccl-init: 2 values from /run/nccl-init/profile.env'
    # without the directory, a non-root writer cannot make it: one warning
    rm -rf /run/nccl-init
    run --separate-stderr "${u[@]}" "$NI" --profile-dir "$TMP" --sinks record -p lo -- /bin/true
    assert_success
    [[ "$stderr" == *"warning: sink record: /run/nccl-init: mkdir: Permission denied; skipped"* ]]
}

# The writer's side of the rule: only the record's directory may be shared.
@test "the writer: a 0777 record directory is accepted for the record; a 0777 etc is still refused for etc-environment" {
    local R=$TMP/root
    mkdir -p "$R/etc" "$R/run/nccl-init"
    chmod 0777 "$R/etc" "$R/run/nccl-init"
    run --separate-stderr "$NI" --root "$R" --profile-dir "$PDIR" --sinks record,etc-environment \
        -p lo -- /bin/true
    echo "$stderr"
    assert_success
    assert_equal "$(grep warning <<<"$stderr")" \
        "nccl-init: warning: sink etc-environment: $R/etc/environment: parent $R/etc is writable by group and others (mode 0777); skipped"
    [ ! -e "$R/etc/environment" ]
    assert_equal "$(stat -c '%u %a %h' "$R/run/nccl-init/profile.env" "$R/run/nccl-init/state.json" | sort -u)" "0 644 1"
    # a link planted in the shared directory is not followed, and a hard
    # link to another file is not written through
    printf 'theirs\n' >"$TMP/theirs"
    rm "$R/run/nccl-init/state.json"
    ln "$TMP/theirs" "$R/run/nccl-init/state.json"
    run --separate-stderr "$NI" --root "$R" --profile-dir "$PDIR" --sinks record -p lo -- /bin/true
    assert_success
    assert_equal "$(cat "$TMP/theirs")" theirs
    assert_equal "$(stat -c %h "$R/run/nccl-init/state.json")" 1
    rm "$R/run/nccl-init/profile.env"
    ln -s "$TMP/theirs" "$R/run/nccl-init/profile.env"
    run --separate-stderr "$NI" --root "$R" --profile-dir "$PDIR" --sinks record -p lo -- /bin/true
    assert_success
    [[ "$stderr" == *"sink record: $R/run/nccl-init/profile.env: check target: refusing to write through a symlink; skipped"* ]]
    assert_equal "$(cat "$TMP/theirs")" theirs
}

@test "a symbolic link at the record's path, or at its directory: refused" {
    write_record
    mv "$RECORD" /run/nccl-init/real.env
    ln -s real.env "$RECORD"
    probe
    assert_refused "$RECORD is a symbolic link"
    rm "$RECORD"
    mv /run/nccl-init/real.env "$RECORD"
    mv /run/nccl-init /run/nccl-init.real
    ln -s nccl-init.real /run/nccl-init
    probe
    assert_refused '/run/nccl-init is a symbolic link or not a directory'
    rm /run/nccl-init
    rm -rf /run/nccl-init.real
}

@test "a record owned by another user (nobody), or in a directory that is: refused" {
    local nobody
    nobody=$(id -u nobody)
    write_record
    chown nobody "$RECORD"
    probe
    assert_refused "$RECORD is owned by uid $nobody, neither root nor this process's 0"
    chown root "$RECORD"
    chown nobody /run/nccl-init
    probe
    assert_refused "directory /run/nccl-init is owned by uid $nobody, neither root nor this process's 0"
}

@test "a 100 MB record (sparse): refused by its size, before it is read" {
    write_record
    truncate -s 100M "$RECORD"
    probe
    assert_refused "$RECORD is 104857600 bytes, more than the 65536 a record may have"
}

@test "binary garbage, a 5,000-byte value, a missing NCCL_INIT_DIGEST, and other broken records: refused, each with its reason" {
    # Binary garbage, seeded (the same bytes every run), NULs and all.
    python3 -c 'import random, sys; r = random.Random(24); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(3000)) + b"\n")' >"$TMP/garbage"
    write_record
    cp "$TMP/garbage" "$RECORD"
    probe
    assert_refused "$RECORD: line [0-9]+: .*"
    write_record
    cp "$RECORD" "$TMP/good"
    local big
    big=$(printf '%5000s' '' | tr ' ' x)
    # RECORD_CONTENT | REASON (a regex)
    # The good record, its lines and their newlines (6: the writer's two
    # among them).
    local g
    g=$(cat "$TMP/good")$'\n'
    local -a cases=(
        "${g}NCCL_X=$big|$RECORD: line 7: longer than 4096 bytes"
        "$(grep -v '^NCCL_INIT_DIGEST=' "$TMP/good")|$RECORD: no NCCL_INIT_DIGEST line"
        "${g}NCCL_SOCKET_IFNAME=eth0|$RECORD: the key NCCL_SOCKET_IFNAME is there more than once"
        "${g}NCCL_INIT_ENFORCE=yes|$RECORD: NCCL_INIT_ENFORCE is not 1"
        "${g}NCCL_X=a$(printf '\r')|$RECORD: line 7: a control byte \(0x0d\) in the value"
        "${g}|$RECORD: line 7: not KEY=VALUE \(a key starts with a letter or '_'\)"
        "${g}#comment|$RECORD: line 7: not KEY=VALUE \(a key starts with a letter or '_'\)"
        "${g}NCCL-X=1|$RECORD: line 7: not KEY=VALUE \(a key is letters, digits and '_', then '='\)"
        "${g}$(seq -f 'NCCL_K%g=1' 600)|$RECORD: more than 512 lines"
    )
    local c
    for c in "${cases[@]}"; do
        printf '%s\n' "${c%|*}" >"$RECORD"
        probe
        assert_refused "${c##*|}"
    done
    # No newline after the last line; nothing at all.
    printf '%s' "$(cat "$TMP/good")" >"$RECORD"
    probe
    assert_refused "$RECORD: the last line does not end with a newline"
    : >"$RECORD"
    probe
    assert_refused "$RECORD: empty"
    # The good one still serves.
    cp "$TMP/good" "$RECORD"
    probe
    assert_served
}

@test "a FIFO at the record's path: refused at once, nothing blocks" {
    mkdir -p /run/nccl-init
    mkfifo -m 0644 "$RECORD"
    SECONDS=0
    probe
    assert_refused "$RECORD is a FIFO"
    [ "$SECONDS" -lt 10 ]
}

@test "no record: one INFO line, NCCL's defaults" {
    probe
    assert_success
    assert_line 'uniqueid: ok'
    assert_output --partial "$INFO ENV/Plugin: Using nccl-init (v1)"
    assert_line --regexp "^[^ ]+:[0-9]+:[0-9]+ $INFO nccl-init: no record \(no /run/nccl-init\): NCCL's own environment only\$"
    refute_output --partial 'NCCL WARN'
    mkdir /run/nccl-init
    probe
    assert_success
    assert_line --regexp "$INFO nccl-init: no record \(no $RECORD\): NCCL's own environment only\$"
    # The v1 line only at NCCL_DEBUG=INFO or TRACE, as NCCL's own.
    probe NCCL_DEBUG=WARN
    assert_success
    refute_output --partial 'nccl-init:'
    probe NCCL_DEBUG=trace
    assert_output --partial 'nccl-init: no record'
}

@test "v2 (NCCL 2.30): init logs through NCCL's logger, INFO or WARN under INIT|ENV, whatever NCCL_DEBUG says; returns 0" {
    write_record
    probe NCCL_DEBUG= v2 "$SO" NCCL_SOCKET_IFNAME
    assert_success
    assert_line 'name: nccl-init'
    assert_line 'init: 0'
    # NCCL_LOG_INFO = 3, NCCL_INIT|NCCL_ENV = 0x81
    assert_line --regexp "^log 3 0x81 plugin/plugin.c: nccl-init: 2 values from $RECORD \(profile lo, digest [0-9a-f]{12}\), not enforced\$"
    assert_line 'getEnv: lo'
    assert_line 'finalize: 0'
    # Nothing on stdout of its own: one line, through the logger.
    [ "$(grep -c 'nccl-init:' <<<"$output")" = 1 ]
    chmod 0666 "$RECORD"
    probe v2 "$SO" NCCL_SOCKET_IFNAME
    assert_success
    assert_line 'init: 0'
    # NCCL_LOG_WARN = 2
    assert_line "log 2 0x81 plugin/plugin.c: nccl-init: record not used: $RECORD is writable by group or others (mode 0666); NCCL's own environment only"
    assert_line 'getEnv: NULL'
    rm -rf /run/nccl-init
    probe v2 "$SO" NCCL_SOCKET_IFNAME
    assert_line "log 3 0x81 plugin/plugin.c: nccl-init: no record (no /run/nccl-init): NCCL's own environment only"
}

# A v1 line of the plugin's own, as NCCL's look: "HOST:PID:TID NCCL LEVEL nccl-init: ...".
V1_LINE='^[^ ]+:[0-9]+:[0-9]+ NCCL'

# uid [VAR=VALUE...] [closed-stdout]: the C server (helpers/plugin-harness.c)
# through NCCL's first init in an empty environment with the installed
# plugin and the VAR=VALUEs; stdout in $output, stderr in $stderr.
uid() {
    local -a vars=("NCCL_ENV_PLUGIN=$SO")
    while [[ ${1:-} == *=* ]]; do vars+=("$1"); shift; done
    [ -x "$HARNESS" ] || { echo "no $HARNESS (make build/test/plugin-harness)" >&2; return 1; }
    run --separate-stderr timeout 30 env -i "${vars[@]}" "$HARNESS" uid "$LIBNCCL" "$@"
    echo "status: $status"
    echo "stdout: $output"
    echo "stderr: $stderr"
}

# Issue 34, finding 3: the v1 plugin wrote its line to fd 1, the server's.
@test "v1: a C server whose stdout is a closed pipe lives through NCCL_DEBUG=INFO (not SIGPIPE, 141); the plugin's line is on stderr, never stdout" {
    write_record
    uid NCCL_DEBUG=INFO closed-stdout
    assert_success
    [ "$(grep -c 'nccl-init:' <<<"$stderr")" = 1 ]
    grep -Eq "$V1_LINE INFO nccl-init: 2 values from $RECORD \(profile lo, digest [0-9a-f]{12}\), not enforced\$" <<<"$stderr"
    grep -qx 'uniqueid: ok' <<<"$stderr"
    # stdout as a file: NCCL's own lines there, by design; none of the plugin's
    uid NCCL_DEBUG=INFO
    assert_success
    assert_output --partial 'NCCL INFO ENV/Plugin: Using nccl-init (v1)'
    refute_output --partial 'nccl-init:'
    [ "$(grep -c 'nccl-init:' <<<"$stderr")" = 1 ]
    # no record: the same, its INFO line
    rm -rf /run/nccl-init
    uid NCCL_DEBUG=INFO closed-stdout
    assert_success
    grep -Eq "$V1_LINE INFO nccl-init: no record \(no /run/nccl-init\): NCCL's own environment only\$" <<<"$stderr"
}

@test "v1: with NCCL_DEBUG_FILE=DIR/dbg-%h-%p.log the plugin's line lands whole in NCCL's own file, among NCCL's lines, on neither stdout nor stderr" {
    write_record
    uid NCCL_DEBUG=INFO "NCCL_DEBUG_FILE=$TMP/dbg-%h-%p.log" closed-stdout
    assert_success
    local pid host f
    pid=$(sed -n 's/^pid //p' <<<"$stderr")
    host=$(hostname)
    f=$TMP/dbg-${host%%.*}-$pid.log
    [ -f "$f" ]
    cat "$f"
    [[ "$stderr" != *nccl-init:* ]]
    [ "$(grep -c 'nccl-init:' "$f")" = 1 ]
    grep -Eq "$V1_LINE INFO nccl-init: 2 values from $RECORD \(profile lo, digest [0-9a-f]{12}\), not enforced\$" "$f"
    # NCCL's lines before and after it, every line whole: the plugin wrote
    # through NCCL's descriptor, so NCCL's next line did not overwrite it
    grep -q 'NCCL INFO Successfully loaded external env plugin' "$f"
    grep -A100 'nccl-init:' "$f" | grep -q 'NCCL INFO Bootstrap: Using'
    run grep -Evc '^[^ ]+:[0-9]+:[0-9]+ (\[[0-9]+\] )?NCCL (INFO|WARN) ' "$f"
    assert_output 0
    # stdout as a file: nothing of the plugin's there either
    uid NCCL_DEBUG=INFO "NCCL_DEBUG_FILE=$TMP/second.log"
    assert_success
    refute_output --partial 'nccl-init:'
    [ "$(grep -c 'nccl-init:' "$TMP/second.log")" = 1 ]
    # With no NCCL that opened it (the plugin alone): appended, what was
    # there kept, never truncated.
    printf 'kept\n' >"$TMP/own.log"
    run --separate-stderr env -i NCCL_DEBUG=INFO "NCCL_DEBUG_FILE=$TMP/own.log" "$HARNESS" errno "$SO"
    assert_success
    refute_line --regexp "$V1_LINE"
    [ -z "$stderr" ]
    run cat "$TMP/own.log"
    assert_line --index 0 kept
    assert_line --index 1 --regexp "$V1_LINE INFO nccl-init: 2 values from $RECORD "
}

@test "v1 at NCCL_DEBUG=WARN: a refused record is one WARN line (stderr, or NCCL_DEBUG_FILE); a served record, none, or NCCL_DEBUG=VERSION: no line" {
    write_record
    chmod 0664 "$RECORD"
    local why="record not used: $RECORD is writable by group or others \(mode 0664\); NCCL's own environment only"
    uid NCCL_DEBUG=WARN closed-stdout
    assert_success
    [ "$(grep -c 'nccl-init:' <<<"$stderr")" = 1 ]
    grep -Eq "$V1_LINE WARN nccl-init: $why\$" <<<"$stderr"
    uid NCCL_DEBUG=warn "NCCL_DEBUG_FILE=$TMP/w.log" closed-stdout
    assert_success
    [[ "$stderr" != *nccl-init:* ]]
    [ "$(grep -c 'nccl-init:' "$TMP/w.log")" = 1 ]
    grep -Eq "$V1_LINE WARN nccl-init: $why\$" "$TMP/w.log"
    uid NCCL_DEBUG=VERSION closed-stdout
    assert_success
    [[ "$stderr" != *nccl-init:* ]]
    chmod 0644 "$RECORD"
    uid NCCL_DEBUG=WARN closed-stdout
    assert_success
    [[ "$stderr" != *nccl-init:* ]]
    rm -rf /run/nccl-init
    uid NCCL_DEBUG=WARN closed-stdout
    assert_success
    [[ "$stderr" != *nccl-init:* ]]
}

# Issue 34, finding 5: NCCL 2.28.9's atexit handler (ncclEnvPluginFinalize)
# finalizes and dlcloses the plugin while the server's threads may still
# be inside getEnv; unmapped under them, they died of SIGSEGV.
@test "exit while 4 threads are inside getEnv, NCCL's atexit dlclose and all: 100 runs, no crash (-z nodelete)" {
    write_record
    SECONDS=0
    run timeout 60 "$HARNESS" exit-race "$SO" 100 4
    echo "$output (${SECONDS}s)"
    assert_success
    assert_output 'crashes: 0 of 100'
    run readelf -d "$SO"
    assert_output --regexp '\(FLAGS_1\) +Flags: .*\bNODELETE\b'
}

# Issue 34, finding 8: errno was left at ENOENT by init when there was no
# record; and NCCL copies every WARN into ncclLastError, so only a refused
# record may be logged as one.
@test "errno: v1 and v2 init, getEnv and finalize leave errno as they found it; v2 logs a served record or none at INFO, never WARN" {
    local call
    check_errno() {
        for call in v1.init v1.getEnv v1.finalize v2.init v2.getEnv v2.finalize; do
            assert_line "$call errno=12345"
        done
    }
    write_record
    run env -i "$HARNESS" errno "$SO"
    echo "$output"
    assert_success
    check_errno
    assert_line 'v1.getEnv: lo'
    assert_line --regexp "^log 3 0x81: nccl-init: 2 values from $RECORD "
    refute_line --regexp '^log [0-2] '
    # a record directory without the record; no directory at all
    rm "$RECORD"
    run env -i "$HARNESS" errno "$SO"
    check_errno
    assert_line "log 3 0x81: nccl-init: no record (no $RECORD): NCCL's own environment only"
    refute_line --regexp '^log [0-2] '
    rm -rf /run/nccl-init
    run env -i "$HARNESS" errno "$SO"
    check_errno
    assert_line "log 3 0x81: nccl-init: no record (no /run/nccl-init): NCCL's own environment only"
    refute_line --regexp '^log [0-2] '
    # a refused record: errno kept as well; that one is a WARN
    write_record
    chmod 0666 "$RECORD"
    run env -i "$HARNESS" errno "$SO"
    check_errno
    assert_line --regexp "^log 2 0x81: nccl-init: record not used: "
    assert_line 'v2.getEnv: NULL'
}

@test "NCCL_ENV_PLUGIN=none: NCCL says so and does not load the plugin" {
    write_record
    probe NCCL_ENV_PLUGIN=none
    assert_success
    assert_output --partial "$INFO NCCL_ENV_PLUGIN set by environment to none"
    refute_output --partial 'ENV/Plugin: Using nccl-init'
    refute_output --partial 'nccl-init:'
    refute_output --partial 'NCCL_SOCKET_IFNAME set by environment'
}

# Starts a probe that holds after ncclGetUniqueId; sets HELD to its pid.
start_held() {
    timeout 60 env -i NCCL_DEBUG=INFO "NCCL_ENV_PLUGIN=$SO" /usr/bin/python3 -I "$ENVPROBE" hold "$LIBNCCL" \
        >"$TMP/held.out" 2>&1 &
    PIDS+=($!)
    local _
    for _ in $(seq 200); do grep -q '^held ' "$TMP/held.out" && break; sleep 0.05; done
    HELD=$(sed -n 's/^held //p' "$TMP/held.out")
    [ -n "$HELD" ] || { cat "$TMP/held.out"; false; }
}

# "FD FLAGS" of each descriptor of pid $1 that refers to the record.
record_fds() {
    local f n
    for f in /proc/"$1"/fd/*; do
        [ "$(readlink "$f")" = "$RECORD" ] || continue
        n=${f##*/}
        echo "$n $(awk '/^flags:/ { print $2 }' "/proc/$1/fdinfo/$n")"
    done
}

@test "the plugin holds an O_PATH descriptor of the record it serves, and none of one it refused" {
    write_record
    start_held
    run record_fds "$HELD"
    echo "$output"
    [ "${#lines[@]}" = 1 ]
    local flags=${lines[0]#* }
    # O_PATH (010000000) and O_CLOEXEC (02000000), read-only.
    (( (8#$flags & 8#10000000) != 0 ))
    (( (8#$flags & 8#2000000) != 0 ))
    (( (8#$flags & 3) == 0 ))
    kill "$HELD"
    chmod 0666 "$RECORD"
    start_held
    grep -q 'record not used' "$TMP/held.out"
    run record_fds "$HELD"
    assert_output ''
}

# The issue's end to end: nccl-init as make install put it, with its default
# sinks; an env -i process with nothing of the profile in its environment
# and no NCCL_ENV_PLUGIN of its own, and no site hook (python3 -S). NCCL
# finds the plugin through the nccl.conf block, takes the profile through it
# and says so; verify names the plugin as the source of every value.
@test "installed beside the binary: an env -i process under PREFIX/bin/nccl-init gets the profile; verify: plugin for the key NCCL has not asked, nccl:own for the one it read from nccl.conf" {
    "$P/bin/nccl-init" -q --profile-dir "$PDIR" -p lo -- \
        /usr/bin/env -i NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP \
        /usr/bin/python3 -S "$ENVPROBE" hold "$LIBNCCL" >"$TMP/held.out" 2>&1 &
    PIDS+=($!)
    local _
    for _ in $(seq 200); do grep -q '^held ' "$TMP/held.out" && break; sleep 0.05; done
    HELD=$(sed -n 's/^held //p' "$TMP/held.out")
    run cat "$TMP/held.out"
    echo "$output"
    [ -n "$HELD" ]
    grep -qx "NCCL_ENV_PLUGIN=$SO" /etc/nccl.conf
    assert_line 'uniqueid: ok'
    assert_output --partial "$INFO ENV/Plugin: Using nccl-init (v1)"
    assert_output --partial "$INFO Successfully loaded external env plugin $SO"
    assert_output --partial 'nccl-init: 2 values from /run/nccl-init/profile.env (profile lo'
    assert_output --partial "$INFO NCCL_SOCKET_IFNAME set by environment to lo"
    assert_output --regexp "$INFO Bootstrap: Using lo:"
    # its exec environment has neither key
    run tr '\0' '\n' <"/proc/$HELD/environ"
    refute_output --partial NCCL_SOCKET_IFNAME
    refute_output --partial NCCL_ENV_PLUGIN
    run --separate-stderr "$P/bin/nccl-init" verify --pid "$HELD"
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +BUFFSIZE +SOCKET_IFN'
    # NCCL applied /etc/nccl.conf's lines with setenv before it loaded the
    # plugin: the witness says NCCL read lo from the process's own
    # environment, and it is the profile's value
    assert_line --regexp "^$HELD +python3 +plugin +nccl:own( |\$)"
    assert_line --regexp "^pid $HELD \(python3\): NCCL 2\.28\.9 read NCCL_SOCKET_IFNAME=lo from its own environment; not asked yet: NCCL_BUFFSIZE "
}

@test "verify: a process served by the plugin: plugin for the key NCCL has not asked, nccl:rec for the one it read from the record" {
    write_record
    start_held
    run --separate-stderr "$NI" verify --pid "$HELD"
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +BUFFSIZE +SOCKET_IFN'
    assert_line --regexp "^$HELD +python3 +plugin +nccl:rec( |\$)"
}
