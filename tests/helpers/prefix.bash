# The scratch install that tests/plugin.bats and tests/install-verb.bats
# share, for setup_file: one `make install` into $BATS_FILE_TMPDIR/prefix, as
# an operator would make it (-o: build/ as it is, since make test built it;
# no rebuild in the middle of a suite). The binary under test goes where
# make install put the release one, so that it is the one beside the
# plugin. Exports P (the prefix), SO (the installed plugin) and PDIR, with
# lo.env: the loopback NCCL's bootstrap takes, and a tuning key.
install_scratch_prefix() {
    [ -x "$REPO/build/nccl-init" ] && [ -f "$REPO/build/libnccl-env.so" ] ||
        { echo "build/nccl-init and build/libnccl-env.so must be built (make)" >&2; return 1; }
    export P=$BATS_FILE_TMPDIR/prefix
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$REPO" -o build/nccl-init \
        -o build/libnccl-env.so install PREFIX="$P" SYSCONFDIR="$BATS_FILE_TMPDIR/etc" >/dev/null
    install -m 0755 "$NI" "$P/bin/nccl-init"
    export SO=$P/lib/nccl-init/libnccl-env.so
    export PDIR=$BATS_FILE_TMPDIR/profiles
    mkdir -p "$PDIR"
    printf 'NCCL_SOCKET_IFNAME=lo\nNCCL_BUFFSIZE=8388608\n' >"$PDIR/lo.env"
}
