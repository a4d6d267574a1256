#!/usr/bin/env bats
# make install / make uninstall into a temporary DESTDIR, and the manual
# page doc/nccl-init.1: its lint, and that it keeps up with init/cli.c.

load helpers/common

MAN=$REPO/doc/nccl-init.1

setup() {
    T=$BATS_TEST_TMPDIR/dest
    mkdir "$T"
}

# make in the repository, installing build/nccl-init and the env plugin
# build/libnccl-env.so as they are: -o keeps make from rebuilding them (or
# installing packages) in the middle of a test. A make running the suite
# passes its own flags down; they are not ours.
PLUGIN=$REPO/build/libnccl-env.so
mk() {
    [ -x "$REPO/build/nccl-init" ] || fail "build/nccl-init is not built"
    [ -f "$PLUGIN" ] || fail "build/libnccl-env.so is not built"
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$REPO" -o build/nccl-init \
        -o build/libnccl-env.so "$@"
}

# Every path under $T with its type and mode, $T itself left out.
tree() { (cd "$T" && find . -mindepth 1 -printf '%y %m %P\n' | LC_ALL=C sort); }

# What make install PREFIX=$1 should leave in an empty DESTDIR.
expected_tree() {
    local p=${1#/} d='' part f n
    local -a parts
    IFS=/ read -ra parts <<<"$p"
    {
        for part in "${parts[@]}"; do
            d=${d:+$d/}$part
            echo "d 755 $d"
        done
        for d in bin lib lib/nccl-init share share/man share/man/man1 share/nccl-init \
            share/nccl-init/profiles; do
            echo "d 755 $p/$d"
        done
        echo "d 755 etc"
        echo "d 755 etc/nccl-init"
        echo "d 755 etc/nccl-init/profiles"
        echo "f 755 $p/bin/nccl-init"
        echo "f 644 $p/lib/nccl-init/libnccl-env.so"
        echo "f 644 $p/share/man/man1/nccl-init.1"
        echo "f 644 $p/share/nccl-init/installed"
        for f in "$PROFILES"/*.env "$PROFILES"/auto.rules; do
            n=${f##*/}
            echo "f 644 etc/nccl-init/profiles/$n"
            echo "f 644 $p/share/nccl-init/profiles/$n"
        done
    } | LC_ALL=C sort
}

@test "make install: the binary, the env plugin, the profiles, auto.rules and the man page, in the layout the binary expects" {
    run mk install DESTDIR="$T"
    assert_success
    diff -u <(expected_tree /usr/local) <(tree)
    cmp "$REPO/build/nccl-init" "$T/usr/local/bin/nccl-init"
    cmp "$PLUGIN" "$T/usr/local/lib/nccl-init/libnccl-env.so"
    cmp "$MAN" "$T/usr/local/share/man/man1/nccl-init.1"
    for f in "$PROFILES"/*.env "$PROFILES"/auto.rules; do
        cmp "$f" "$T/etc/nccl-init/profiles/${f##*/}"
    done
    # The installed binary finds the installed profiles and rules by
    # itself: --root puts its default directory, /etc/nccl-init/profiles,
    # under $T.
    run "$T/usr/local/bin/nccl-init" check --root "$T" pcie-8gpu nvlink-hgx ib-multinode none
    assert_success
    run "$T/usr/local/bin/nccl-init" detect --root "$T"
    assert_success
    assert_output --partial "$T/etc/nccl-init/profiles/auto.rules:"
    # man finds the page where it was put.
    run --separate-stderr env MANWIDTH=80 man -E UTF-8 -M "$T/usr/local/share/man" 1 nccl-init
    assert_success
    assert_output --partial 'nccl-init - run an inference server'
}

@test "make install then make uninstall leaves DESTDIR as it was: default PREFIX, PREFIX=/usr, PREFIX=/opt/nccl-init/" {
    local prefix before
    for prefix in /usr/local /usr /opt/nccl-init/; do
        before=$(tree)
        run mk install DESTDIR="$T" PREFIX="$prefix"
        assert_success
        [ "$(tree)" != "$before" ]
        [ -x "$T/${prefix%/}/bin/nccl-init" ]
        [ -f "$T/${prefix%/}/lib/nccl-init/libnccl-env.so" ]
        [ -f "$T/${prefix%/}/share/man/man1/nccl-init.1" ]
        # A second install changes nothing and records nothing new.
        local once
        once=$(tree; cat "$T/${prefix%/}/share/nccl-init/installed")
        run mk install DESTDIR="$T" PREFIX="$prefix"
        assert_success
        [ "$(tree; cat "$T/${prefix%/}/share/nccl-init/installed")" = "$once" ]
        run mk uninstall DESTDIR="$T" PREFIX="$prefix"
        assert_success
        [ "$(tree)" = "$before" ] || { diff <(echo "$before") <(tree); false; }
        [ -z "$before" ]
    done
}

@test "make uninstall removes only the directories install created" {
    # Already there: an empty bin, a man1 with someone else's page.
    mkdir -p "$T/usr/local/bin" "$T/usr/local/share/man/man1" "$T/etc"
    echo '.TH OTHER 1' >"$T/usr/local/share/man/man1/other.1"
    local before
    before=$(tree)
    run mk install DESTDIR="$T"
    assert_success
    run mk uninstall DESTDIR="$T"
    assert_success
    [ "$(tree)" = "$before" ] || { diff <(echo "$before") <(tree); false; }
}

@test "make install and uninstall leave an edited profile, a link and the operator's own profile alone" {
    local p=$T/etc/nccl-init/profiles
    run mk install DESTDIR="$T"
    assert_success
    echo 'NCCL_DEBUG=WARN' >>"$p/pcie-8gpu.env"
    cp "$p/pcie-8gpu.env" "$BATS_TEST_TMPDIR/edited"
    ln -sf /dev/null "$p/none.env"
    echo 'NCCL_DEBUG=INFO' >"$p/site.env"

    run mk install DESTDIR="$T"
    assert_success
    assert_output --partial 'kept /etc/nccl-init/profiles/pcie-8gpu.env: edited, left as it is (shipped: /usr/local/share/nccl-init/profiles/pcie-8gpu.env)'
    assert_output --partial 'kept /etc/nccl-init/profiles/none.env: a link'
    cmp "$BATS_TEST_TMPDIR/edited" "$p/pcie-8gpu.env"
    [ "$(readlink "$p/none.env")" = /dev/null ]
    # The shipped copy is there to compare with.
    cmp "$PROFILES/pcie-8gpu.env" "$T/usr/local/share/nccl-init/profiles/pcie-8gpu.env"

    run mk uninstall DESTDIR="$T"
    assert_success
    assert_output --partial 'kept /etc/nccl-init/profiles/pcie-8gpu.env: edited'
    assert_output --partial 'kept /etc/nccl-init/profiles/none.env: a link'
    diff -u - <(tree) <<EOF
d 755 etc
d 755 etc/nccl-init
d 755 etc/nccl-init/profiles
f 644 etc/nccl-init/profiles/pcie-8gpu.env
f 644 etc/nccl-init/profiles/site.env
l 777 etc/nccl-init/profiles/none.env
EOF
    cmp "$BATS_TEST_TMPDIR/edited" "$p/pcie-8gpu.env"
}

@test "make install updates a profile an earlier install shipped and nobody edited" {
    local p=$T/etc/nccl-init/profiles s=$T/usr/local/share/nccl-init/profiles
    run mk install DESTDIR="$T"
    assert_success
    # As an earlier release left it: its shipped copy and the same in /etc.
    echo 'NCCL_ALGO=Ring' >"$s/pcie-8gpu.env"
    cp "$s/pcie-8gpu.env" "$p/pcie-8gpu.env"
    run mk install DESTDIR="$T"
    assert_success
    refute_output --partial kept
    cmp "$PROFILES/pcie-8gpu.env" "$p/pcie-8gpu.env"
    cmp "$PROFILES/pcie-8gpu.env" "$s/pcie-8gpu.env"
    run mk uninstall DESTDIR="$T"
    assert_success
    [ -z "$(tree)" ]
}

@test "make uninstall without install's record removes what this tree installs" {
    run mk install DESTDIR="$T"
    assert_success
    rm "$T/usr/local/share/nccl-init/installed"
    run mk uninstall DESTDIR="$T"
    assert_success
    # nccl-init's own directories go; the others install created cannot be
    # told from ones that were there.
    diff -u - <(tree) <<EOF
d 755 etc
d 755 usr
d 755 usr/local
d 755 usr/local/bin
d 755 usr/local/lib
d 755 usr/local/share
d 755 usr/local/share/man
d 755 usr/local/share/man/man1
EOF
}

@test "make install: the env plugin in PREFIX/lib/nccl-init, where nccl-init looks beside its binary; uninstall takes it away" {
    run mk install DESTDIR="$T" PREFIX=/opt/x
    assert_success
    assert_output --partial "install -D -m 0644 build/libnccl-env.so $T/opt/x/lib/nccl-init/libnccl-env.so"
    local so=$T/opt/x/lib/nccl-init/libnccl-env.so
    [ "$(stat -c '%a %u' "$so")" = "644 0" ]
    cmp "$PLUGIN" "$so"
    # paths.h's ENV_PLUGIN_BESIDE, from the binary's directory.
    local beside
    beside=$(sed -nE 's/^#define ENV_PLUGIN_BESIDE "([^"]*)" ENV_PLUGIN_NAME$/\1/p' "$REPO/init/lib/paths.h")
    [ "$beside" = ../lib/nccl-init/ ]
    [ "$(realpath "$T/opt/x/bin/$beside/libnccl-env.so")" = "$(realpath "$so")" ]
    grep -qx "file /opt/x/lib/nccl-init/libnccl-env.so" "$T/opt/x/share/nccl-init/installed"
    # A library of someone else's in PREFIX/lib stays, and so does lib.
    mkdir -p "$T/opt/x/lib/other"
    run mk uninstall DESTDIR="$T" PREFIX=/opt/x
    assert_success
    [ ! -e "$T/opt/x/lib/nccl-init" ]
    [ -d "$T/opt/x/lib/other" ]
}

@test "make install without a built plugin says so and writes nothing" {
    local fake=$BATS_TEST_TMPDIR/nothing.so
    run env DESTDIR="$T" PREFIX=/usr/local SYSCONFDIR=/etc BIN="$REPO/build/nccl-init" PLUGIN="$fake" \
        "$REPO/scripts/install.sh" install
    assert_failure 2
    assert_output "install.sh: $fake: not built (run make first)"
    [ -z "$(tree)" ]
}

@test "make install refuses a relative PREFIX or SYSCONFDIR and writes nothing" {
    run mk install DESTDIR="$T" PREFIX=usr/local
    assert_failure
    assert_output --partial 'PREFIX=usr/local: must be an absolute path'
    run mk install DESTDIR="$T" SYSCONFDIR=etc
    assert_failure
    [ -z "$(tree)" ]
}

@test "make install SYSCONFDIR=/srv/etc: the profiles go there, with a note that the binary looks in /etc" {
    run mk install DESTDIR="$T" SYSCONFDIR=/srv/etc
    assert_success
    assert_output --partial "with SYSCONFDIR=/srv/etc run it with --profile-dir /srv/etc/nccl-init/profiles"
    [ -f "$T/srv/etc/nccl-init/profiles/auto.rules" ]
    [ ! -e "$T/etc" ]
    run mk uninstall DESTDIR="$T" SYSCONFDIR=/srv/etc
    assert_success
    [ -z "$(tree)" ]
}

# The page as text, one synopsis per line.
man_text() { mandoc -Tascii -Owidth=1000 "$MAN" | sed 's/.\x08//g'; }
# One section of it: $1 the heading.
man_section() { man_text | awk -v h="$1" '/^[A-Z]/ { on = ($0 == h) } on'; }

@test "man page: mandoc -Tlint finds nothing" {
    run mandoc -Tlint -W style "$MAN"
    assert_success
    assert_output ''
}

@test "man page: man (man-db and groff) renders it without a warning" {
    local w
    for w in --warnings --warnings=w; do
        run --separate-stderr env MANWIDTH=80 man "$w" -E UTF-8 -l "$MAN"
        assert_success
        [ -z "$stderr" ] || { echo "man $w: $stderr"; false; }
        assert_output --partial 'NCCL-INIT(1)'
    done
}

@test "man page: the version is nccl-init's" {
    [ "$(awk -F'"' '/^\.TH / { print $2 }' "$MAN")" = "$("$NI" version)" ]
}

# The option table of init/cli.c, one "NAME SHORT VERBS" line an option:
# "profile -p RUN | RENDER", "root - RUN | CHECK | ...", "quiet -q ANY".
optdefs() {
    sed -nE "s/^ *\{ \"([a-z-]+)\", ('(.)'|0), O_[A-Z_]+, [01], ([A-Z |]+) \},.*/\1 -\3 \4/p" \
        "$REPO/init/cli.c"
}

@test "man page: every option of cli.c's table is in OPTIONS, and in the synopsis of exactly the verbs it applies to" {
    local opts syn macros name short verbs m verb line n=0
    opts=$(man_section OPTIONS)
    syn=$(man_section SYNOPSIS)
    # The verb masks: "#define CHECK (1 << VERB_CHECK)".
    macros=$(sed -nE 's/^#define ([A-Z]+) \(1 << VERB_[A-Z]+\)$/\1/p' "$REPO/init/cli.c")
    [ -n "$macros" ]
    while read -r name short verbs; do
        n=$((n + 1))
        grep -qE -- "(^|[ ,])--$name([ ,=]|\$)" <<<"$opts" || fail "--$name is not in OPTIONS"
        if [ "$short" != - ]; then
            grep -qE -- "(^|[ ,])$short([ ,]|\$)" <<<"$opts" || fail "$short is not in OPTIONS"
        fi
        # Options of every verb (ANY) are described once, not in each synopsis.
        [ "$verbs" = ANY ] && continue
        for m in $macros; do
            verb=${m,,}
            if [ "$verb" = run ]; then
                line=$(grep -E '^ *nccl-init \[' <<<"$syn")
            else
                line=$(grep -E "^ *nccl-init $verb( |\$)" <<<"$syn")
            fi
            [ -n "$line" ] || fail "no synopsis for $verb"
            local pat="(^|[[ |])(--$name"
            [ "$short" = - ] || pat+="|$short"
            pat+=")([] ]|\$)"
            if [[ " $verbs " == *" $m "* ]]; then
                grep -qE -- "$pat" <<<"$line" || fail "--$name is missing from the $verb synopsis"
            else
                ! grep -qE -- "$pat" <<<"$line" || fail "--$name is in the $verb synopsis but does not apply"
            fi
        done
    done < <(optdefs)
    # The table was read: as many options as it has lines.
    [ "$n" -gt 20 ]
    [ "$n" = "$(grep -cE '^ *\{ "[a-z-]+", .*, O_[A-Z_]+, [01], ' "$REPO/init/cli.c")" ]
}

@test "man page: every verb has a synopsis and an exit status" {
    local verbs v syn status
    verbs=$(grep -oE '\[VERB_[A-Z]+\] = "[a-z]+"' "$REPO/init/cli.c" | sed -E 's/.*"(.*)"/\1/')
    [ -n "$verbs" ]
    syn=$(man_section SYNOPSIS)
    status=$(man_section 'EXIT STATUS')
    for v in $verbs remove; do
        grep -qE "^ *nccl-init $v( |\$)" <<<"$syn" || fail "no synopsis for $v"
        grep -qw -- "$v" <<<"$status" || fail "$v is not in EXIT STATUS"
    done
}

@test "man page: every environment variable the sources read is in ENVIRONMENT" {
    local names v env
    names=$(grep -ohE '(getenv|envset_get)\([^()]*"[A-Z_][A-Z0-9_]*"' "$REPO"/init/*.c |
        sed -E 's/.*"(.*)"/\1/' | sort -u)
    [ -n "$names" ]
    env=$(man_section ENVIRONMENT)
    for v in $names; do
        grep -qw -- "$v" <<<"$env" || fail "$v is not in ENVIRONMENT"
    done
}
