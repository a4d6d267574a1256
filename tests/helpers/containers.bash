# Shared by the bats files that build and run containers (container.bats,
# pasted.bats): a private containers storage under build/container, the
# Debian 12 base image made by mmdebstrap, the podman/buildah wrappers and
# the reason to skip when containers cannot run here.
#
# Everything lives under build/container: the base image's tarball (made once,
# ~20 s with a Debian mirror) and a private containers storage (graphroot)
# whose layer cache makes later builds take seconds; the machine's own
# container storage is not touched. Runtime state goes to /run, a private
# copy-on-write layer in scripts/sandbox.sh. rm -rf build/container resets it.
# Load it after helpers/common (REPO).

CDIR=$REPO/build/container
BASE=localhost/nccl-init-base:test
IMG_PARTS=localhost/nccl-init-parts:test
RUNROOT=/run/nccl-init-test-containers
# mmdebstrap's arguments; the tarball is made again when they change.
BASE_ARGS="--variant=apt --include=python3,procps bookworm"
MIRROR=${NCCL_INIT_TEST_MIRROR:-http://deb.debian.org/debian}

# podman without bats' fd 3: conmon outlives the command and would hold it,
# and bats waits for it to close.
pm() { podman "$@" 3>&-; }
bh() { buildah "$@" 3>&-; }
prun() { timeout 120 podman run --pull=never --network none "$@" 3>&-; }

# Builds an image with scripts/build-image.sh (buildah) on the local base.
# Fixed labels keep the layer cache valid from one run to the next.
build_image() {
    VCS_REF=test BUILD_DATE=1970-01-01T00:00:00Z "$REPO/scripts/build-image.sh" --engine buildah \
        --build-arg "BUILDER_IMAGE=$BASE" "$@" 3>&-
}

# The reason to skip, or nothing when containers can be built and run here.
container_env() {
    [ "$(id -u)" = 0 ] || { echo "needs root (rootful podman and buildah)"; return; }
    case ${NCCL_INIT_BIN:-$REPO/build/nccl-init} in
        "$REPO/build/nccl-init") ;;
        *) echo "runs once, in the pass with the release binary (the image builds its own nccl-init)"; return ;;
    esac
    local t missing=
    for t in podman buildah runc mmdebstrap; do
        command -v "$t" >/dev/null || missing+=" $t"
    done
    [ -z "$missing" ] || {
        echo "not installed:$missing (apt-get install podman buildah runc mmdebstrap)"
        return
    }

    # A private storage and configuration for podman and buildah.
    mkdir -p "$CDIR/storage" "$RUNROOT"
    cat >"$CDIR/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$CDIR/storage"
runroot = "$RUNROOT/storage"
EOF
    {
        echo "[containers]"
        # Without CAP_SYS_RESOURCE the runtime cannot raise the limits to
        # podman's defaults (1048576): stay within the hard limits.
        local capeff nofile nproc
        capeff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
        if (((16#$capeff >> 24 & 1) == 0)); then
            nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
            [ "$nofile" = unlimited ] && nofile=1048576
            { [ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ]; } && nproc=4096
            echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
        fi
        echo "[engine]"
        echo "runtime = \"runc\""
        echo "tmp_dir = \"$RUNROOT/libpod\""
        echo "events_logger = \"file\""
    } >"$CDIR/containers.conf"
    containers_setup

    local out
    out=$(pm info 2>&1 >/dev/null) || { echo "podman cannot start here: $(tail -n 1 <<<"$out")"; return; }

    # The base image: a tarball made once, imported when it is new; one run
    # at a time (make test in two shells of the same checkout).
    local tar=$CDIR/base.tar stamp lockfd
    exec {lockfd}>"$CDIR/.lock-base"
    flock -w 900 "$lockfd" || { echo "another test run holds $CDIR/.lock-base"; return; }
    if [ ! -s "$tar" ] || [ "$(cat "$tar.args" 2>/dev/null)" != "$BASE_ARGS $MIRROR" ]; then
        # shellcheck disable=SC2086
        if ! mmdebstrap --format=tar $BASE_ARGS "$tar.tmp" "$MIRROR" >"$CDIR/mmdebstrap.log" 2>&1; then
            rm -f "$tar.tmp"
            echo "mmdebstrap could not make the base image from $MIRROR, which is needed once" \
                "(build/container/mmdebstrap.log):" \
                "$(grep -m 1 -E '^(W|E): ' "$CDIR/mmdebstrap.log" || tail -n 1 "$CDIR/mmdebstrap.log")"
            return
        fi
        mv "$tar.tmp" "$tar"
        echo "$BASE_ARGS $MIRROR" >"$tar.args"
    fi
    stamp=$(stat -c %Y-%s "$tar")
    if [ "$(pm image inspect --format '{{index .Labels "nccl-init.test.tar"}}' "$BASE" 2>/dev/null)" != "$stamp" ]; then
        pm import --quiet --change "LABEL nccl-init.test.tar=$stamp" \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            "$tar" "$BASE" >/dev/null 2>"$CDIR/import.log" ||
            { echo "podman import failed: $(tail -n 1 "$CDIR/import.log")"; return; }
    fi
    exec {lockfd}>&-
    out=$(prun --rm "$BASE" python3 -c 'print("ok")' 2>&1) ||
        { echo "podman cannot run a container here: $(tail -n 1 <<<"$out")"; return; }
}

# setup_file of each file: the reason to skip, once, for all its tests.
containers_setup_file() {
    CONTAINER_SKIP=$(container_env)
    export CONTAINER_SKIP
    [ -n "$CONTAINER_SKIP" ] || return 0
    echo "# container tests skipped: $CONTAINER_SKIP" >&3
}

# setup of each test: podman and buildah on the private storage.
containers_setup() {
    export CONTAINERS_STORAGE_CONF=$CDIR/storage.conf CONTAINERS_CONF=$CDIR/containers.conf
    export BUILDAH_ISOLATION=chroot
}

# For the tests that build or run containers.
need_containers() {
    [ -z "${CONTAINER_SKIP:-}" ] || skip "$CONTAINER_SKIP"
}

need_image() {
    need_containers
    pm image exists "$1" || skip "$1 was not built (see the build test above)"
}

# Skips when a failed build was the mirror's fault, not the Dockerfile's.
skip_if_offline() {
    if grep -qE 'Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect' <<<"$output"; then
        skip "the builder stage needs a Debian mirror on its first build: $(grep -m 1 -E 'resolv|fetch|connect' <<<"$output")"
    fi
}
