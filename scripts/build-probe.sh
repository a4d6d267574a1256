#!/usr/bin/env bash
# build-probe.sh [OUTPUT]: builds nccl-probe (default build/nccl-probe) from
# probe/*.c and nccl-init's auto.rules engine and its printing
# (init/hw/detect.c, detect_print.c), its log (init/lib/log.c) and the
# helpers they use (mem.c, buf.c, text.c, fileio.c, sort.c) with gcc,
# against the CUDA runtime and libnccl.
#
# CUDA runtime: $CUDA_HOME (default /usr/local/cuda): include/cuda_runtime_api.h,
#   lib64/ or lib/ or targets/<arch>-linux/lib/ with libcudart.so; else a pip
#   nvidia-cuda-runtime wheel (site-packages/nvidia/cuda_runtime/{include,lib}).
# NCCL: $NCCL_HOME when set (include/nccl.h, lib/ or lib64/), else $CUDA_HOME,
#   else /usr/include + the multiarch lib dir (Debian's libnccl-dev), else a
#   pip nvidia-nccl wheel (site-packages/nvidia/nccl/{include,lib}).
# Without them it prints "skipped: ..." and exits 0, so that `make probe`
# passes on a machine without the toolkit. Rebuilds only when the source or
# this script is newer than OUTPUT (FORCE=1 rebuilds anyway).
set -euo pipefail
cd "$(dirname "$0")/.."

# detect's engine is linked, not copied: topo and suggest pick what
# nccl-init detect picks, and print it in its words, because they run its
# code. The log is nccl-init's too; the probe sets its own name on it.
init_srcs=(init/hw/detect.c init/hw/detect_print.c init/lib/log.c init/lib/mem.c init/lib/buf.c
    init/lib/text.c init/lib/fileio.c init/lib/sort.c)
init_hdrs=(init/hw/detect.h init/lib/mem.h init/lib/buf.h init/lib/text.h init/lib/fileio.h
    init/lib/sort.h init/lib/log.h init/lib/paths.h)
srcs=(probe/*.c "${init_srcs[@]}")
out=${1:-build/nccl-probe}
cuda=${CUDA_HOME:-/usr/local/cuda}
arch=$(uname -m)
multiarch=$(gcc -print-multiarch 2>/dev/null || echo "$arch-linux-gnu")

# The first DIR among the arguments that holds FILE.
first_with() {
    local file=$1 d
    shift
    for d in "$@"; do
        [ -e "$d/$file" ] && { echo "$d"; return 0; }
    done
    return 1
}

# site-packages/nvidia/NAME of the first python3 that has it.
wheel_dir() {
    local py
    for py in python3 /usr/bin/python3 /usr/local/bin/python3; do
        command -v "$py" >/dev/null 2>&1 || continue
        "$py" - "$1" 2>/dev/null <<'PY' && return 0
import os, site, sys
dirs = list(sys.path)
try:
    dirs += site.getsitepackages() + [site.getusersitepackages()]
except AttributeError:
    pass
for d in [os.path.abspath(d) for d in dirs if d]:
    p = os.path.join(d, "nvidia", sys.argv[1])
    if os.path.isdir(os.path.join(p, "include")) and os.path.isdir(os.path.join(p, "lib")):
        print(p)
        sys.exit(0)
sys.exit(1)
PY
    done
    return 1
}

cuda_libdirs=("$cuda/lib64" "$cuda/lib" "$cuda/targets/$arch-linux/lib")
cuda_inc='' cuda_lib=''
if [ -e "$cuda/include/cuda_runtime_api.h" ] && cuda_lib=$(first_with libcudart.so "${cuda_libdirs[@]}"); then
    cuda_inc=$cuda/include
elif w=$(wheel_dir cuda_runtime) && [ -e "$w/include/cuda_runtime_api.h" ]; then
    cuda_inc=$w/include
    cuda_lib=$w/lib
fi
if [ -z "$cuda_inc" ]; then
    echo "skipped: no CUDA toolkit/NCCL headers (no cuda_runtime_api.h and libcudart.so under CUDA_HOME=$cuda, nor a pip nvidia-cuda-runtime wheel)"
    exit 0
fi

nccl_inc='' nccl_lib=''
if [ -n "${NCCL_HOME:-}" ]; then
    if [ -e "$NCCL_HOME/include/nccl.h" ] &&
        nccl_lib=$(first_with libnccl.so "$NCCL_HOME/lib" "$NCCL_HOME/lib64" || first_with libnccl.so.2 "$NCCL_HOME/lib" "$NCCL_HOME/lib64"); then
        nccl_inc=$NCCL_HOME/include
    else
        echo "build-probe.sh: NCCL_HOME=$NCCL_HOME has no include/nccl.h with lib/libnccl.so" >&2
        exit 1
    fi
elif [ -e "$cuda_inc/nccl.h" ] && nccl_lib=$(first_with libnccl.so "$cuda_lib" "${cuda_libdirs[@]}"); then
    nccl_inc=$cuda_inc
elif [ -e /usr/include/nccl.h ] && nccl_lib=$(first_with libnccl.so "/usr/lib/$multiarch" /usr/lib64 /usr/lib); then
    nccl_inc=/usr/include
elif w=$(wheel_dir nccl) && [ -e "$w/include/nccl.h" ]; then
    nccl_inc=$w/include
    nccl_lib=$w/lib
fi
if [ -z "$nccl_inc" ]; then
    echo "skipped: no CUDA toolkit/NCCL headers (nccl.h and libnccl.so not found: set NCCL_HOME, or install NCCL under CUDA_HOME=$cuda or the nvidia-nccl wheel)"
    exit 0
fi

# The wheels ship libnccl.so.2 / libcudart.so.N without the unversioned link.
link_lib() {
    local dir=$1 name=$2 f
    if [ -e "$dir/lib$name.so" ]; then
        echo "-l$name"
        return
    fi
    for f in "$dir"/lib"$name".so.*; do
        [ -e "$f" ] && { echo "-l:$(basename "$f")"; return; }
    done
    echo "-l$name"
}

newest=$(ls -t probe/* "${init_srcs[@]}" "${init_hdrs[@]}" "$0" | head -n 1)
if [ -z "${FORCE:-}" ] && [ -x "$out" ] && [ "$out" -nt "$newest" ]; then
    echo "$out: up to date"
    exit 0
fi

mkdir -p "$(dirname "$out")"
# -isystem: the vendor headers are not held to our warnings (nccl.h declares
# ncclGroupStart() without a prototype).
inc=(-Iinit -isystem "$nccl_inc")
[ "$cuda_inc" = "$nccl_inc" ] || inc+=(-isystem "$cuda_inc")
lib=(-L"$nccl_lib" "-Wl,-rpath,$nccl_lib")
[ "$cuda_lib" = "$nccl_lib" ] || lib+=(-L"$cuda_lib" "-Wl,-rpath,$cuda_lib")
cmd=(gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
    "${inc[@]}" -o "$out.tmp" "${srcs[@]}" "${lib[@]}"
    "$(link_lib "$nccl_lib" nccl)" "$(link_lib "$cuda_lib" cudart)")
echo "${cmd[*]}"
"${cmd[@]}"
mv -f "$out.tmp" "$out"
echo "$out: CUDA runtime from $cuda_lib, NCCL from $nccl_lib"
