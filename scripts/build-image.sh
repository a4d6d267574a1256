#!/usr/bin/env bash
# build-image.sh: build the nccl-init image (make image).
#
# usage: build-image.sh [--variant sglang|vllm|parts] [--engine docker|buildah]
#                       [-t TAG] [--build-arg NAME=VALUE]... [-- ENGINE-OPTIONS...]
#
# With docker when a daemon answers (docker info), else with buildah
# (--isolation chroot unless BUILDAH_ISOLATION says otherwise: it needs no
# runtime and works inside a container). The context is the repository root;
# the Dockerfile is docker/Dockerfile (SGLang) or docker/Dockerfile.vllm; parts
# is docker/Dockerfile's "parts" stage alone (FROM scratch: the binary, the
# env plugin and the profiles, for COPY --from=IMAGE / / into any image).
# Build arguments of interest: BASE_IMAGE, BUILDER_IMAGE, NCCL_INIT_PROFILE.
# Environment: VARIANT, ENGINE, IMAGE (the tag), as the options; and
# BASE_IMAGE, BUILDER_IMAGE, NCCL_INIT_PROFILE, each passed on as the build
# argument of that name when set (make image BASE_IMAGE=... puts them here);
# a --build-arg of the same name comes after, so it wins.
set -euo pipefail
cd "$(dirname "$0")/.."

variant=${VARIANT:-sglang}
engine=${ENGINE:-}
tag=${IMAGE:-}
args=()
extra=()

usage() {
    sed -n '4,5p' "$0" | sed 's/^# //' >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
        --variant) variant=${2:?}; shift 2 ;;
        --engine) engine=${2:?}; shift 2 ;;
        -t | --tag) tag=${2:?}; shift 2 ;;
        --build-arg) args+=(--build-arg "${2:?}"); shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -h | --help) usage ;;
        *) echo "build-image.sh: unknown argument '$1'" >&2; usage ;;
    esac
done

target=()
case $variant in
    sglang) file=docker/Dockerfile ;;
    vllm) file=docker/Dockerfile.vllm ;;
    parts) file=docker/Dockerfile target=(--target parts) ;;
    *) echo "build-image.sh: --variant is sglang, vllm or parts, not '$variant'" >&2; exit 2 ;;
esac
tag=${tag:-nccl-init-$variant:latest}

if [ -z "$engine" ]; then
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
        engine=docker
    elif command -v buildah >/dev/null; then
        engine=buildah
    else
        echo "build-image.sh: no docker daemon answers 'docker info' and buildah is not installed" >&2
        echo "  (apt-get install buildah, or start dockerd)" >&2
        exit 1
    fi
fi

# Labels: the commit and the date, unless given.
rev=${VCS_REF:-}
if [ -z "$rev" ] && git rev-parse --git-dir >/dev/null 2>&1; then
    rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    git diff --quiet HEAD -- 2>/dev/null || rev+=-dirty
fi
from_env=()
for v in BASE_IMAGE BUILDER_IMAGE NCCL_INIT_PROFILE; do
    [ -z "${!v:-}" ] || from_env+=(--build-arg "$v=${!v}")
done
args=(--build-arg "VCS_REF=${rev:-unknown}"
      --build-arg "BUILD_DATE=${BUILD_DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}" "${from_env[@]}" "${args[@]}")

echo "build-image.sh: $engine, $file -> $tag" >&2
case $engine in
    docker)
        exec docker build -f "$file" "${target[@]}" -t "$tag" "${args[@]}" "${extra[@]}" .
        ;;
    buildah)
        # --layers: cache each step, as docker does (the builder's apt-get
        # and libcap steps are then done once).
        exec buildah bud --isolation "${BUILDAH_ISOLATION:-chroot}" --layers \
            -f "$file" "${target[@]}" -t "$tag" "${args[@]}" "${extra[@]}" .
        ;;
    *)
        echo "build-image.sh: --engine is docker or buildah, not '$engine'" >&2
        exit 2
        ;;
esac
