#!/usr/bin/env bats
# bats file_tags=container
#
# The README's Dockerfile ("## In a Dockerfile") and Pod ("## In a pod"),
# and every kustomization of docker/k8s, run AS PASTED in a real runtime:
# buildah builds the Dockerfile, podman 4.3 plays the Pod and the
# kustomizations' Deployments with `podman kube play --network none`.
# The blocks are read from README.md at run time: a block that is missing
# or does not parse fails its test, naming the heading.
#
# Only what this machine forces is changed, each change named in a comment
# where it is made and printed as "# forced substitution: ..." when the test
# runs; the rest stays byte for byte:
#   - FROM vllm/vllm-openai:... -> a stand-in base: the Debian 12 base of
#     helpers/containers.bash with scripts/demo-server.py as
#     /usr/local/bin/vllm (vllm serve MODEL --tensor-parallel-size N: 8 spawn
#     workers, serves until SIGTERM, drains 1 s, exits 0) and a tiny sglang
#     package whose launch_server execs it (no registry, no GPU here).
#   - COPY --from=registry.example.com/nccl-init-parts:... -> the parts image
#     built here (make image VARIANT=parts).
#   - image: registry.example.com/... in the Pod and the Deployments -> the
#     images built here.
#   - ports: of the Deployments' containers left out: podman publishes a
#     containerPort without hostPort on the host's port of the same number,
#     which needs a network; under --network none it refuses the pod. The
#     tests touch nothing but loopback.
#   - docker/Dockerfile and docker/Dockerfile.vllm (the kustomizations'
#     images) built with BASE_IMAGE= that stand-in base.
#   - /dev/shm: the stand-in base ships it as 1777 (build_standin_base says
#     why); the manifests' dshm emptyDir stays as it is.
#
# What podman 4.3.1's kube play makes of the manifests' fields (read in its
# sources, pkg/specgen/generate/kube and pkg/domain/infra/abi/play.go at
# v4.3.1, and checked below where it matters):
#   honoured:
#     securityContext.runAsUser/runAsGroup (pod or container level): the
#       process's uid and gid
#     readOnlyRootFilesystem: a read-only root (and no tmpfs on /run, /tmp,
#       as podman run --read-only would add)
#     allowPrivilegeEscalation: false: no_new_privs
#     capabilities.drop: [ALL]: no capabilities
#     resources.limits.memory / requests.memory: the container's memory
#       limit and reservation; limits.cpu would be a CFS quota
#     args: (the image's ENTRYPOINT kept, its CMD replaced); command: would
#       replace the ENTRYPOINT, as on Kubernetes
#     env:, volumeMounts readOnly, replicas (pods NAME-pod-0 ...), labels
#     emptyDir: a podman volume NAMED after the volume, on disk under the
#       storage, created on first use and owned/moded like the image's
#       directory at the mount point (the container's uid where there is
#       none): NOT a fresh per-pod directory, so two pods with an emptyDir
#       of the same name share it (the same record), and it goes only with
#       the last pod that uses it; removed here before and after each play
#     configMap volume: a podman volume named after the ConfigMap, from a
#       ConfigMap in the same YAML, its keys as files; reused as it is when
#       a volume of that name exists (removed here between plays)
#     persistentVolumeClaim: the podman volume named claimName (created
#       empty when missing): kept as pasted
#     livenessProbe: a podman healthcheck (curl -f http://localhost:PORT/...,
#       the named port "http" read as 0), run by systemd timers, which this
#       machine has not: it never runs here; with restartPolicy Always a
#       failing one would restart the container
#   ignored:
#     terminationGracePeriodSeconds (podman's stop timeout stays 10 s: the
#       tests stop with podman pod stop -t 30, the manifests' value)
#     runAsNonRoot (never checked; runAsUser is set anyway)
#     seccompProfile: {type: RuntimeDefault} (the field is not read: podman
#       applies its default profile, which is the runtime's default)
#     emptyDir medium: Memory and sizeLimit (a directory on disk, no limit)
#     startupProbe, readinessProbe (never run)
#     enableServiceLinks, automountServiceAccountToken (podman makes neither
#       service variables nor tokens)
#     resources.requests.cpu, ephemeral-storage, limits nvidia.com/gpu
#       (kept as pasted: no GPU is asked for or given)
#     nodeSelector, affinity, strategy, selector; kinds Service (and any
#       other but Pod, Deployment, ConfigMap, PersistentVolumeClaim)
#   and two behaviours to know:
#     podman kube down (and play --replace) stops the pods with a timeout
#       of 0, SIGKILL right after SIGTERM: no ordered stop; the tests stop
#       with podman pod stop -t 30
#     ports: see the substitution above
#
# LeaderWorkerSets (the multi-node kustomizations) are a custom resource
# that podman cannot play, and their pods are not self-contained: the LWS
# controller injects LWS_LEADER_ADDRESS, LWS_GROUP_SIZE and
# LWS_WORKER_INDEX, which the args use as $(VAR) (expanded by the kubelet,
# not by podman), and the leader and its workers meet over the network
# that --network none forbids. Their test skips with that reason after
# checking that docker/k8s holds no other kind of kustomization.
#
# Time: with the images cached, under a minute on 2 cores (each test prints
# its own); the pods are played one at a time, since their emptyDirs (tmp,
# home, dshm) share names.

load helpers/common
load helpers/containers

STANDIN_BASE=localhost/nccl-init-pasted-base:test
IMG_README=localhost/nccl-init-pasted-readme:test
IMG_VLLM=localhost/nccl-init-pasted-vllm:test
IMG_SGLANG=localhost/nccl-init-pasted-sglang:test

setup_file() {
    containers_setup_file
}

setup() {
    containers_setup
    TMP=$(mktemp -d)
    T0=$SECONDS
    PODS=()
    VOLUMES=()
    F=()
}

teardown() {
    if [ -z "${CONTAINER_SKIP:-}" ]; then
        # the pods played, and the one a failed play may have left
        local p
        for p in "${PODS[@]}" ${F[pod]:+"${F[pod]}"}; do
            pm pod rm -f -t 0 "$p" >/dev/null 2>&1 || true
        done
        [ "${#VOLUMES[@]}" = 0 ] || pm volume rm -f "${VOLUMES[@]}" >/dev/null 2>&1 || true
    fi
    rm -rf "${TMP:-/nonexistent}"
    echo "# $BATS_TEST_DESCRIPTION: $((SECONDS - T0)) s" >&3
}

# The fenced block of language $2 under README.md's heading "## $1", or a
# failure that names the heading.
readme_block() {
    readme_fence "$1" "$2" >"$TMP/block" || true
    if [ ! -s "$TMP/block" ]; then
        echo "README.md: no \`\`\`$2 block under the heading \"## $1\"" >&2
        return 1
    fi
    cat "$TMP/block"
}

# Says one forced substitution, to the test's output and to bats' log.
forced() {
    echo "forced substitution: $*"
    echo "#   forced substitution: $*" >&3
}

# Replaces the one line of file $1 that is exactly $2 by $3 (nothing: the
# line is left out); fails unless exactly one line matches.
replace_line() {
    local n
    n=$(grep -cxF -- "$2" "$1" || true)
    if [ "$n" != 1 ]; then
        echo "$1: $n lines are exactly '$2' (one expected)" >&2
        return 1
    fi
    OLD=$2 NEW=$3 awk '$0 == ENVIRON["OLD"] { if (ENVIRON["NEW"] != "") print ENVIRON["NEW"]; next } { print }' \
        "$1" >"$1.new"
    mv "$1.new" "$1"
}

# Leaves out of YAML file $1 the one block whose key line is exactly $2
# (e.g. "        ports:"), with the lines indented below it and its list
# items; fails unless exactly one line matches.
drop_block() {
    local n
    n=$(grep -cxF -- "$2" "$1" || true)
    if [ "$n" != 1 ]; then
        echo "$1: $n lines are exactly '$2' (one expected)" >&2
        return 1
    fi
    KEY=$2 awk '
        function indent(s) { match(s, /^ */); return RLENGTH }
        $0 == ENVIRON["KEY"] { skip = 1; ind = indent($0); next }
        skip && (indent($0) > ind || (indent($0) == ind && $0 ~ /^ *- /)) { next }
        { skip = 0; print }' "$1" >"$1.new"
    mv "$1.new" "$1"
}

# The stand-in for the servers' base images (see the top of this file),
# built once (the layer cache keeps it). /dev/shm is 1777 in it: podman
# gives a new named volume the owner and mode of the image's directory at
# the mount point, and the Debian base made by mmdebstrap has /dev/shm as
# root 0755, where uid 65532 could not create multiprocessing's
# semaphores (EACCES). The servers' real images have no /dev/shm of their
# own (the volume then belongs to the container's uid), and a Kubernetes
# emptyDir is 0777: so the fix goes into the stand-in, not the manifests.
build_standin_base() {
    local d=$TMP/standin
    local site=$d/root/usr/lib/python3/dist-packages/sglang
    mkdir -p "$d/root/usr/local/bin" "$site" "$d/root/dev/shm"
    chmod 1777 "$d/root/dev/shm"
    sed '1s|^#!.*|#!/usr/bin/python3|' "$REPO/scripts/demo-server.py" >"$d/root/usr/local/bin/vllm"
    chmod 755 "$d/root/usr/local/bin/vllm"
    : >"$site/__init__.py"
    cat >"$site/launch_server.py" <<'EOF'
# Stand-in for SGLang's launch_server (tests/pasted.bats): the demo server,
# serving until SIGTERM; SGLang's own options are ignored.
import os
import sys

if __name__ == "__main__":
    os.execv("/usr/local/bin/vllm", ["/usr/local/bin/vllm", "serve"] + sys.argv[1:])
EOF
    printf 'FROM %s\nCOPY root/ /\n' "$BASE" >"$d/Containerfile"
    # the same mtimes every run, so the layer cache holds
    find "$d" -exec touch -h -d @0 {} +
    bh bud --isolation chroot --layers -q -f "$d/Containerfile" -t "$STANDIN_BASE" "$d" >/dev/null
}

# The parts image (make image VARIANT=parts) and the stand-in base, for the
# tests that build on them; cached after the first build.
build_bases() {
    run build_image --variant parts -t "$IMG_PARTS"
    [ "$status" = 0 ] || { echo "$output"; skip_if_offline; }
    assert_success
    build_standin_base
}

# kube plays file $1 under --network none; the names of the pods it made
# go to PODS (for teardown), in the order played.
play() {
    run pm kube play --network none "$1"
    echo "$output"
    assert_success
    local id
    for id in $(awk '/^Pod:$/ { getline; print }' <<<"$output"); do
        PODS+=("$(pm pod inspect --format '{{.Name}}' "$id")")
    done
}

# What the tests need of the one Pod or Deployment (one replica, one
# container) in YAML file $1, into the array F: kind, pod and ctr (the
# names podman gives them), image and image_line (its line, as written),
# ports_line (the container's "ports:" line, if any), profile
# (NCCL_INIT_PROFILE), record (the volume at /run/nccl-init), profiles_cm
# (the ConfigMap at /etc/nccl-init/profiles, if any) and volumes (what
# podman makes a volume of: emptyDirs by their names, ConfigMaps, claims).
# Fails, saying why, on anything else.
declare -gA F
pod_facts() {
    local out
    out=$(python3 - "$1" <<'EOF'
import sys, yaml
text = open(sys.argv[1]).read()
docs = [d for d in yaml.safe_load_all(text) if d and d.get("kind") in ("Pod", "Deployment")]
if len(docs) != 1:
    sys.exit("%d Pods or Deployments (one expected)" % len(docs))
d = docs[0]
if d["kind"] == "Pod":
    spec, pod = d["spec"], d["metadata"]["name"]
else:
    if d["spec"].get("replicas", 1) != 1:
        sys.exit("a Deployment of %s replicas (one expected)" % d["spec"]["replicas"])
    spec, pod = d["spec"]["template"]["spec"], d["metadata"]["name"] + "-pod-0"
if len(spec["containers"]) != 1:
    sys.exit("%d containers (one expected)" % len(spec["containers"]))
c = spec["containers"][0]
vols = {v["name"]: v for v in spec.get("volumes", [])}
at = {m["mountPath"]: vols[m["name"]] for m in c.get("volumeMounts", [])}
env = {e["name"]: e.get("value") for e in c.get("env", [])}
def line(want):
    found = [l for l in text.split("\n") if l.strip() == want]
    return found[0] if len(found) == 1 else ""
names = []
for v in vols.values():
    if "emptyDir" in v:
        names.append(v["name"])
    elif "configMap" in v:
        names.append(v["configMap"]["name"])
    elif "persistentVolumeClaim" in v:
        names.append(v["persistentVolumeClaim"]["claimName"])
print("kind", d["kind"])
print("pod", pod)
print("ctr", pod + "-" + c["name"])
print("image", c["image"])
image_line = line("image: " + c["image"])
# the container's keys are indented as its image is
ports = image_line[:len(image_line) - len(image_line.lstrip())] + "ports:"
print("image_line", image_line)
print("ports_line", ports if "ports" in c and text.split("\n").count(ports) == 1 else "")
print("profile", env.get("NCCL_INIT_PROFILE", ""))
print("record", at.get("/run/nccl-init", {}).get("name", ""))
print("profiles_cm", at.get("/etc/nccl-init/profiles", {}).get("configMap", {}).get("name", ""))
print("volumes", " ".join(names))
mem = str(c.get("resources", {}).get("limits", {}).get("memory", ""))
units = {"Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
print("memory", int(mem[:-2]) * units[mem[-2:]] if mem[-2:] in units else "")
EOF
) || return 1
    F=()
    local l
    while IFS= read -r l; do F[${l%% *}]=${l#* }; done <<<"$out"
    [ -n "${F[image_line]}" ] || { echo "$1: the image is not on one line of its own" >&2; return 1; }
}

# Waits until container $1 logs "server: ready"; fails when it stops first.
wait_ready() {
    local _
    for _ in $(seq 300); do
        pm logs "$1" 2>&1 | grep -q '^server: ready$' && return 0
        [ "$(pm inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" = true ] || break
        sleep 0.2
    done
    pm logs "$1" >&2
    echo "$1 did not get ready" >&2
    return 1
}

# Everything that holds for the hardened server pod: container $1 of pod $2
# (image built from the repository's profiles), profile $3; the record's
# emptyDir volume $4.
check_server_pod() {
    local ctr=$1 pod=$2 prof=$3 record=$4
    wait_ready "$ctr"
    # nccl-init is PID 1, as uid and gid 65532 (real, effective, saved, fs)
    run pm exec "$ctr" sh -c 'tr "\0" " " </proc/1/cmdline; echo; grep -E "^(Uid|Gid|NoNewPrivs|CapEff|Seccomp):" /proc/1/status'
    echo "$output"
    assert_line --index 0 --regexp '^/usr/local/bin/nccl-init -- '
    assert_line --regexp $'^Uid:\t65532\t65532\t65532\t65532$'
    assert_line --regexp $'^Gid:\t65532\t65532\t65532\t65532$'
    assert_line --regexp $'^NoNewPrivs:\t1$'
    assert_line --regexp $'^CapEff:\t0000000000000000$'
    # the runtime's default seccomp filter (2: filter mode)
    assert_line --regexp $'^Seccomp:\t2$'
    # the memory limit, podman's stop timeout (not the pod's grace)
    run pm inspect --format '{{.HostConfig.Memory}} {{.Config.StopTimeout}}' "$ctr"
    echo "memory limit, stop timeout: $output"
    assert_output --regexp "^${F[memory]:-0} "
    # a read-only root
    run pm exec "$ctr" sh -c 'echo x >/nccl-init-probe'
    assert_failure
    assert_output --partial "Read-only file system"
    run pm exec "$ctr" sh -c 'echo x >/run/nccl-init-probe'
    assert_failure
    # the record, in the emptyDir: the same file seen from the host side of
    # the volume
    local mnt
    mnt=$(pm volume inspect --format '{{.Mountpoint}}' "$record")
    [ -s "$mnt/profile.env" ]
    run pm exec "$ctr" cat /run/nccl-init/profile.env
    assert_success
    assert_output "$(cat "$mnt/profile.env")"
    assert_line "NCCL_INIT_PROFILE=$prof"
    # the profile nccl-init used is the repository's (its digest)
    local digest
    digest=$("$NI" render -q --profile-dir "$PROFILES" -p "$prof" --format env | sed -n 's/^NCCL_INIT_DIGEST=//p')
    [ -n "$digest" ]
    assert_line "NCCL_INIT_DIGEST=$digest"
    # nothing written outside the volumes: the container's own layer holds
    # only the mount points podman made there (and their parents, empty
    # otherwise), and the /etc/mtab link to /proc/mounts podman adds to an
    # image without one; podman diff says no more
    local mounts upper
    mounts=$(pm inspect --format '{{range .Mounts}}{{println .Destination}}{{end}}/run/.containerenv
/etc/mtab' "$ctr")
    upper=$(pm inspect --format '{{.GraphDriver.Data.UpperDir}}' "$ctr")
    run bash -c 'cd "$1" && find . -mindepth 1 -printf "%y /%P\n" | sort' - "$upper"
    echo "$output"
    local type path
    while read -r type path; do
        case $type in
            d) grep -qxF "$path" <<<"$mounts" || grep -q "^$path/" <<<"$mounts" ;;
            f) [ "$path" = /run/.containerenv ] && [ ! -s "$upper$path" ] ;;
            l) [ "$path" = /etc/mtab ] && [ "$(readlink "$upper$path")" = /proc/mounts ] ;;
            *) false ;;
        esac || { echo "$ctr: written outside the volumes: $type $path" >&2; return 1; }
    done <<<"$output"
    run pm diff "$ctr"
    echo "$output"
    while read -r type path; do
        [ -e "$upper$path" ] || [ -L "$upper$path" ] || { echo "$ctr: podman diff: $type $path" >&2; return 1; }
    done <<<"$output"
    # the workers have the values
    run pm logs "$ctr"
    echo "$output"
    assert_line "  8 of 8 workers have all 5 values"
    refute_output --partial '✗'
    run --separate-stderr pm exec "$ctr" nccl-init verify
    echo "$output"
    assert_success
    # the server, its 8 workers and multiprocessing's resource tracker
    assert_line --regexp "^10 processes checked, 10 with every value \(profile $prof, digest ${digest:0:12}\)$"
}

# The staged stop of pod $1 (container $2), as the kubelet would do it with
# terminationGracePeriodSeconds: 30: the server drains first, then its
# workers stop, nccl-init exits with the server's status (0), no SIGKILL.
check_stop() {
    local pod=$1 ctr=$2 t0 ms
    t0=$(date +%s%N)
    run pm pod stop -t 30 "$pod"
    assert_success
    ms=$((($(date +%s%N) - t0) / 1000000))
    echo "# pod stop took $ms ms" >&3
    run pm logs "$ctr"
    echo "$output"
    local drain stopped
    drain=$(grep -n -m 1 '^server: SIGTERM: draining for 1.0 s$' <<<"$output" | cut -d: -f1)
    stopped=$(grep -n -m 1 -E '^server: 8 workers stopped, exit statuses( 0){8}; server exits 0$' <<<"$output" | cut -d: -f1)
    [ -n "$drain" ] && [ -n "$stopped" ] && [ "$drain" -lt "$stopped" ]
    assert_output --regexp "nccl-init: stop: ended by the main child's own exit after [0-9]+ ms"
    refute_output --partial SIGKILL
    run pm inspect --format '{{.State.ExitCode}}' "$ctr"
    assert_output 0
    # the drain's second, well before the 30 s
    [ "$ms" -ge 1000 ]
    [ "$ms" -lt 20000 ]
}

# Plays YAML file $1 (its pod_facts in F) and checks it all: its volumes
# removed first (podman would reuse an emptyDir or ConfigMap volume of the
# same name, from another pod or an earlier run), the server pod, the
# profile ConfigMap when it mounts one, the staged stop.
play_checked() {
    local vols
    read -r -a vols <<<"${F[volumes]}"
    VOLUMES=("${vols[@]}")
    pm volume rm -f "${VOLUMES[@]}" >/dev/null 2>&1 || true
    play "$1"
    assert_equal "${PODS[*]}" "${F[pod]}"
    check_server_pod "${F[ctr]}" "${F[pod]}" "${F[profile]}" "${F[record]}"
    [ -z "${F[profiles_cm]}" ] || check_profiles_cm "${F[ctr]}" "${F[profiles_cm]}"
    check_stop "${F[pod]}" "${F[ctr]}"
}

# The profile ConfigMap $2 (kustomize's, from profiles/) arrived in
# container $1 as files under /etc/nccl-init/profiles, over the image's own:
# a read-only mount of the volume podman made of it, holding the
# repository's profiles byte for byte.
check_profiles_cm() {
    local ctr=$1 cm=$2
    run pm inspect --format '{{range .Mounts}}{{println .Name .Destination .RW}}{{end}}' "$ctr"
    assert_line "$cm /etc/nccl-init/profiles false"
    run pm exec "$ctr" sh -c 'cd /etc/nccl-init/profiles && sha256sum * | sort -k 2'
    assert_success
    assert_output "$(cd "$PROFILES" && sha256sum auto.rules *.env | sort -k 2)"
}

# The README's Dockerfile ("## In a Dockerfile"), built as IMG_README with
# its two forced substitutions; by both README tests, so that the pod never
# runs an image left from an earlier run (the layer cache makes the second
# build take seconds).
build_readme_image() {
    readme_block "In a Dockerfile" dockerfile >"$TMP/Dockerfile.pasted"
    local from parts
    from=$(sed -n 's/^FROM \([^ ]*\)$/\1/p' "$TMP/Dockerfile.pasted")
    parts=$(sed -n 's|^COPY --from=\([^ ]*\) / /$|\1|p' "$TMP/Dockerfile.pasted")
    [ "$(wc -l <<<"$from")" = 1 ] && [ -n "$from" ] && [ "$(wc -l <<<"$parts")" = 1 ] && [ -n "$parts" ] ||
        { echo "README.md \"## In a Dockerfile\": not one FROM IMAGE and one COPY --from=IMAGE / / line" >&2; false; }
    build_bases
    cp "$TMP/Dockerfile.pasted" "$TMP/Dockerfile"
    # no registry: the stand-in vLLM base and the parts image built here
    forced "FROM $from -> FROM $STANDIN_BASE (the stand-in base: demo-server.py as vllm, /dev/shm 1777)"
    replace_line "$TMP/Dockerfile" "FROM $from" "FROM $STANDIN_BASE"
    forced "COPY --from=$parts -> COPY --from=$IMG_PARTS (make image VARIANT=parts, built here)"
    replace_line "$TMP/Dockerfile" "COPY --from=$parts / /" "COPY --from=$IMG_PARTS / /"
    run diff "$TMP/Dockerfile.pasted" "$TMP/Dockerfile"
    echo "$output"
    # two lines changed, nothing else
    [ "$(grep -c '^[<>]' <<<"$output")" = 4 ]
    mkdir -p "$TMP/ctx"
    run bh bud --isolation chroot --layers -f "$TMP/Dockerfile" -t "$IMG_README" "$TMP/ctx"
    echo "$output"
    assert_success
}

@test "README \"In a Dockerfile\", as pasted: buildah builds it on the stand-in vLLM base and the parts image" {
    need_containers
    build_readme_image
    run pm image inspect --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}} {{.Config.StopSignal}}' "$IMG_README"
    assert_output '["/usr/local/bin/nccl-init","--","vllm","serve"] null SIGTERM'
    run pm image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMG_README"
    assert_line NCCL_INIT_PROFILE=pcie-8gpu
    # what install baked in: NCCL's env plugin on the loader's path, the
    # hook in the stdlib (the render line passed: the build succeeded)
    run prun --rm --entrypoint /bin/sh "$IMG_README" -c \
        'readlink /usr/lib/*-linux-gnu/libnccl-env.so; grep -c "^# BEGIN nccl-init" /etc/python3.*/sitecustomize.py'
    assert_success
    assert_output $'/usr/local/lib/nccl-init/libnccl-env.so\n1'
}

@test "README \"In a pod\", as pasted: podman kube play; nccl-init PID 1 as 65532 on a read-only root, the record in the emptyDir, 8 of 8, verify, the staged stop, exit 0" {
    need_containers
    build_readme_image
    readme_block "In a pod" yaml >"$TMP/pod.pasted.yaml"
    pod_facts "$TMP/pod.pasted.yaml" || { echo "README.md \"## In a pod\": cannot use it" >&2; false; }
    [ "${F[kind]}" = Pod ]
    cp "$TMP/pod.pasted.yaml" "$TMP/pod.yaml"
    # no registry: the image the README's Dockerfile built (the test above)
    forced "image: ${F[image]} -> image: $IMG_README (the README's Dockerfile, built here)"
    replace_line "$TMP/pod.yaml" "${F[image_line]}" "${F[image_line]%%image:*}image: $IMG_README"
    run diff "$TMP/pod.pasted.yaml" "$TMP/pod.yaml"
    echo "$output"
    [ "$(grep -c '^[<>]' <<<"$output")" = 2 ]
    play_checked "$TMP/pod.yaml"
}

# Kustomization docker/k8s/$1 as kubectl apply -k builds it, its
# Deployment played with image $2 (built here from Dockerfile variant $3 on
# the stand-in base).
play_kustomization() {
    local dir=$1 img=$2 variant=$3
    command -v kubectl >/dev/null || skip "kubectl is not installed (its kustomize builds the manifests)"
    build_bases
    # no registry: the stand-in base for the server's image
    forced "BASE_IMAGE of docker/ ($variant) -> $STANDIN_BASE (the stand-in base)"
    run build_image --variant "$variant" -t "$img" --build-arg "BASE_IMAGE=$STANDIN_BASE"
    [ "$status" = 0 ] || echo "$output"
    assert_success
    run --separate-stderr kubectl kustomize "$REPO/docker/k8s/$dir"
    assert_success
    printf '%s\n' "$output" >"$TMP/k.pasted.yaml"
    pod_facts "$TMP/k.pasted.yaml" || { echo "docker/k8s/$dir: cannot use it" >&2; false; }
    [ "${F[kind]}" = Deployment ]
    [ -n "${F[profiles_cm]}" ] && [ -n "${F[ports_line]}" ]
    cp "$TMP/k.pasted.yaml" "$TMP/k.yaml"
    # no registry: the image of docker/$variant built here
    forced "image: ${F[image]} -> image: $img (docker/Dockerfile $variant variant on the stand-in base)"
    replace_line "$TMP/k.yaml" "${F[image_line]}" "${F[image_line]%%image:*}image: $img"
    # podman would publish the containerPort on the host's port of the same
    # number, which --network none refuses (and these tests stay off the
    # network)
    forced "the container's ports: left out (podman publishes them on the host; --network none here)"
    drop_block "$TMP/k.yaml" "${F[ports_line]}"
    run diff "$TMP/k.pasted.yaml" "$TMP/k.yaml"
    echo "$output"
    # the image line, and the ports block's three lines
    [ "$(grep -c '^<' <<<"$output")" = 4 ]
    [ "$(grep -c '^>' <<<"$output")" = 1 ]
    play_checked "$TMP/k.yaml"
    # the liveness probe as podman made it: a healthcheck that podman runs
    # only from systemd timers (none here), on port 0 (the named port "http"
    # read as a number)
    run pm inspect --format '{{json .Config.Healthcheck.Test}}' "${F[ctr]}"
    echo "healthcheck: $output"
}

@test "docker/k8s/vllm/single-node, as kustomize builds it: podman kube play of the Deployment; the profile ConfigMap under /etc/nccl-init/profiles is the profile used; PID 1, read-only root, record, 8 of 8, verify, staged stop, exit 0" {
    need_containers
    play_kustomization vllm/single-node "$IMG_VLLM" vllm
}

@test "docker/k8s/sglang/single-node, as kustomize builds it: podman kube play of the Deployment (python3 -m sglang.launch_server); the profile ConfigMap is the profile used; PID 1, read-only root, record, 8 of 8, verify, staged stop, exit 0" {
    need_containers
    play_kustomization sglang/single-node "$IMG_SGLANG" sglang
}

# Every kustomization of docker/k8s is played above or is a LeaderWorkerSet.
@test "docker/k8s: every kustomization is a Deployment played above, or a LeaderWorkerSet, which podman cannot play (skipped)" {
    command -v kubectl >/dev/null || skip "kubectl is not installed (its kustomize builds the manifests)"
    local d dirs=() lws=()
    mapfile -t dirs < <(cd "$REPO/docker/k8s" && grep -lx 'kind: Kustomization' --include kustomization.yaml -r . |
        xargs -n 1 dirname | sed 's|^\./||' | sort)
    for d in "${dirs[@]}"; do
        run --separate-stderr kubectl kustomize "$REPO/docker/k8s/$d"
        assert_success
        kinds=$(grep -E '^kind: ' <<<"$output" | sort -u | tr '\n' ' ')
        case "$d: $kinds" in
            "sglang/single-node: kind: ConfigMap kind: Deployment kind: Service " | \
                "vllm/single-node: kind: ConfigMap kind: Deployment kind: Service ") ;;
            *": kind: ConfigMap kind: LeaderWorkerSet kind: Service ") lws+=("$d") ;;
            *) echo "docker/k8s/$d: $kinds: not played by this file" >&2; false ;;
        esac
    done
    assert_equal "${lws[*]}" "sglang/multi-node vllm/multi-node vllm/multi-node-ray"
    skip "LeaderWorkerSets (${lws[*]}): a custom resource podman kube play cannot play, whose pods need the LWS controller's LWS_* variables (\$(VAR) in their args) and their group over the network"
}
