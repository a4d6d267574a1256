#!/usr/bin/env bats
# bats file_tags=container
#
# The Kubernetes manifests of docker/k8s against the Kubernetes API schemas:
# tests/k8s/validate.js (the npm package kubernetes-models, installed by the
# Makefile with npm ci) on every docker/k8s/**/*.yaml, and on broken copies
# to show what it reports. tests/container.bats keeps the project's own
# rules for the same files (yamllint, nccl-init as PID 1, probes, the
# grace chain, profiles equal to profiles/). Tagged container like those
# static checks: nccl-init does not run here, so the pass with the
# sanitizer build leaves it out.

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
    mapfile -t files < <(cd "$REPO" && find docker/k8s -name '*.yaml' | sort)
    [ "${#files[@]}" -ge 8 ]
    run bash -c 'cd "$1" && shift && node tests/k8s/validate.js "$@"' - "$REPO" "${files[@]}"
    echo "$output"
    assert_success
    local f
    for f in "${files[@]}"; do
        assert_line --regexp "^ok $f \([0-9]+ objects?\)$"
    done
    assert_line --regexp "^validate.js: ${#files[@]} files, [0-9]+ objects, 0 problems$"
    # both servers, both shapes
    assert_line "ok docker/k8s/vllm/single-node/deployment.yaml (2 objects)"
    assert_line "ok docker/k8s/vllm/multi-node/leaderworkerset.yaml (2 objects)"
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
    # the Service in the same file is fine and not named
    refute_output --partial "Service/vllm"
    assert_line "validate.js: 1 file, 2 objects, 2 problems"
    refute_line --regexp '^ok '
}

@test "a LeaderWorkerSet: its own fields from the LWS API, its leader and worker templates as PodTemplateSpecs" {
    local f=$TMP/lws.yaml
    # size 0, an unknown field beside it, a bad restartPolicy, a typo and a
    # wrong type in the worker's pod
    sed -e '0,/^    size: 2$/s//    size: 0\n    replicas: 2/' \
        -e 's/restartPolicy: RecreateGroupOnPodRestart/restartPolicy: Always/' \
        -e 's/^\(            \)image: \(.*\)$/\1image: \2\n\1imagePullPolicy: Sometimes/' \
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
    assert_line "validate.js: 1 file, 2 objects, 6 problems"

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
