#!/usr/bin/env bats
# bats file_tags=container
#
# The Kubernetes manifests of docker/k8s against the Kubernetes API schemas
# and the "restricted" Pod Security profile: tests/k8s/validate.js (the npm
# package kubernetes-models, installed by the Makefile with npm ci) on every
# docker/k8s/**/*.yaml, on what kustomize builds from each kustomization
# (when kubectl or kustomize is installed; nothing is downloaded), and on
# broken copies to show what it reports. tests/container.bats keeps the
# project's other rules for the same files (yamllint, probes, the grace
# chain, profiles/kustomization.yaml naming every profile). Tagged container
# like those static checks: nccl-init does not run here, so the pass with
# the sanitizer build leaves it out.

load helpers/common

VALIDATE=$REPO/tests/k8s/validate.js

setup() {
    command -v node >/dev/null || skip "node is not installed (make deps installs Debian's nodejs and npm)"
    [ -d "$REPO/tests/k8s/node_modules/kubernetes-models" ] ||
        skip "the validator's npm packages are not installed (make deps, or npm ci --prefix tests/k8s)"
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "${TMP:-/nonexistent}"
}

# The line of the first match of the extended regexp $1 in file $2.
line_of() {
    grep -n -m 1 -E "$1" "$2" | cut -d: -f1
}

@test "every manifest in docker/k8s is valid against the Kubernetes API schemas" {
    local files=()
    mapfile -t files < <(cd "$REPO" && find docker/k8s -name '*.yaml' | sort; echo profiles/kustomization.yaml)
    [ "${#files[@]}" -ge 18 ]
    run bash -c 'cd "$1" && shift && node tests/k8s/validate.js "$@"' - "$REPO" "${files[@]}"
    echo "$output"
    assert_success
    local f
    for f in "${files[@]}"; do
        assert_line --regexp "^ok $f \([0-9]+ objects?\)$"
    done
    assert_line --regexp "^validate.js: ${#files[@]} files, [0-9]+ objects, 0 problems$"
    # both servers, both shapes, the Ray variant, the kustomizations
    local d
    for d in sglang/single-node vllm/single-node; do
        assert_line "ok docker/k8s/$d/deployment.yaml (1 object)"
    done
    for d in sglang/multi-node vllm/multi-node vllm/multi-node-ray; do
        assert_line "ok docker/k8s/$d/leaderworkerset.yaml (1 object)"
    done
    for d in sglang/single-node vllm/single-node sglang/multi-node vllm/multi-node vllm/multi-node-ray; do
        assert_line "ok docker/k8s/$d/kustomization.yaml (1 object)"
        assert_line "ok docker/k8s/$d/service.yaml (1 object)"
    done
    assert_line "ok docker/k8s/leaderworkerset/kustomization.yaml (1 object)"
    assert_line "ok docker/k8s/leaderworkerset/kustomizeconfig.yaml (1 object)"
    assert_line "ok profiles/kustomization.yaml (1 object)"
}

@test "the README's pod (\"In a pod\") is valid and in the hardened shape" {
    readme_fence "In a pod" yaml >"$TMP/pod.yaml"
    [ -s "$TMP/pod.yaml" ]
    run node "$VALIDATE" "$TMP/pod.yaml"
    echo "$output"
    assert_success
    assert_line "ok $TMP/pod.yaml (1 object)"
    # the record's emptyDir and the profile's variable are there
    grep -q 'mountPath: /run/nccl-init' "$TMP/pod.yaml"
    grep -q 'NCCL_INIT_PROFILE' "$TMP/pod.yaml"
}

# kubectl's kustomize or kustomize itself, or nothing.
kustomize_cmd() {
    if command -v kubectl >/dev/null && kubectl kustomize --help >/dev/null 2>&1; then
        echo "kubectl kustomize"
    elif command -v kustomize >/dev/null; then
        echo "kustomize build"
    fi
}

@test "kustomize builds every kustomization, with its default load restrictor: valid objects, the ConfigMap is profiles/, the pods mount it by its generated name" {
    local k
    k=$(kustomize_cmd)
    [ -n "$k" ] || skip "neither kubectl nor kustomize is installed (the static files and the generator's list are checked without them)"
    local d dirs=()
    # the kustomizations, not the component leaderworkerset/ (built only
    # as a part of the LeaderWorkerSets')
    mapfile -t dirs < <(cd "$REPO/docker/k8s" && grep -lx 'kind: Kustomization' --include kustomization.yaml -r . |
        xargs -n 1 dirname | sed 's|^\./||' | sort)
    [ "${#dirs[@]}" = 5 ]
    for d in "${dirs[@]}"; do
        # no --load-restrictor: what "kubectl apply -k" builds (the
        # ConfigMap's files are loaded by profiles/kustomization.yaml, from
        # its own directory)
        run --separate-stderr $k "$REPO/docker/k8s/$d"
        echo "$stderr"
        assert_success
        [ -z "$stderr" ]
        printf '%s\n' "$output" >"$TMP/${d//\//-}.yaml"
    done
    run node "$VALIDATE" "$TMP"
    echo "$output"
    assert_success
    assert_line "validate.js: 5 files, 15 objects, 0 problems"
    # the generated ConfigMap holds every file of profiles/, byte for byte,
    # and every pod template mounts it, at /etc/nccl-init/profiles, by the
    # name kustomize gave it (the LeaderWorkerSets through kustomizeconfig.yaml)
    run node - "$TMP" "$REPO/profiles" "$REPO/tests/k8s/node_modules/yaml" <<'EOF'
const fs = require('fs'), path = require('path');
const [dir, profiles, yaml] = process.argv.slice(2);
const YAML = require(yaml);
const want = fs.readdirSync(profiles).filter((f) => /\.env$|^auto\.rules$/.test(f)).sort();
let bad = 0;
const err = (m) => { console.log('error: ' + m); bad++; };
for (const f of fs.readdirSync(dir).sort()) {
    const docs = YAML.parseAllDocuments(fs.readFileSync(path.join(dir, f), 'utf8')).map((d) => d.toJS());
    const cms = docs.filter((d) => d.kind === 'ConfigMap');
    if (cms.length !== 1) { err(`${f}: ${cms.length} ConfigMaps`); continue; }
    const cm = cms[0];
    const keys = Object.keys(cm.data).sort();
    if (keys.join(' ') !== want.join(' ')) err(`${f}: keys ${keys} != ${want}`);
    for (const k of want) {
        if (cm.data[k] !== fs.readFileSync(path.join(profiles, k), 'utf8')) err(`${f}: ${k} differs from profiles/${k}`);
    }
    if (!/-[a-z0-9]{10}$/.test(cm.metadata.name)) err(`${f}: ${cm.metadata.name} has no content hash`);
    const labels = JSON.stringify(cm.metadata.labels);
    if (labels !== JSON.stringify({ 'app.kubernetes.io/component': 'nccl-profiles', 'app.kubernetes.io/name': 'nccl-init' })) {
        err(`${f}: the ConfigMap's labels are ${labels}`);
    }
    let pods = 0;
    for (const d of docs) {
        const s = d.spec || {};
        const specs = d.kind === 'Deployment' ? [s.template.spec]
            : d.kind === 'LeaderWorkerSet' ? [s.leaderWorkerTemplate.leaderTemplate.spec, s.leaderWorkerTemplate.workerTemplate.spec] : [];
        for (const spec of specs) {
            pods++;
            const vol = spec.volumes.find((v) => v.configMap);
            if (!vol || vol.configMap.name !== cm.metadata.name) err(`${f}: ${d.kind} mounts ${vol && vol.configMap.name}, not ${cm.metadata.name}`);
            for (const c of spec.containers) {
                const m = c.volumeMounts.find((m) => m.name === vol.name);
                if (!m || m.mountPath !== '/etc/nccl-init/profiles' || m.subPath) err(`${f}: ${c.name}: not a directory mount at /etc/nccl-init/profiles`);
            }
        }
    }
    console.log(`${f}: ${cm.metadata.name}, ${keys.length} files, ${pods} pod templates`);
}
process.exitCode = bad ? 1 : 0;
EOF
    echo "$output"
    assert_success
    # one ConfigMap, profiles/kustomization.yaml's, the same in each (one
    # namespace may hold SGLang's and vLLM's pods)
    local cm
    cm=$(grep -o -m 1 'nccl-init-profiles-[a-z0-9]\{10\}' <<<"$output")
    assert_line "sglang-multi-node.yaml: $cm, 7 files, 2 pod templates"
    assert_line "sglang-single-node.yaml: $cm, 7 files, 1 pod templates"
    assert_line "vllm-multi-node-ray.yaml: $cm, 7 files, 2 pod templates"
    assert_line "vllm-multi-node.yaml: $cm, 7 files, 2 pod templates"
    assert_line "vllm-single-node.yaml: $cm, 7 files, 1 pod templates"
}

@test "the restricted profile, on a broken copy: each rule reported with the file, line, object, field and reason; exit 1" {
    local f=$TMP/deployment.yaml
    local o=Deployment/vllm t=spec.template.spec
    sed -e 's/^\(        \)runAsNonRoot: true$/\1runAsNonRoot: false/' \
        -e 's/^\(      \)enableServiceLinks: false$/\1enableServiceLinks: true\n\1hostNetwork: true/' \
        -e 's/^\(            \)allowPrivilegeEscalation: false$/\1allowPrivilegeEscalation: true\n\1privileged: true/' \
        -e 's/^\(            \)readOnlyRootFilesystem: true$/\1readOnlyRootFilesystem: false/' \
        -e 's/^\(            \)capabilities:$/\1capabilities:\n\1  add:\n\1    - IPC_LOCK/' \
        -e 's/^\(                \)- ALL$/\1- NET_RAW/' \
        -e 's/^\(          \)type: RuntimeDefault$/\1type: Unconfined/' \
        -e '/^        - name: tmp$/,/sizeLimit: 8Gi/{s/emptyDir:/hostPath:/;s/sizeLimit: 8Gi/path: \/tmp/}' \
        -e '/^              cpu: "16"$/d' \
        -e 's/^\( *\)containerPort: 8000$/\1containerPort: 8000\n\1hostPort: 8000/' \
        "$REPO/docker/k8s/vllm/single-node/deployment.yaml" >"$f"
    run node "$VALIDATE" "$f"
    echo "$output"
    assert_failure 1
    local c=$t.containers[0] cre='spec\.template\.spec\.containers\[0\]'
    assert_line "$f:$(line_of 'runAsNonRoot: false' "$f"): $o: $t.securityContext.runAsNonRoot: restricted: must be true (got false)"
    assert_line "$f:$(line_of 'hostNetwork: true' "$f"): $o: $t.hostNetwork: restricted: the host's namespaces are not allowed (must be false or unset)"
    assert_line --regexp "^$f:$(line_of 'enableServiceLinks: true' "$f"): $o: $t\.enableServiceLinks: nccl-init: must be false: .*VLLM_PORT.* \(got true\)$"
    assert_line "$f:$(line_of 'type: Unconfined' "$f"): $o: $t.securityContext.seccompProfile.type: restricted: must be RuntimeDefault or Localhost (got \"Unconfined\")"
    assert_line --regexp "^$f:[0-9]+: $o: $cre\.securityContext\.seccompProfile\.type: restricted: must be RuntimeDefault or Localhost, on the pod or on every container \(got undefined\)$"
    assert_line "$f:$(line_of 'allowPrivilegeEscalation: true' "$f"): $o: $c.securityContext.allowPrivilegeEscalation: restricted: must be false (got true)"
    assert_line "$f:$(line_of 'privileged: true' "$f"): $o: $c.securityContext.privileged: restricted: privileged containers are not allowed"
    assert_line --regexp "^$f:$(line_of 'readOnlyRootFilesystem: false' "$f"): $o: $cre\.securityContext\.readOnlyRootFilesystem: nccl-init: must be true .*\(got false\)$"
    assert_line "$f:$(line_of ' - IPC_LOCK' "$f"): $o: $c.securityContext.capabilities.add[0]: restricted: only NET_BIND_SERVICE may be added (got \"IPC_LOCK\")"
    assert_line "$f:$(line_of '^              drop:' "$f"): $o: $c.securityContext.capabilities.drop: restricted: must hold ALL (got [\"NET_RAW\"])"
    assert_line "$f:$(line_of 'hostPath:' "$f"): $o: $t.volumes[3].hostPath: restricted: hostPath volumes are not allowed"
    assert_line "$f:$(line_of 'hostPort: 8000' "$f"): $o: $c.ports[0].hostPort: restricted: hostPort is not allowed"
    assert_line --regexp "^$f:$(line_of '^            requests:' "$f"): $o: $cre\.resources\.requests\.cpu: nccl-init: required: a pod without CPU and memory requests is BestEffort, the first evicted$"
    assert_line "validate.js: 1 file, 1 object, 13 problems"

    # runAsUser 0, on the pod and on a container
    sed -e 's/^\(        \)runAsUser: 65532$/\1runAsUser: 0/' \
        -e 's/^\(            \)allowPrivilegeEscalation: false$/\1allowPrivilegeEscalation: false\n\1runAsUser: 0/' \
        "$REPO/docker/k8s/vllm/single-node/deployment.yaml" >"$f"
    run node "$VALIDATE" "$f"
    echo "$output"
    assert_failure 1
    assert_line "$f:$(line_of '^        runAsUser: 0' "$f"): $o: $t.securityContext.runAsUser: restricted: must not be 0 (root)"
    assert_line "$f:$(line_of '^            runAsUser: 0' "$f"): $o: $c.securityContext.runAsUser: restricted: must not be 0 (root)"
    assert_line "validate.js: 1 file, 1 object, 2 problems"
}

@test "a pod without any of it: runAsNonRoot, seccomp, no escalation, capabilities, read-only root, requests, service links" {
    cat >"$TMP/pod.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: bare
spec:
  containers:
    - name: c
      image: busybox
EOF
    run node "$VALIDATE" "$TMP/pod.yaml"
    echo "$output"
    assert_failure 1
    local f=$TMP/pod.yaml o=Pod/bare
    assert_line --regexp "^$f:5: $o: spec\.enableServiceLinks: nccl-init: must be false: .* \(got undefined\)$"
    assert_line "$f:5: $o: spec.securityContext.runAsNonRoot: restricted: must be true, on the pod or on every container (got undefined)"
    assert_line "$f:5: $o: spec.securityContext.seccompProfile.type: restricted: must be RuntimeDefault or Localhost, on the pod or on every container (got none)"
    assert_line "$f:7: $o: spec.containers[0].securityContext.allowPrivilegeEscalation: restricted: must be false (got undefined)"
    assert_line "$f:7: $o: spec.containers[0].securityContext.capabilities.drop: restricted: must hold ALL (got undefined)"
    assert_line --regexp "^$f:7: $o: spec\.containers\[0\]\.securityContext\.readOnlyRootFilesystem: nccl-init: must be true .*\(got undefined\)$"
    assert_line --regexp "^$f:7: $o: spec\.containers\[0\]\.resources\.requests\.cpu: nccl-init: required: "
    assert_line --regexp "^$f:7: $o: spec\.containers\[0\]\.resources\.requests\.memory: nccl-init: required: "
    # not an nccl-init image: no rule on args:
    refute_output --partial ".args:"
    assert_line "validate.js: 1 file, 1 object, 8 problems"
}

@test "an nccl-init container: args: required, no command: but nccl-init's; no Service named vllm or sglang" {
    local f=$TMP/deployment.yaml o=Deployment/vllm c=spec.template.spec.containers[0]
    # args: turned into command: (what the upstream examples do)
    sed -e 's/^\(          \)args:$/\1command:/' "$REPO/docker/k8s/vllm/single-node/deployment.yaml" >"$f"
    run node "$VALIDATE" "$f"
    echo "$output"
    assert_failure 1
    assert_line "$f:$(line_of '^          command:' "$f"): $o: $c.command: nccl-init: replaces the image's ENTRYPOINT, so nccl-init would not run (only [\"/usr/local/bin/nccl-init\", \"--\", ...]; give args: instead)"
    assert_line "$f:$(line_of '^        - name: vllm$' "$f"): $o: $c.args: nccl-init: required: the image's CMD only prints the usage, so without args: the container exits and restarts"
    assert_line "validate.js: 1 file, 1 object, 2 problems"
    # nccl-init's own command: (the Ray variant) is fine
    run node "$VALIDATE" "$REPO/docker/k8s/vllm/multi-node-ray/leaderworkerset.yaml"
    assert_success

    local s=$TMP/service.yaml n
    for n in vllm vllm-leader sglang; do
        sed -e "s/^  name: api-vllm$/  name: $n/" "$REPO/docker/k8s/vllm/single-node/service.yaml" >"$s"
        run node "$VALIDATE" "$s"
        echo "$output"
        assert_failure 1
        local P=$(echo "$n" | tr a-z- A-Z_)
        assert_line "$s:$(line_of "^  name: $n" "$s"): Service/$n: metadata.name: nccl-init: a Service named \"$n\" puts ${P}_PORT=tcp://... into every pod of the namespace with service links, where the server reads it as its own setting"
    done
    # a Deployment or a LeaderWorkerSet may be named vllm (only Services make variables)
    run node "$VALIDATE" "$REPO/docker/k8s/vllm/single-node/deployment.yaml"
    assert_success
}

@test "a kustomization: kustomize's fields, every file it names exists; kustomizeconfig.yaml's fields" {
    # a copy of the repository's layout: profiles/ four levels up, the
    # component two
    local dir=$TMP/r/docker/k8s f=$TMP/r/docker/k8s/vllm/multi-node/kustomization.yaml
    local p=$TMP/r/profiles/kustomization.yaml
    mkdir -p "$dir/vllm/multi-node" "$dir/leaderworkerset" "$TMP/r/profiles"
    cp "$REPO/docker/k8s/vllm/multi-node/"*.yaml "$dir/vllm/multi-node/"
    cp "$REPO/docker/k8s/leaderworkerset/"*.yaml "$dir/leaderworkerset/"
    cp "$REPO/profiles/"* "$TMP/r/profiles/"
    run node "$VALIDATE" "$dir" "$p"
    echo "$output"
    assert_success
    sed -i -e 's/^components:$/component:\ncomponents:/' \
        -e 's|^  - service.yaml$|  - services.yaml|' \
        -e 's|^  - \.\./\.\./leaderworkerset$|  - ../..|' "$f"
    sed -i -e 's/^configMapGenerator:$/configMapGenrator:\nconfigMapGenerator:/' \
        -e 's|^      - none.env$|      - gone.env|' \
        -e 's|^    options:$|    option:|' "$p"
    sed -i 's/^nameReference:$/nameReferences:/' "$dir/leaderworkerset/kustomizeconfig.yaml"
    run node "$VALIDATE" "$dir" "$p"
    echo "$output"
    assert_failure 1
    local o=Kustomization/?
    assert_line "$f:$(line_of 'services.yaml' "$f"): $o: resources[1]: no such file or directory: services.yaml"
    assert_line "$f:$(line_of '^component:' "$f"): $o: component: unknown field (did you mean \"components\"?)"
    assert_line "$f:$(line_of '^  - \.\./\.\.$' "$f"): $o: components[0]: a directory without a kustomization.yaml: ../.."
    assert_line "$p:$(line_of '^configMapGenrator:' "$p"): $o: configMapGenrator: unknown field (did you mean \"configMapGenerator\"?)"
    assert_line "$p:$(line_of '^    option:' "$p"): $o: configMapGenerator[0].option: unknown field (did you mean \"options\"?)"
    assert_line "$p:$(line_of 'gone.env' "$p"): $o: configMapGenerator[0].files[2]: no such file or directory: gone.env"
    local k=$dir/leaderworkerset/kustomizeconfig.yaml
    assert_line "$k:$(line_of '^nameReferences:' "$k"): kustomizeconfig/?: nameReferences: unknown field (did you mean \"nameReference\"?)"
    assert_line "validate.js: 6 files, 6 objects, 7 problems"

    # the component: its fields, the files it names
    local c=$dir/leaderworkerset/kustomization.yaml
    sed -i -e 's/^configurations:$/configuration:\nconfigurations:/' -e 's|^  - kustomizeconfig.yaml$|  - kustomizeconfig.yml|' "$c"
    run node "$VALIDATE" "$c"
    echo "$output"
    assert_failure 1
    assert_line "$c:$(line_of '^configuration:' "$c"): Component/?: configuration: unknown field (did you mean \"configurations\"?)"
    assert_line "$c:$(line_of 'kustomizeconfig.yml' "$c"): Component/?: configurations[0]: no such file or directory: kustomizeconfig.yml"
    assert_line "validate.js: 1 file, 1 object, 2 problems"
}

@test "a wrong type and an unknown field: the file and line, the object, the field path, the reason; exit 1" {
    local f=$TMP/deployment.yaml
    sed -e 's/containerPort: 8000/containerPort: "abc"/' \
        -e 's/^\(          \)imagePullPolicy: IfNotPresent/\1imagePullPolcy: IfNotPresent/' \
        "$REPO/docker/k8s/vllm/single-node/deployment.yaml" >"$f"
    run node "$VALIDATE" "$f"
    echo "$output"
    assert_failure 1
    assert_line "$f:$(line_of 'containerPort: "abc"' "$f"): Deployment/vllm: spec.template.spec.containers[0].ports[0].containerPort: must be integer (got \"abc\")"
    assert_line "$f:$(line_of 'imagePullPolcy' "$f"): Deployment/vllm: spec.template.spec.containers[0].imagePullPolcy: unknown field (did you mean \"imagePullPolicy\"?)"
    assert_line "validate.js: 1 file, 1 object, 2 problems"
    refute_line --regexp '^ok '
}

@test "a LeaderWorkerSet: its own fields from the LWS API, its leader and worker templates as PodTemplateSpecs" {
    local f=$TMP/lws.yaml
    # size 0, an unknown field beside it, a bad restartPolicy, a typo and a
    # wrong type in the worker's pod
    sed -e '0,/^    size: 2$/s//    size: 0\n    replicas: 2/' \
        -e 's/restartPolicy: RecreateGroupOnPodRestart/restartPolicy: Always/' \
        -e 's/^\(            \)imagePullPolicy: IfNotPresent$/\1imagePullPolicy: Sometimes/' \
        -e '/^    workerTemplate:$/,$s/^\(        \)terminationGracePeriodSeconds: 30$/\1terminationGracePeriodSecond: 30/' \
        "$REPO/docker/k8s/vllm/multi-node/leaderworkerset.yaml" >"$f"
    run node "$VALIDATE" "$f"
    echo "$output"
    assert_failure 1
    local obj="LeaderWorkerSet/vllm-multinode" t=spec.leaderWorkerTemplate
    assert_line "$f:$(line_of '^    size: 0$' "$f"): $obj: $t.size: must be an integer >= 1 (got 0)"
    assert_line "$f:$(line_of '^    replicas: 2$' "$f"): $obj: $t.replicas: unknown field"
    assert_line "$f:$(line_of 'restartPolicy: Always' "$f"): $obj: $t.restartPolicy: must be one of RecreateGroupOnPodRestart, None, Default (got \"Always\")"
    assert_line --regexp "^$f:[0-9]+: $obj: $t\.leaderTemplate\.spec\.containers\[0\]\.imagePullPolicy: must be equal to one of the allowed values: \"Always\", \"IfNotPresent\", \"Never\" \(got \"Sometimes\"\)$"
    assert_line --regexp "^$f:[0-9]+: $obj: $t\.workerTemplate\.spec\.containers\[0\]\.imagePullPolicy: must be equal to one of the allowed values: .*\(got \"Sometimes\"\)$"
    assert_line "$f:$(line_of 'terminationGracePeriodSecond: 30' "$f"): $obj: $t.workerTemplate.spec.terminationGracePeriodSecond: unknown field (did you mean \"terminationGracePeriodSeconds\"?)"
    assert_line "validate.js: 1 file, 1 object, 6 problems"

    # the LeaderWorkerSet's top level: its apiVersion and kind pick these checks
    cat >"$f" <<'EOF'
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: lws
spec:
  replicas: -1
  leaderWorkerTemplate:
    leaderTemplate:
      spec:
        containers: []
EOF
    run node "$VALIDATE" "$f"
    echo "$output"
    assert_failure 1
    assert_line "$f:6: LeaderWorkerSet/lws: spec.replicas: must be an integer >= 0 (got -1)"
    assert_line --regexp "^$f:7: LeaderWorkerSet/lws: spec\.leaderWorkerTemplate\.size: required field missing"
    assert_line "$f:7: LeaderWorkerSet/lws: spec.leaderWorkerTemplate.workerTemplate: required field missing"
}

@test "YAML errors, a kind without a schema, a directory walked for *.yaml" {
    mkdir -p "$TMP/k8s/sub"
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  k: w\n' >"$TMP/k8s/dup.yaml"
    printf 'apiVersion: v1\nkind: Frob\nmetadata:\n  name: f\n' >"$TMP/k8s/sub/frob.yaml"
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n' >"$TMP/k8s/sub/ok.yaml"
    printf 'not: [valid\n' >"$TMP/k8s/ignored.txt"
    run node "$VALIDATE" "$TMP/k8s"
    echo "$output"
    assert_failure 1
    assert_line "$TMP/k8s/dup.yaml:7: YAML: Map keys must be unique"
    assert_line "$TMP/k8s/sub/frob.yaml:2: Frob/f: kind: no schema for apiVersion \"v1\", kind \"Frob\""
    assert_line "ok $TMP/k8s/sub/ok.yaml (1 object)"
    refute_output --partial ignored.txt
    assert_line "validate.js: 3 files, 2 objects, 2 problems"
}

@test "usage errors exit 2" {
    run node "$VALIDATE"
    assert_failure 2
    assert_output --partial "usage: validate.js FILE|DIR..."
    run node "$VALIDATE" "$TMP/none.yaml"
    assert_failure 2
    assert_output --partial "no such file or directory"
}
