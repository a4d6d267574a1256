#!/usr/bin/env bats
# bats file_tags=container
#
# The images of docker/ built and run for real, without a registry: a glibc
# Debian 12 base made by mmdebstrap stands in for the CUDA/SGLang base and
# serves as the builder, buildah (--isolation chroot) builds docker/Dockerfile
# and docker/Dockerfile.vllm on it, podman with runc runs the results. Plus the
# static checks of the Kubernetes manifests and of scripts/build-image.sh.
#
# The storage under build/container, the base image and the podman/buildah
# wrappers are shared with tests/pasted.bats: tests/helpers/containers.bash.
#
# When podman, buildah or mmdebstrap are missing or cannot run here, every
# test that builds or runs a container is skipped with the reason (the
# docker test also needs Debian's dockerd). Those run once, in run-tests.sh's
# pass with the release binary: the image has its own build of nccl-init.

load helpers/common
load helpers/containers

STANDIN=localhost/nccl-init-standin:test
IMG=localhost/nccl-init-sglang:test
IMG_PCIE=localhost/nccl-init-sglang-pcie:test
IMG_NV=localhost/nccl-init-sglang-nv:test
IMG_VLLM=localhost/nccl-init-vllm:test
IMG_TAKER=localhost/nccl-init-taker:test

setup_file() {
    containers_setup_file
}

setup() {
    containers_setup
    NAME=nccl-init-test-$$-$BATS_TEST_NUMBER
    TMP=$(mktemp -d)
}

teardown() {
    if [ -n "$DOCKERD_PID" ]; then
        dk rm -f "$NAME" >/dev/null 2>&1 || true
        stop_dockerd
        exec {DOCKER_LOCK}>&-
    elif [ -z "${CONTAINER_SKIP:-}" ]; then
        pm rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
    fi
    rm -rf "${TMP:-/nonexistent}"
}

@test "docker/Dockerfile builds with buildah on a local base (the builder stage compiles nccl-init)" {
    need_containers
    local t0=$SECONDS
    run build_image -t "$IMG" --build-arg "BASE_IMAGE=$BASE"
    echo "$output"
    [ "$status" = 0 ] || skip_if_offline
    assert_success
    echo "# build: $((SECONDS - t0)) s" >&3
    run pm image inspect --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}} {{.Config.StopSignal}}' "$IMG"
    assert_output '["/usr/local/bin/nccl-init","--","/usr/local/bin/nccl-init-entrypoint"] ["python3","-m","sglang.launch_server"] SIGTERM'
    run pm image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMG"
    assert_line NCCL_INIT_PROFILE=auto
    run pm image inspect --format '{{range $k, $v := .Labels}}{{println $k $v}}{{end}}' "$IMG"
    assert_line "org.opencontainers.image.base.name $BASE"
    assert_line "org.opencontainers.image.revision test"
    assert_line --regexp '^org.opencontainers.image.version [0-9]+\.[0-9]+\.[0-9]+$'
    assert_line --partial "org.opencontainers.image.title "
    # the one binary runs every verb (detect among them), the profiles are in place
    run prun --rm --entrypoint /bin/sh "$IMG" -c \
        'ls /etc/nccl-init/profiles; /usr/local/bin/nccl-init --version; /usr/local/bin/nccl-init detect --json >/dev/null && echo tools-ok'
    assert_success
    assert_line pcie-8gpu.env
    assert_line auto.rules
    assert_line tools-ok
    # nccl-init install at build time: NCCL's env plugin linked onto the
    # loader's path, the hook in the stdlib, no value in it
    run prun --rm --entrypoint /bin/sh "$IMG" -c \
        'readlink /usr/lib/*-linux-gnu/libnccl-env.so; grep -c "^# BEGIN nccl-init" /etc/python3.*/sitecustomize.py; grep -c "NCCL_PROTO" /etc/python3.*/sitecustomize.py'
    assert_line --index 0 /usr/local/lib/nccl-init/libnccl-env.so
    assert_line --index 1 1
    assert_line --index 2 0
}

@test "make image VARIANT=parts: FROM scratch, nothing but the binary, the plugin and the profiles; one COPY --from= puts them into another image" {
    need_image "$IMG"
    run build_image --variant parts -t "$IMG_PARTS"
    assert_success
    pm rm -f "$NAME" >/dev/null 2>&1 || true
    pm create --name "$NAME" "$IMG_PARTS" /usr/local/bin/nccl-init >/dev/null
    run bash -c "podman export '$NAME' 3>&- | tar -t | grep -v '/\$' | sort"
    pm rm -f "$NAME" >/dev/null
    local want
    want=$(cd "$REPO/profiles" && for f in *.env auto.rules; do echo "etc/nccl-init/profiles/$f"; done
        echo usr/local/bin/nccl-init
        echo usr/local/lib/nccl-init/libnccl-env.so)
    assert_output "$(sort <<<"$want")"
    # another image, with the README's line
    printf 'FROM %s\nCOPY --from=%s / /\n' "$BASE" "$IMG_PARTS" >"$TMP/Containerfile"
    run bh bud --isolation chroot --layers -q -f "$TMP/Containerfile" -t "$IMG_TAKER" "$TMP"
    assert_success
    run prun --rm "$IMG_TAKER" /usr/local/bin/nccl-init render -q -p pcie-8gpu --format env
    assert_success
    assert_line NCCL_PROTO=LL
    run prun --rm "$IMG_TAKER" stat -c '%a %U %n' /usr/local/lib/nccl-init/libnccl-env.so /usr/local/bin/nccl-init /etc /usr/local
    assert_line --regexp '^(644|755) root /usr/local/lib/nccl-init/libnccl-env.so$'
    assert_line '755 root /usr/local/bin/nccl-init'
    assert_line '755 root /etc'
    assert_line '755 root /usr/local'
}

@test "the ENTRYPOINT runs CMD overrides under nccl-init as PID 1; -e NCCL_INIT_PROFILE picks the profile" {
    need_image "$IMG"
    # default: auto, and no GPU here
    run --separate-stderr prun --rm "$IMG" env
    assert_success
    assert_line NCCL_INIT_PROFILE=none
    refute_line --regexp '^NCCL_PROTO='
    [[ "$stderr" == *"nccl-init: auto: 0 GPUs"*"none (no NVIDIA GPU visible to this container)"* ]]

    run --separate-stderr prun --rm -e NCCL_INIT_PROFILE=pcie-8gpu "$IMG" env
    assert_success
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
    assert_line --regexp '^NCCL_INIT_DIGEST=[0-9a-f]{64}$'
    assert_line NCCL_PROTO=LL
    assert_line NCCL_ALGO=Ring
    assert_line NCCL_P2P_LEVEL=SYS
    assert_line NCCL_MAX_NCHANNELS=16
    assert_line NCCL_BUFFSIZE=16777216
    [[ "$stderr" == *"nccl-init: profile pcie-8gpu: 5 variables"* ]]

    # PID 1 is nccl-init, the wrapper exec'd the command (no shell left)
    run --separate-stderr prun --rm "$IMG" python3 -c '
import os
print(open("/proc/1/cmdline").read().split("\0")[0])
print(open("/proc/%d/cmdline" % os.getppid()).read().split("\0")[0])'
    assert_success
    assert_line --index 0 /usr/local/bin/nccl-init
    assert_line --index 1 /usr/local/bin/nccl-init
    # an operator's value wins and is logged
    run --separate-stderr prun --rm -e NCCL_INIT_PROFILE=pcie-8gpu -e NCCL_ALGO=Tree "$IMG" printenv NCCL_ALGO
    assert_output Tree
    [[ "$stderr" == *"1 override: NCCL_ALGO=Tree from the environment"* ]]
    # the command's status comes back; an invalid profile starts nothing
    run prun --rm "$IMG" sh -c 'exit 7'
    assert_failure 7
    run --separate-stderr prun --rm -e NCCL_INIT_PROFILE=no-such-profile "$IMG" echo started
    assert_failure 2
    refute_output --partial started
}

@test "the profile is a build argument; a profile that does not exist fails the build" {
    need_image "$IMG"
    run build_image -t "$IMG_PCIE" --build-arg "BASE_IMAGE=$BASE" --build-arg NCCL_INIT_PROFILE=pcie-8gpu
    assert_success
    run --separate-stderr prun --rm "$IMG_PCIE" printenv NCCL_INIT_PROFILE NCCL_PROTO
    assert_success
    assert_output $'pcie-8gpu\nLL'
    # and the run-time environment still changes it
    run --separate-stderr prun --rm -e NCCL_INIT_PROFILE=none "$IMG_PCIE" printenv NCCL_INIT_PROFILE
    assert_output none

    run build_image -t localhost/nccl-init-typo:test --build-arg "BASE_IMAGE=$BASE" \
        --build-arg NCCL_INIT_PROFILE=pcie-8gpx
    assert_failure
    assert_output --partial pcie-8gpx
    run pm image exists localhost/nccl-init-typo:test
    assert_failure
}

@test "the spawn demo inside the container: all 8 workers ✓ (4 of 8 without nccl-init)" {
    need_image "$IMG"
    local demo=(-v "$REPO/scripts/demo-server.py:/demo/demo-server.py:ro")
    local prof=/etc/nccl-init/profiles/pcie-8gpu.env
    run prun --rm -e NCCL_INIT_PROFILE=pcie-8gpu "${demo[@]}" "$IMG" python3 /demo/demo-server.py "$prof"
    echo "$output"
    assert_success
    assert_line --partial "8 of 8 workers have all 5 values"
    [ "$(grep -c '✓$' <<<"$output")" = 8 ]
    refute_output --partial '✗'

    # the same server started directly with the five variables: the scrubbed
    # workers lose them (the before of make demo)
    local envs=() kv
    while IFS= read -r kv; do envs+=(-e "$kv"); done < <(grep -E '^NCCL_' "$REPO/profiles/pcie-8gpu.env")
    run prun --rm --entrypoint python3 "${envs[@]}" "${demo[@]}" "$IMG" /demo/demo-server.py "$prof"
    echo "$output"
    assert_success
    assert_line --partial "4 of 8 workers have all 5 values"
}

# Starts helpers/tree.py detached in NAME (4 spawn workers, 2 of them from a
# scrubbed environment); waits until its workers run.
start_tree() {
    pm run -d --pull=never --network none --name "$NAME" -e NCCL_INIT_PROFILE=pcie-8gpu \
        -v "$REPO/tests/helpers:/helpers:ro" "$IMG" python3 /helpers/tree.py /tmp/ready 4 >/dev/null
    local _
    for _ in $(seq 200); do
        pm exec "$NAME" test -e /tmp/ready 2>/dev/null && return 0
        sleep 0.1
    done
    pm logs "$NAME" >&2
    return 1
}

@test "podman exec CONTAINER nccl-init verify exits 0 while a Python tree runs" {
    need_image "$IMG"
    start_tree
    run --separate-stderr pm exec "$NAME" nccl-init verify
    echo "$output"
    assert_success
    assert_line --regexp '^PID +COMMAND +ALGO +BUFFSIZE +MAX_NCHANN +P2P_LEVEL +PROTO'
    read -r w1 w2 w3 w4 < <(pm exec "$NAME" cat /tmp/ready)
    assert_line --regexp "^$w1 +python3 +env +env +env +env +env"
    assert_line --regexp "^$w4 +python3 +site +site +site +site +site"
    assert_line --regexp "^6 processes checked, 6 with every value \(profile pcie-8gpu, digest [0-9a-f]{12}\)$"
    # what an exec'd shell and a login see
    run pm exec "$NAME" sh -c '. /etc/environment; echo $NCCL_PROTO; cat /run/nccl-init/profile.env'
    assert_line --index 0 LL
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
}

# The stop scenario with ENGINE (pm or dk): the server's main process dies at
# once on SIGTERM; its worker (same process group) takes 0.5 s to clean up and
# must be let finish, with the exit status 143 (the main child's), well within
# the image's grace (8 s) and the engine's 10 s.
stop_scenario() {
    local engine=$1 image=$2
    local worker='
import signal, sys, time
def stop(s, f):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(0.5)
    print("worker: cleanup done", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("worker: ready", flush=True)
while True:
    time.sleep(1)'
    local main="
import subprocess, sys, time
subprocess.Popen([sys.executable, '-c', '''$worker'''])
time.sleep(3600)"
    "$engine" run -d --network none --name "$NAME" "$image" python3 -c "$main" >/dev/null
    local _
    for _ in $(seq 100); do
        "$engine" logs "$NAME" 2>/dev/null | grep -q 'worker: ready' && break
        sleep 0.1
    done
    local t0 t1
    t0=$(date +%s%N)
    run "$engine" stop -t 10 "$NAME"
    t1=$(date +%s%N)
    assert_success
    local ms=$(((t1 - t0) / 1000000))
    echo "# $engine stop took $ms ms" >&3
    run "$engine" logs "$NAME"
    echo "$output"
    assert_line "worker: cleanup done"
    refute_output --partial "grace time"
    run "$engine" inspect --format '{{.State.ExitCode}}' "$NAME"
    assert_output 143
    [ "$ms" -ge 500 ]
    [ "$ms" -lt 5000 ]
}

@test "podman stop: a worker's 0.5 s cleanup finishes within the grace, exit 143" {
    need_image "$IMG"
    stop_scenario pm "$IMG"
}

@test "--read-only root: warnings for the sinks, and the server still starts" {
    need_image "$IMG"
    run --separate-stderr prun --rm --read-only -e NCCL_INIT_PROFILE=pcie-8gpu "$IMG" \
        python3 -c 'import os; print("server started", os.environ["NCCL_PROTO"])'
    echo "$stderr"
    assert_success
    assert_output "server started LL"
    [[ "$stderr" == *"warning: sink etc-environment: /etc/environment: "*"Read-only file system; skipped"* ]]
    [[ "$stderr" == *"warning: sink nccl-conf: /etc/nccl.conf: "*"Read-only file system; skipped"* ]]
    # the hook baked by install is current: read, not written, no warning
    [[ "$stderr" != *"warning: sink python"* ]]
}

# The real libnccl 2.28.9 of this machine, bind-mounted into the image,
# up to ncclGetUniqueId (no GPU): with the root read-only, /etc/nccl.conf
# cannot name the plugin, and NCCL's own dlopen("libnccl-env.so") finds it
# through the link nccl-init install made at build time. The record is on the /run tmpfs podman gives
# a read-only container.
@test "--read-only root: NCCL loads the env plugin by itself, and an env -i process gets the profile" {
    need_image "$IMG"
    local lib=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$lib" ] || skip "no libnccl.so.2 on this machine"
    printf 'NCCL_SOCKET_IFNAME=lo\nNCCL_PROTO=LL\n' >"$TMP/lo.env"
    run --separate-stderr prun --rm --read-only -e NCCL_INIT_PROFILE=/profiles/lo.env \
        -v "$TMP:/profiles:ro" -v "$lib:/opt/nccl/libnccl.so.2:ro" -v "$REPO/tests/helpers:/helpers:ro" \
        "$IMG" env -i NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV \
        /usr/bin/python3 -S /helpers/nccl-conf-probe.py /opt/nccl/libnccl.so.2 NCCL_SOCKET_IFNAME
    echo "$output"
    echo "$stderr"
    assert_success
    [[ "$stderr" == *"warning: sink nccl-conf: /etc/nccl.conf: "*"Read-only file system; skipped"* ]]
    assert_output --partial "ENV/Plugin: Using nccl-init (v1)"
    # the link install made, as the loader found it (/lib is /usr/lib here)
    assert_output --regexp "Successfully loaded external env plugin (/usr)?/lib/[^ ]+-linux-gnu/libnccl-env\.so"
    assert_output --partial "NCCL_SOCKET_IFNAME set by environment to lo"
    # NCCL had it from the plugin: the process's environment never did
    assert_line "NCCL_SOCKET_IFNAME unset"
}

# The hardened shape of a production pod (spec: Kubernetes' restricted
# profile): non-root, a read-only root, no capabilities, no new privileges,
# and the record directory a 0777 tmpfs, as an emptyDir is (kubernetes#76158).
# The image was baked with nccl-init install; nccl-init writes only the
# record. The tree: 4 spawn workers, 2 of them from a scrubbed parent
# (helpers/tree.py); then a scrubbed process with the machine's libnccl.
@test "hardened: --read-only, --user 65532:65532, no capabilities, a 0777 tmpfs record directory: workers get the profile, verify exits 0, NCCL says so" {
    need_image "$IMG"
    local lib=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$lib" ] || skip "no libnccl.so.2 on this machine"
    printf 'NCCL_SOCKET_IFNAME=lo\n' >"$TMP/lo.env"
    chmod 755 "$TMP"
    chmod 644 "$TMP/lo.env"
    pm run -d --pull=never --network none --name "$NAME" --read-only --user 65532:65532 \
        --cap-drop ALL --security-opt no-new-privileges --tmpfs /run/nccl-init:rw,mode=0777 \
        -e NCCL_INIT_PROFILE=pcie-8gpu,/profiles/lo.env -v "$TMP:/profiles:ro" \
        -v "$lib:/opt/nccl/libnccl.so.2:ro" -v "$REPO/tests/helpers:/helpers:ro" \
        "$IMG" python3 /helpers/tree.py /tmp/ready 4 >/dev/null
    local _
    for _ in $(seq 200); do
        pm exec "$NAME" test -e /tmp/ready 2>/dev/null && break
        sleep 0.1
    done
    run pm logs "$NAME"
    echo "$output"
    # only what a read-only root refuses; the record and the baked parts hold
    refute_output --partial "sink record"
    refute_output --partial "sink python"
    run pm exec "$NAME" stat -c '%a %u %h %n' /run/nccl-init /run/nccl-init/profile.env
    assert_line '777 0 2 /run/nccl-init'
    assert_line '644 65532 1 /run/nccl-init/profile.env'
    run --separate-stderr pm exec "$NAME" nccl-init verify
    echo "$output"
    assert_success
    read -r w1 w2 w3 w4 < <(pm exec "$NAME" cat /tmp/ready)
    assert_line --regexp "^$w4 +python3 +site +site +site +site +site +site"
    assert_line --regexp "^6 processes checked, 6 with every value \(profile pcie-8gpu,lo, digest [0-9a-f]{12}\)$"
    # a scrubbed process, with no NCCL_ENV_PLUGIN and no nccl.conf: NCCL
    # loads the plugin through the installed link and takes the record's
    # value, which the process's environment never had
    run pm exec "$NAME" env -i NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV \
        /usr/bin/python3 -S /helpers/nccl-conf-probe.py /opt/nccl/libnccl.so.2 NCCL_SOCKET_IFNAME
    echo "$output"
    assert_success
    assert_output --partial "ENV/Plugin: Using nccl-init (v1)"
    assert_output --partial "nccl-init: 6 values from /run/nccl-init/profile.env (profile pcie-8gpu,lo"
    assert_output --partial "NCCL_SOCKET_IFNAME set by environment to lo"
    assert_line "NCCL_SOCKET_IFNAME unset"
}

@test "--user 65532: the command runs, the sinks that need root are skipped with warnings" {
    need_image "$IMG"
    run --separate-stderr prun --rm --user 65532 -e NCCL_INIT_PROFILE=pcie-8gpu "$IMG" \
        sh -c 'id -u; printenv NCCL_PROTO'
    echo "$stderr"
    assert_success
    assert_output $'65532\nLL'
    [[ "$stderr" == *"warning: sink etc-environment: /etc/environment: "*"Permission denied; skipped"* ]]
    [[ "$stderr" == *"warning: sink nccl-conf: /etc/nccl.conf: "*"Permission denied; skipped"* ]]
    [[ "$stderr" != *"warning: sink python"* ]]
    [[ "$stderr" == *"warning: sink record: /run/nccl-init: "*"Permission denied; skipped"* ]]
    # and nothing worse than warnings
    [[ "$stderr" != *error* ]]
}

@test "--cap-drop ALL: every sink is written, the command runs without capabilities" {
    need_image "$IMG"
    run --separate-stderr prun --rm --cap-drop ALL -e NCCL_INIT_PROFILE=pcie-8gpu "$IMG" sh -c '
        awk "/^CapEff:/ { print \$2 }" /proc/self/status
        env -i /usr/bin/python3 -c "import os; print(os.environ.get(\"NCCL_PROTO\"))"
        grep -c "^NCCL_PROTO=LL$" /etc/nccl.conf
        grep -c "^NCCL_PROTO=LL$" /run/nccl-init/profile.env
        grep "^NCCL_ENV_PLUGIN=" /etc/nccl.conf'
    echo "$stderr"
    assert_success
    assert_line --index 0 0000000000000000
    # a Python started with an empty environment gets the value from the hook
    assert_line --index 1 LL
    assert_line --index 2 1
    assert_line --index 3 1
    # the nccl.conf block names the plugin installed beside the binary
    assert_line --index 4 NCCL_ENV_PLUGIN=/usr/local/lib/nccl-init/libnccl-env.so
    [[ "$stderr" != *"warning: sink"* ]]
}

# A stand-in for the CUDA-based images: NVIDIA's entrypoint wrapper (it marks
# the environment and execs its arguments, as the real one does after its
# banner) and a "vllm" console script, with vLLM's ENTRYPOINT.
build_standin() {
    mkdir -p "$TMP/standin"
    cat >"$TMP/standin/nvidia_entrypoint.sh" <<'EOF'
#!/bin/bash
echo "== CUDA (stand-in for /opt/nvidia/nvidia_entrypoint.sh) ==" >&2
export NVIDIA_ENTRYPOINT_RAN=1
exec "$@"
EOF
    cat >"$TMP/standin/vllm" <<'EOF'
#!/usr/bin/python3
import os, sys
print("argv:", " ".join(sys.argv[1:]))
print("NCCL_PROTO:", os.environ.get("NCCL_PROTO"))
print("nvidia entrypoint:", os.environ.get("NVIDIA_ENTRYPOINT_RAN", "no"))
print("ppid cmd:", open("/proc/%d/cmdline" % os.getppid()).read().split("\0")[0])
EOF
    chmod 755 "$TMP/standin/nvidia_entrypoint.sh" "$TMP/standin/vllm"
    cat >"$TMP/standin/Containerfile" <<EOF
FROM $BASE
COPY nvidia_entrypoint.sh /opt/nvidia/nvidia_entrypoint.sh
COPY vllm /usr/local/bin/vllm
ENTRYPOINT ["vllm", "serve"]
EOF
    # touch: the same mtimes every run, so the layer cache holds
    touch -d @0 "$TMP/standin"/*
    bh bud --isolation chroot --layers -q -f "$TMP/standin/Containerfile" -t "$STANDIN" "$TMP/standin" >/dev/null
}

@test "on a CUDA-style base NVIDIA's entrypoint stays in the chain, below nccl-init" {
    need_image "$IMG"
    build_standin
    run build_image -t "$IMG_NV" --build-arg "BASE_IMAGE=$STANDIN"
    assert_success
    run --separate-stderr prun --rm -e NCCL_INIT_PROFILE=pcie-8gpu "$IMG_NV" \
        sh -c 'printenv NVIDIA_ENTRYPOINT_RAN NCCL_PROTO; tr "\0" " " </proc/1/cmdline'
    assert_success
    assert_line --index 0 1
    assert_line --index 1 LL
    assert_line --index 2 --partial "/usr/local/bin/nccl-init -- /usr/local/bin/nccl-init-entrypoint sh -c"
    [[ "$stderr" == *"== CUDA (stand-in"* ]]
}

# A base with its own libnccl in the loader's cache: the build checks the
# profiles against it (its names here lack NCCL_PROTO: a warning), and one
# that check refuses fails the build.
@test "the build checks the profiles against the base's own libnccl, and fails when that check does" {
    need_image "$IMG"
    mkdir -p "$TMP/base"
    # a salt: a base of its own each run, so that the final stage's steps
    # run (and print) instead of coming from the layer cache
    printf 'const char *v = "NCCL version 2.27.3+cuda12.9";\nconst char *n[] = { "NCCL_ALGO", "NCCL_BUFFSIZE", "NCCL_DEBUG" };\nconst char *salt = "%s";\n' \
        "$$-$RANDOM-$(date +%s%N)" >"$TMP/base/fake.c"
    gcc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$TMP/base/libnccl.so.2" "$TMP/base/fake.c"
    printf 'FROM %s\nCOPY libnccl.so.2 /usr/local/lib/libnccl.so.2\nRUN ["ldconfig"]\n' "$BASE" >"$TMP/base/Containerfile"
    bh bud --isolation chroot --layers -q -f "$TMP/base/Containerfile" -t localhost/nccl-init-ncclbase:test "$TMP/base" >/dev/null
    run build_image -t localhost/nccl-init-on-ncclbase:test --build-arg BASE_IMAGE=localhost/nccl-init-ncclbase:test
    echo "$output"
    assert_success
    assert_output --partial "nccl-init-check-base: checking /etc/nccl-init/profiles/*.env against /usr/local/lib/libnccl.so.2"
    assert_output --regexp "pcie-8gpu\.env:[0-9]+: warning: unknown NCCL variable NCCL_PROTO"
    # a libnccl.so.2 with no NCCL_* name at all: check refuses it (exit 2)
    printf 'const char *salt = "%s";\n' "$$-$RANDOM-$(date +%s%N)" >"$TMP/base/fake.c"
    gcc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$TMP/base/libnccl.so.2" "$TMP/base/fake.c"
    bh bud --isolation chroot --layers -q -f "$TMP/base/Containerfile" -t localhost/nccl-init-ncclbase:test "$TMP/base" >/dev/null
    run build_image -t localhost/nccl-init-on-ncclbase:test --build-arg BASE_IMAGE=localhost/nccl-init-ncclbase:test
    assert_failure
    assert_output --partial "error: --nccl-lib /usr/local/lib/libnccl.so.2: no NCCL_* names in it"
}

@test "docker/Dockerfile.vllm: nccl-init -- vllm serve, no CMD: the container's arguments are vLLM's" {
    need_image "$IMG"
    build_standin
    run build_image --variant vllm -t "$IMG_VLLM" --build-arg "BASE_IMAGE=$STANDIN"
    assert_success
    run pm image inspect --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}}' "$IMG_VLLM"
    assert_output '["/usr/local/bin/nccl-init","--","vllm","serve"] null'
    run --separate-stderr prun --rm -e NCCL_INIT_PROFILE=pcie-8gpu "$IMG_VLLM" --model m --tensor-parallel-size 8
    echo "$stderr"
    assert_success
    assert_line "argv: serve --model m --tensor-parallel-size 8"
    assert_line "NCCL_PROTO: LL"
    assert_line "ppid cmd: /usr/local/bin/nccl-init"
    # vLLM's image does not run NVIDIA's wrapper; neither does this one
    assert_line "nvidia entrypoint: no"
    run prun --rm "$IMG_VLLM"
    assert_line "argv: serve"
}

# Debian's dockerd on a private socket, without iptables or a bridge; its
# data-root (and so its layer cache) under build/container, its exec-root in
# the sandbox's /run. Stopped by its pid in teardown.
DOCKERD_PID=
start_dockerd() {
    DEXEC=/run/nccl-init-test-docker
    mkdir -p "$CDIR/docker" "$DEXEC"
    export DOCKER_HOST=unix://$DEXEC/docker.sock
    dockerd --data-root "$CDIR/docker" --exec-root "$DEXEC" --pidfile "$DEXEC/dockerd.pid" -H "$DOCKER_HOST" \
        --iptables=false --ip6tables=false --bridge=none --ip-masq=false >"$CDIR/dockerd.log" 2>&1 3>&- \
        {DOCKER_LOCK}>&- &
    DOCKERD_PID=$!
    local _
    for _ in $(seq 150); do
        dk info >/dev/null 2>&1 && return 0
        kill -0 "$DOCKERD_PID" 2>/dev/null || break
        sleep 0.2
    done
    stop_dockerd
    skip "dockerd does not start here: $(grep -m 1 -iE 'level=(fatal|error)' "$CDIR/dockerd.log" ||
        tail -n 1 "$CDIR/dockerd.log")"
}

stop_dockerd() {
    [ -n "$DOCKERD_PID" ] || return 0
    kill -TERM "$DOCKERD_PID" 2>/dev/null || true
    local _
    for _ in $(seq 100); do
        kill -0 "$DOCKERD_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$DOCKERD_PID" 2>/dev/null || true
    wait "$DOCKERD_PID" 2>/dev/null || true
    DOCKERD_PID=
}

dk() { timeout 120 docker "$@" 3>&-; }

@test "docker: make image's script builds with a reachable dockerd; docker run and docker stop" {
    need_containers
    [ -x /usr/sbin/dockerd ] || skip "Debian's dockerd is not installed (apt-get install docker.io)"
    # one dockerd at a time on the shared data-root
    exec {DOCKER_LOCK}>"$CDIR/.lock-docker"
    flock -w 900 "$DOCKER_LOCK"
    # Debian's client, which matches its daemon (a newer client without
    # buildx cannot use the classic builder by default)
    export PATH=/usr/sbin:/usr/bin:$PATH
    start_dockerd
    local stamp
    stamp=$(stat -c %Y-%s "$CDIR/base.tar")
    if [ "$(dk image inspect --format '{{index .Config.Labels "nccl-init.test.tar"}}' "$BASE" 2>/dev/null)" != "$stamp" ]; then
        dk import --change "LABEL nccl-init.test.tar=$stamp" \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            "$CDIR/base.tar" "$BASE" >/dev/null
    fi
    local img=localhost/nccl-init-sglang:docker
    # no --engine: the script sees the daemon answer. RUN needs the host's
    # network here (no bridge).
    run env VCS_REF=test BUILD_DATE=1970-01-01T00:00:00Z DOCKER_BUILDKIT=0 "$REPO/scripts/build-image.sh" \
        -t "$img" --build-arg "BASE_IMAGE=$BASE" --build-arg "BUILDER_IMAGE=$BASE" -- --network host
    echo "$output"
    [ "$status" = 0 ] || skip_if_offline
    assert_success
    assert_line --index 0 "build-image.sh: docker, docker/Dockerfile -> $img"
    run dk image inspect --format '{{json .Config.Entrypoint}} {{.Config.StopSignal}}' "$img"
    assert_output '["/usr/local/bin/nccl-init","--","/usr/local/bin/nccl-init-entrypoint"] SIGTERM'
    run --separate-stderr dk run --rm --network none -e NCCL_INIT_PROFILE=pcie-8gpu "$img" \
        sh -c 'printenv NCCL_PROTO; tr "\0" " " </proc/1/cmdline'
    assert_success
    assert_line --index 0 LL
    assert_line --index 1 --partial "/usr/local/bin/nccl-init -- /usr/local/bin/nccl-init-entrypoint sh -c"
    run --separate-stderr dk run --rm --network none --read-only --user 65532 --cap-drop ALL \
        -e NCCL_INIT_PROFILE=pcie-8gpu "$img" printenv NCCL_PROTO
    assert_success
    assert_output LL
    [[ "$stderr" == *"warning: sink python: "*"; skipped"* ]]
    stop_scenario dk "$img"
}

@test "the builder stage of Dockerfile.vllm is Dockerfile's; no heredoc RUN, no syntax line" {
    stage() { sed -n '/^FROM ${BUILDER_IMAGE} AS builder$/,/^FROM ${BASE_IMAGE}$/p' "$1"; }
    [ -n "$(stage "$REPO/docker/Dockerfile")" ]
    assert_equal "$(stage "$REPO/docker/Dockerfile.vllm")" "$(stage "$REPO/docker/Dockerfile")"
    run grep -nE '<<|^# *syntax=' "$REPO/docker/Dockerfile" "$REPO/docker/Dockerfile.vllm"
    assert_failure 1
    # the entrypoint wrapper is POSIX sh
    run sh -n "$REPO/docker/nccl-init-entrypoint"
    assert_success
    [ -x "$REPO/docker/nccl-init-entrypoint" ]
}

@test "the default bases: SGLang >= v0.5.23, vLLM >= v0.33.0 (CUDA 13 builds), pinned, sources named" {
    # version_ge A B: A >= B as dotted versions
    version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
    base() { sed -n 's/^ARG BASE_IMAGE=//p' "$1"; }
    local sg vl
    sg=$(base "$REPO/docker/Dockerfile")
    vl=$(base "$REPO/docker/Dockerfile.vllm")
    echo "sglang: $sg, vllm: $vl"
    # one default each, an exact release: no latest, nightly or dev tag
    [ "$(grep -c '^ARG BASE_IMAGE=' "$REPO/docker/Dockerfile")" = 1 ]
    [ "$(grep -c '^ARG BASE_IMAGE=' "$REPO/docker/Dockerfile.vllm")" = 1 ]
    # From SGLang v0.5.20 and vLLM v0.20.0 the unsuffixed tag is the CUDA 13
    # build (doc/images.md); a -cu13x suffix is accepted too, -cu129 is not.
    [[ $sg =~ ^lmsysorg/sglang:v([0-9]+\.[0-9]+\.[0-9]+)(\.post[0-9]+)?(-cu13[0-9])?$ ]]
    version_ge "${BASH_REMATCH[1]}" 0.5.23
    [[ $vl =~ ^vllm/vllm-openai:v([0-9]+\.[0-9]+\.[0-9]+)(\.post[0-9]+)?(-cu13[0-9])?$ ]]
    version_ge "${BASH_REMATCH[1]}" 0.33.0
    # the comment above each names where the tag, the Python layout and the
    # ENTRYPOINT come from
    local f
    for f in Dockerfile Dockerfile.vllm; do
        run awk '/^ARG BASE_IMAGE=/ { printf "%s", block; exit }
            /^#/ { block = block $0 "\n"; next } { block = "" }' "$REPO/docker/$f"
        assert_output --partial "- The tag:"
        assert_output --partial "- Python:"
        assert_output --partial "python3.12"
        assert_output --partial "- ENTRYPOINT:"
        assert_output --partial "- NCCL:"
    done
}

@test "docker/k8s: yamllint clean, profiles/kustomization.yaml names every profile and stays out of the images, the profile directory, emptyDirs, shm, probes, GPU selectors" {
    command -v yamllint >/dev/null || skip "yamllint is not installed (apt-get install yamllint)"
    python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
    run yamllint --strict -c "$REPO/docker/k8s/.yamllint" "$REPO/docker/k8s" "$REPO/profiles/kustomization.yaml"
    echo "$output"
    assert_success
    # the generator is no profile: the builder's COPY profiles/ leaves it
    # out (make image VARIANT=parts lists the files the images get)
    grep -qx 'profiles/kustomization.yaml' "$REPO/.dockerignore"
    # The API schemas and the restricted profile: tests/k8s.bats
    # (validate.js). Here the rest, without kustomize: what the generators
    # name, and how the pods use what they make.
    run python3 - "$REPO" <<'EOF'
import glob, os, re, sys, yaml
repo = sys.argv[1]
errors = []
def err(msg):
    errors.append(msg)
def pod_specs(doc):
    kind, spec = doc["kind"], doc.get("spec", {})
    if kind == "Deployment":
        yield "pod", spec["template"]["spec"]
    elif kind == "LeaderWorkerSet":
        t = spec["leaderWorkerTemplate"]
        yield "leader", t["leaderTemplate"]["spec"]
        yield "worker", t["workerTemplate"]["spec"]
def gib(q):
    m = re.fullmatch(r"([0-9]+)(Mi|Gi|Ti)", str(q))
    return int(m.group(1)) * {"Mi": 1 / 1024, "Gi": 1, "Ti": 1024}[m.group(2)] if m else None
# Every file nccl-init installs from profiles/ (the image's
# /etc/nccl-init/profiles, which the ConfigMap's directory mount replaces):
# profiles/ holds nothing else but kustomization.yaml, the generator, which
# names each of them.
want = sorted(os.path.basename(p) for p in glob.glob(repo + "/profiles/*.env") + [repo + "/profiles/auto.rules"])
extra = sorted(set(os.listdir(repo + "/profiles")) - set(want) - {"kustomization.yaml"})
if extra:
    err("profiles/ holds %s: neither a profile nor the generator" % " ".join(extra))
pk = yaml.safe_load(open(repo + "/profiles/kustomization.yaml"))
gens = pk.get("configMapGenerator", [])
profiles_cm = None
if pk.get("kind") != "Kustomization" or pk.get("resources") or len(gens) != 1:
    err("profiles/kustomization.yaml: not a Kustomization with one ConfigMap generator and no resources")
else:
    files = gens[0].get("files", [])
    for f in files:
        if "/" in f or "=" in f or not os.path.isfile(os.path.join(repo, "profiles", f)):
            err("profiles/kustomization.yaml: %s is not a file of profiles/, under its own name" % f)
    if sorted(files) != want:
        err("profiles/kustomization.yaml: the generator names %s, profiles/ has %s" % (" ".join(sorted(files)), " ".join(want)))
    profiles_cm = gens[0]["name"]
    print("generator profiles: %s, %d files" % (profiles_cm, len(files)))
# Each kustomization of docker/k8s names profiles/ (a directory: kustomize's
# default load restrictor loads it, where it refuses a file from outside)
# and generates nothing itself; a LeaderWorkerSet's names the component
# that holds kustomizeconfig.yaml.
generated, components = {}, {}
for k in sorted(glob.glob(repo + "/docker/k8s/**/kustomization.yaml", recursive=True)):
    d = os.path.dirname(k)
    kz = yaml.safe_load(open(k))
    for r in kz.get("resources", []) + kz.get("components", []):
        if not (os.path.isfile(os.path.join(d, r)) or os.path.isfile(os.path.join(d, r, "kustomization.yaml"))):
            err("%s: %s is neither a file nor a kustomization's directory" % (k, r))
    if kz.get("kind") == "Component":
        continue
    if "configMapGenerator" in kz or "configurations" in kz:
        err("%s: a generator or configurations: of its own, whose files kustomize would refuse" % k)
    dirs = [os.path.realpath(os.path.join(d, r)) for r in kz.get("resources", [])]
    if os.path.realpath(repo + "/profiles") not in dirs:
        err("%s: profiles/ is not among its resources" % k)
        continue
    generated[d] = profiles_cm
    components[d] = [os.path.realpath(os.path.join(d, c)) for c in kz.get("components", [])]
    print("kustomization %s: %s" % (os.path.relpath(d, repo), profiles_cm))
docs = []
for f in sorted(glob.glob(repo + "/docker/k8s/**/*.yaml", recursive=True)):
    docs += [(f, d) for d in yaml.safe_load_all(open(f)) if d and "kind" in d]
kinds = sorted({d["kind"] for _, d in docs})
print("kinds:", " ".join(kinds))
for f, d in docs:
    if d["kind"] == "Service" and re.match(r"(vllm|sglang)(-|$)", d["metadata"]["name"]):
        err("%s: Service %s" % (f, d["metadata"]["name"]))
    specs = list(pod_specs(d))
    if specs and os.path.dirname(f) not in generated:
        err("%s: no kustomization.yaml beside it" % f)
    if d["kind"] == "LeaderWorkerSet" and \
            os.path.realpath(repo + "/docker/k8s/leaderworkerset") not in components.get(os.path.dirname(f), []):
        err("%s: its kustomization.yaml does not name the component ../../leaderworkerset" % f)
    for role, spec in specs:
        grace = spec.get("terminationGracePeriodSeconds", 30)
        init_grace = max([float(e["value"]) for c in spec["containers"] for e in c.get("env", [])
                          if e["name"] == "NCCL_INIT_GRACE"] or [8])
        if grace <= init_grace:
            err("%s %s: terminationGracePeriodSeconds %s is not above nccl-init's grace %s"
                % (f, role, grace, init_grace))
        vols = {v["name"]: v for v in spec["volumes"]}
        sel = spec.get("nodeSelector", {}).get("nvidia.com/gpu.product")
        terms = (spec.get("affinity", {}).get("nodeAffinity", {})
                 .get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", []))
        products = [sel] if sel else [v for t in terms for e in t.get("matchExpressions", [])
                                      if e["key"] == "nvidia.com/gpu.product" and e["operator"] == "In"
                                      for v in e["values"]]
        for c in spec["containers"]:
            where = "%s %s/%s" % (os.path.relpath(f, repo + "/docker/k8s"), role, c["name"])
            lim = c["resources"]["limits"]
            if lim.get("nvidia.com/gpu") != 8:
                err(where + ": not 8 GPUs")
            if "envFrom" in c:
                err(where + ": envFrom")
            mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
            def empty_dir(path, medium=None):
                m = mounts.get(path)
                v = vols.get(m["name"], {}) if m else {}
                ok = "emptyDir" in v and (medium is None or v["emptyDir"].get("medium") == medium)
                if not ok:
                    err("%s: %s is not an emptyDir%s" % (where, path, " of medium " + medium if medium else ""))
                return v.get("emptyDir", {}) if ok else {}
            # the record, the server's temporary files, HOME, shm
            empty_dir("/run/nccl-init")
            empty_dir("/tmp")
            env = {e["name"]: e.get("value") for e in c.get("env", [])}
            home = env.get("HOME", "")
            if not any(home == p or home.startswith(p + "/") for p in mounts if "emptyDir" in vols[mounts[p]["name"]]):
                err(where + ": HOME %r is not on an emptyDir" % home)
            shm = empty_dir("/dev/shm", "Memory")
            size, mem = gib(shm.get("sizeLimit")), gib(lim.get("memory"))
            if size is None or mem is None or mem <= size:
                err("%s: the memory limit %s does not hold /dev/shm's %s" % (where, lim.get("memory"), shm.get("sizeLimit")))
            # the profiles: a directory mount of the generated ConfigMap
            prof = mounts.get("/etc/nccl-init/profiles")
            if not prof or "subPath" in prof or not prof.get("readOnly") or \
                    vols[prof["name"]].get("configMap", {}).get("name") != generated.get(os.path.dirname(f)):
                err(where + ": /etc/nccl-init/profiles is not the generated ConfigMap, as a directory")
            if [m for m in c["volumeMounts"] if "subPath" in m]:
                err(where + ": a subPath mount")
            # a hardware-specific profile with the GPU it is for
            layers = env.get("NCCL_INIT_PROFILE", "").split(",")
            need = {"pcie-8gpu": ["NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition"],
                    "nvlink-hgx": ["NVIDIA-H100-80GB-HBM3", "NVIDIA-H200"]}
            for layer in layers:
                if layer in need and products != need[layer]:
                    err("%s: %s without nvidia.com/gpu.product %s (got %s)" % (where, layer, need[layer], products))
            print(where, "NCCL_INIT_PROFILE=%s" % env.get("NCCL_INIT_PROFILE"), "gpu.product=%s" % ",".join(products))
            if role != "worker":
                for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                    if c.get(probe, {}).get("httpGet", {}).get("path") != "/health":
                        err(where + ": no %s on /health" % probe)
for e in errors:
    print("error:", e)
sys.exit(1 if errors else 0)
EOF
    echo "$output"
    assert_success
    # no ConfigMap among the files: kustomize makes it
    assert_line "kinds: Component Deployment Kustomization LeaderWorkerSet Service"
    assert_line "generator profiles: nccl-init-profiles, 7 files"
    local d
    for d in sglang/single-node sglang/multi-node vllm/single-node vllm/multi-node vllm/multi-node-ray; do
        assert_line "kustomization docker/k8s/$d: nccl-init-profiles"
    done
    # SGLang's and vLLM's pods, the LeaderWorkerSets' workers among them
    local pcie="NCCL_INIT_PROFILE=pcie-8gpu gpu.product=NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition"
    local hgx="NCCL_INIT_PROFILE=nvlink-hgx,ib-multinode gpu.product=NVIDIA-H100-80GB-HBM3,NVIDIA-H200"
    assert_line "sglang/single-node/deployment.yaml pod/sglang $pcie"
    assert_line "vllm/single-node/deployment.yaml pod/vllm $pcie"
    assert_line "sglang/multi-node/leaderworkerset.yaml worker/sglang $hgx"
    assert_line "vllm/multi-node/leaderworkerset.yaml leader/vllm-leader $hgx"
    assert_line "vllm/multi-node/leaderworkerset.yaml worker/vllm-worker $hgx"
    assert_line "vllm/multi-node-ray/leaderworkerset.yaml worker/vllm-worker $hgx"
    # the layering the pods ask for is valid, from the files the ConfigMap holds
    run --separate-stderr "$NI" render --profile-dir "$PROFILES" -p nvlink-hgx -p ib-multinode --format env
    assert_success
    assert_line NCCL_IB_HCA=mlx5
    # Gloo and TensorPipe off loopback across the nodes
    assert_line GLOO_SOCKET_IFNAME=eth0
    assert_line TP_SOCKET_IFNAME=eth0
}

@test "scripts/build-image.sh: docker when its daemon answers, else buildah with --isolation chroot" {
    # a PATH with only what the script needs, and stand-ins for the engines
    mkdir -p "$TMP/bin"
    local t
    for t in bash env dirname sed date git; do ln -s "$(command -v "$t")" "$TMP/bin/$t"; done
    printf '#!/bin/sh\necho "buildah $*"\n' >"$TMP/bin/buildah"
    printf '#!/bin/sh\n[ "$1" = info ] && exit "${DOCKER_INFO_STATUS:-0}"\necho "docker $*"\n' >"$TMP/bin/docker"
    chmod 755 "$TMP/bin/buildah" "$TMP/bin/docker"
    local P=$TMP/bin
    unset BUILDAH_ISOLATION
    run --separate-stderr env PATH="$P" DOCKER_INFO_STATUS=0 VCS_REF=r BUILD_DATE=d "$REPO/scripts/build-image.sh"
    assert_success
    assert_output "docker build -f docker/Dockerfile -t nccl-init-sglang:latest --build-arg VCS_REF=r --build-arg BUILD_DATE=d ."
    run --separate-stderr env PATH="$P" DOCKER_INFO_STATUS=1 VCS_REF=r BUILD_DATE=d "$REPO/scripts/build-image.sh" --variant vllm \
        -t x:1 --build-arg BASE_IMAGE=b
    assert_success
    assert_output "buildah bud --isolation chroot --layers -f docker/Dockerfile.vllm -t x:1 --build-arg VCS_REF=r --build-arg BUILD_DATE=d --build-arg BASE_IMAGE=b ."
    # make image BASE_IMAGE=X BUILDER_IMAGE=Y: both reach the build, and an
    # explicit --build-arg still wins
    run --separate-stderr env PATH="$P:$PATH" DOCKER_INFO_STATUS=1 VCS_REF=r BUILD_DATE=d \
        make -s -C "$REPO" image BASE_IMAGE=x/base:1 BUILDER_IMAGE=y/builder:2
    assert_success
    assert_output "buildah bud --isolation chroot --layers -f docker/Dockerfile -t nccl-init-sglang:latest --build-arg VCS_REF=r --build-arg BUILD_DATE=d --build-arg BASE_IMAGE=x/base:1 --build-arg BUILDER_IMAGE=y/builder:2 ."
    run --separate-stderr env PATH="$P" DOCKER_INFO_STATUS=1 VCS_REF=r BUILD_DATE=d BASE_IMAGE=x \
        "$REPO/scripts/build-image.sh" --build-arg BASE_IMAGE=z
    assert_output "buildah bud --isolation chroot --layers -f docker/Dockerfile -t nccl-init-sglang:latest --build-arg VCS_REF=r --build-arg BUILD_DATE=d --build-arg BASE_IMAGE=x --build-arg BASE_IMAGE=z ."
    rm "$TMP/bin/buildah"
    run --separate-stderr env PATH="$P" DOCKER_INFO_STATUS=1 "$REPO/scripts/build-image.sh"
    assert_failure 1
    [[ "$stderr" == *"buildah is not installed"* ]]
    run env PATH="$P" "$REPO/scripts/build-image.sh" --variant nope
    assert_failure 2
}
