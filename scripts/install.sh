#!/usr/bin/env bash
# install.sh install|uninstall: what `make install` and `make uninstall` run.
#
# From the Makefile's environment: DESTDIR (a staging root, may be empty),
# PREFIX (/usr/local), SYSCONFDIR (/etc), BIN (the binary to install),
# PLUGIN (the NCCL env plugin to install).
#
#   $PREFIX/bin/nccl-init                      0755
#   $PREFIX/lib/nccl-init/libnccl-env.so       0644  the NCCL env plugin, where
#                                                    nccl-init looks for it (beside
#                                                    the binary: ../lib/nccl-init)
#   $PREFIX/share/man/man1/nccl-init.1         0644
#   $SYSCONFDIR/nccl-init/profiles/*           0644  profiles/*.env, auto.rules
#   $PREFIX/share/nccl-init/profiles/*         0644  the same, as shipped
#   $PREFIX/share/nccl-init/installed          0644  what install created
#
# The profiles in $SYSCONFDIR are configuration: an operator may edit them.
# install puts a profile there when there is none, when the one there is
# the shipped one, or when it is the copy an earlier install shipped (kept
# in $PREFIX/share/nccl-init/profiles), so an unedited profile follows the
# release; an edited one, or a link, is left as it is, with one line that
# says so and names the shipped copy to compare it with. uninstall takes a
# profile away only when it is still a shipped one.
#
# The record ($PREFIX/share/nccl-init/installed, paths without DESTDIR)
# lists the files install wrote and the directories it had to create, and
# is added to by each install: uninstall removes exactly those files and,
# when they are empty, those directories, deepest first; also nccl-init's
# own directories, when empty. Without a record (an install by hand) it
# removes what this tree would have installed and nccl-init's own
# directories only.
set -euo pipefail
cd "$(dirname "$0")/.."

DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
BIN=${BIN:-build/nccl-init}
PLUGIN=${PLUGIN:-build/libnccl-env.so}

# Absolute, without trailing slashes: the record holds paths.
for v in PREFIX SYSCONFDIR; do
    p=${!v}
    case $p in
        /*) ;;
        *) echo "install.sh: $v=$p: must be an absolute path" >&2; exit 2 ;;
    esac
    while [ "${p%/}" != "$p" ]; do p=${p%/}; done
    printf -v "$v" '%s' "$p"
done

bindir=$PREFIX/bin
plugindir=$PREFIX/lib/nccl-init
man1dir=$PREFIX/share/man/man1
datadir=$PREFIX/share/nccl-init
shipped=$datadir/profiles
profiledir=$SYSCONFDIR/nccl-init/profiles
record=$datadir/installed
D=$DESTDIR

sources=(profiles/*.env profiles/auto.rules)

say() { printf '%s\n' "$*"; }
run() { say "$*"; "$@"; }

# What the record says, or what this tree would install when there is none.
read_record() {
    if [ -f "$D$record" ]; then
        cat "$D$record"
        return
    fi
    local s
    say "file $bindir/nccl-init"
    say "file $plugindir/libnccl-env.so"
    say "file $man1dir/nccl-init.1"
    for s in "${sources[@]}"; do
        say "profile $profiledir/${s##*/}"
        say "file $shipped/${s##*/}"
    done
}

do_install() {
    [ -f "$BIN" ] || { echo "install.sh: $BIN: not built (run make first)" >&2; exit 2; }
    [ -f "$PLUGIN" ] || { echo "install.sh: $PLUGIN: not built (run make first)" >&2; exit 2; }
    local -a rec=()
    [ -f "$D$record" ] && mapfile -t rec <"$D$record"

    # Each directory on the way down to the five, created 0755 when missing,
    # and recorded then.
    local d p part
    local -a parts
    for d in "$bindir" "$plugindir" "$man1dir" "$shipped" "$profiledir"; do
        p=
        IFS=/ read -ra parts <<<"${d#/}"
        for part in "${parts[@]}"; do
            p=$p/$part
            if [ ! -d "$D$p" ]; then
                run install -d -m 0755 "$D$p"
                rec+=("dir $p")
            fi
        done
    done

    run install -D -m 0755 "$BIN" "$D$bindir/nccl-init"
    rec+=("file $bindir/nccl-init")
    run install -D -m 0644 "$PLUGIN" "$D$plugindir/libnccl-env.so"
    rec+=("file $plugindir/libnccl-env.so")
    run install -D -m 0644 doc/nccl-init.1 "$D$man1dir/nccl-init.1"
    rec+=("file $man1dir/nccl-init.1")

    local s n etc old
    for s in "${sources[@]}"; do
        n=${s##*/}
        etc=$D$profiledir/$n
        old=$D$shipped/$n
        if [ -L "$etc" ]; then
            say "kept $profiledir/$n: a link, left as it is (shipped: $shipped/$n)"
        elif [ ! -e "$etc" ] || cmp -s "$s" "$etc" || { [ -f "$old" ] && cmp -s "$old" "$etc"; }; then
            run install -D -m 0644 "$s" "$etc"
            rec+=("profile $profiledir/$n")
        else
            say "kept $profiledir/$n: edited, left as it is (shipped: $shipped/$n)"
        fi
        # After the comparison: $old was the earlier release's copy.
        run install -D -m 0644 "$s" "$old"
        rec+=("file $shipped/$n")
    done

    printf '%s\n' "${rec[@]}" | LC_ALL=C sort -u >"$D$record.tmp"
    chmod 0644 "$D$record.tmp"
    mv -f "$D$record.tmp" "$D$record"

    if [ "$SYSCONFDIR" != /etc ]; then
        say "note: nccl-init looks for its profiles in /etc/nccl-init/profiles (under --root);"
        say "      with SYSCONFDIR=$SYSCONFDIR run it with --profile-dir $profiledir"
    fi
}

do_uninstall() {
    local -a rec=()
    mapfile -t rec < <(read_record)
    local e kind path n ref
    # The profiles first: they are compared with the shipped copies.
    for e in "${rec[@]}"; do
        kind=${e%% *} path=${e#* }
        [ "$kind" = profile ] || continue
        [ -e "$D$path" ] || [ -L "$D$path" ] || continue
        n=${path##*/}
        ref=$D$shipped/$n
        [ -f "$ref" ] || ref=profiles/$n
        if [ -L "$D$path" ]; then
            say "kept $path: a link"
        elif [ -f "$ref" ] && cmp -s "$ref" "$D$path"; then
            run rm -f "$D$path"
        else
            say "kept $path: edited"
        fi
    done
    for e in "${rec[@]}"; do
        kind=${e%% *} path=${e#* }
        if [ "$kind" = file ] && { [ -e "$D$path" ] || [ -L "$D$path" ]; }; then
            run rm -f "$D$path"
        fi
    done
    [ -f "$D$record" ] && run rm -f "$D$record"

    # Directories, deepest first (a directory sorts before what is in it),
    # each only when empty: what is left in it is someone else's.
    local -a dirs=("$profiledir" "$SYSCONFDIR/nccl-init" "$shipped" "$datadir" "$plugindir")
    for e in "${rec[@]}"; do
        [ "${e%% *}" = dir ] && dirs+=("${e#* }")
    done
    local d
    while IFS= read -r d; do
        if [ -d "$D$d" ] && [ ! -L "$D$d" ] && [ -z "$(ls -A "$D$d")" ]; then
            run rmdir "$D$d"
        fi
    done < <(printf '%s\n' "${dirs[@]}" | LC_ALL=C sort -ru)
}

case ${1:-} in
    install) do_install ;;
    uninstall) do_uninstall ;;
    *) echo "usage: install.sh install|uninstall (DESTDIR, PREFIX, SYSCONFDIR, BIN, PLUGIN)" >&2; exit 2 ;;
esac
