# Shared by the GPU suites (tests/gpu/*.bats).

# Why there is no usable GPU here, or nothing (and status 1) when there is.
no_gpu_reason() {
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && return 1
        echo "no GPU: nvidia-smi lists none ($(nvidia-smi -L 2>&1 | head -n1))"
        return 0
    fi
    if [ -e /dev/nvidiactl ] && compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
        return 1
    fi
    echo "no GPU: no /dev/nvidiactl and no working nvidia-smi"
}
