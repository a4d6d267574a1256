#!/bin/sh
# Build a static libcap with musl-gcc from Debian's own source package.
#
# Debian's libcap.a is compiled against glibc (it references __sprintf_chk
# and friends) and cannot be linked into a musl binary, so we rebuild it.
# apt-get source needs deb-src entries; rather than edit the machine's apt
# configuration we derive them from the existing deb entries into a private
# apt state under $OUT/apt and leave /etc/apt untouched.
#
# usage: libcap-musl.sh OUTDIR      -> OUTDIR/lib/libcap.a, OUTDIR/include/sys/capability.h
set -eu

out=${1:?usage: libcap-musl.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# libcap is built as its own Makefile builds it (its -O2, and the -fPIC it
# adds itself, which a static-pie link needs), constructor included. The
# recipe's description is kept next to the library, so that a change to it
# rebuilds it.
stamp="libcap's own flags, CC=musl-gcc"
[ -f "$out/lib/libcap.a" ] && [ -f "$out/include/sys/capability.h" ] &&
    [ "$(cat "$out/lib/stamp" 2>/dev/null)" = "$stamp" ] && exit 0

apt="$out/apt"

# Debian's libcap2 source, unpacked under $apt/src: fetched once, then
# reused when only the recipe changed.
fetch_source() {
    mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/archives/partial" "$apt/src"
    : >"$apt/sources.list"
    if [ -f /etc/apt/sources.list ]; then
        sed -n 's/^deb[[:space:]]/deb-src /p' /etc/apt/sources.list >"$apt/sources.list"
    fi
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        sed 's/^Types:.*/Types: deb-src/' "$f" >"$apt/sources.list.d/$(basename "$f")"
    done
    for f in /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n 's/^deb[[:space:]]/deb-src /p' "$f" >"$apt/sources.list.d/$(basename "$f")"
    done

    aptopts="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=$apt/sources.list.d \
     -o Dir::State::Lists=$apt/lists -o Dir::Cache::Archives=$apt/archives -o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    apt-get $aptopts -q update >"$apt/update.log" 2>&1 || { cat "$apt/update.log" >&2; exit 1; }
    # A mirror may list a source version (often the security one) whose files
    # it does not serve; try every version it lists until one downloads.
    # shellcheck disable=SC2086
    versions=$(apt-cache $aptopts showsrc libcap2 | sed -n 's/^Version: //p')
    ok=
    for v in $versions; do
        # shellcheck disable=SC2086
        if (cd "$apt/src" && apt-get $aptopts -q source "libcap2=$v") >>"$apt/source.log" 2>&1; then
            ok=$v; break
        fi
    done
    [ -n "$ok" ] || { cat "$apt/source.log" >&2; echo "libcap-musl: no libcap2 source could be fetched" >&2; exit 1; }
}

src=$(find "$apt/src" -maxdepth 1 -type d -name 'libcap2-*' 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
    fetch_source
    src=$(find "$apt/src" -maxdepth 1 -type d -name 'libcap2-*' | head -n 1)
fi
[ -n "$src" ] || { echo "libcap-musl: no unpacked libcap2 source in $apt/src" >&2; exit 1; }

# Only the static library is needed: no shared objects, no psx, no Go.
make -C "$src/libcap" -s clean >/dev/null 2>&1 || true
make -C "$src/libcap" -s CC=musl-gcc BUILD_CC=gcc AR=ar RANLIB=ranlib \
    SHARED=no PAM_CAP=no GOLANG=no USE_GPERF=no libcap.a >"$apt/build.log" 2>&1 ||
    { tail -n 40 "$apt/build.log" >&2; exit 1; }

# musl has no kernel headers; libcap ships the uapi ones it was written for.
mkdir -p "$out/lib" "$out/include/sys" "$out/include/linux"
cp "$src/libcap/include/uapi/linux/capability.h" "$out/include/linux/capability.h"
cp "$src/libcap/include/sys/capability.h" "$out/include/sys/capability.h"
cp "$src/libcap/libcap.a" "$out/lib/libcap.a"
echo "$stamp" >"$out/lib/stamp"
