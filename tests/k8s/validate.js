#!/usr/bin/env node
// validate.js FILE|DIR...: the Kubernetes manifests checked against the
// Kubernetes API schemas, as the API server would on kubectl apply.
//
// Every YAML document of every file (a directory: its *.yaml and *.yml,
// recursively) is validated with the model of its apiVersion and kind from
// the npm package kubernetes-models 4.5.1 (Kubernetes' OpenAPI schemas
// compiled to validators; those of 1.33: Lifecycle has stopSignal, PodSpec
// no hostnameOverride, whatever its README's badge says): types, formats,
// enums, required fields. Those validators let unknown fields through,
// and the API server does not (kubectl apply asks for Strict field
// validation by default): a field that the schema of its object does not
// know, a typo such as "contianers" or "imagePullPolicy" one level too
// deep, is reported too. A LeaderWorkerSet (leaderworkerset.x-k8s.io/v1)
// is a CRD without a model: its top-level shape is checked here from the
// LWS API types (kubernetes-sigs/lws
// api/leaderworkerset/v1/leaderworkerset_types.go, commit 47a6181f), and
// its leaderTemplate and workerTemplate as PodTemplateSpecs. A
// kustomization.yaml (a Kustomization or a Component) and kustomize's
// kustomizeconfig.yaml are checked for their fields and the files they name.
//
// On top of the schemas, every pod template is held to the "restricted"
// Pod Security profile and the project's rules for its manifests (see
// "the pods' policy" below), and no Service may be named after a server.
//
// kubernetes-models 4.5.1 and not 5: 5 is ESM only and wants Node.js 22,
// while Debian 12 ships Node.js 18. The versions are pinned in
// package.json and package-lock.json; the Makefile runs npm ci.
//
// Each problem is one line:
//   FILE:LINE: KIND/NAME: FIELD.PATH: REASON
// and the exit status is 1 when there is one, 2 on a usage error, 0 when
// every object is valid (then one "ok" line per file).
'use strict';

const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

// --- the models -------------------------------------------------------

// kubernetes-models lays its classes out as GROUP/VERSION/KIND ("v1/Service",
// "apps/v1/Deployment"); the core group has no GROUP.
function modelFor(apiVersion, kind) {
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' ||
        !/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
        return null;
    }
    try {
        return require(`kubernetes-models/${apiVersion}/${kind}`)[kind] || null;
    } catch (e) {
        if (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return null;
        throw e;
    }
}

const { PodTemplateSpec } = require('kubernetes-models/v1/PodTemplateSpec');
const { PersistentVolumeClaim } = require('kubernetes-models/v1/PersistentVolumeClaim');
const { ObjectMeta } = require('@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta');

// --- unknown fields -----------------------------------------------------
//
// The compiled validators read every property their schema defines
// (`data.containerPort === undefined || check(data.containerPort)`), and
// enumerate the objects whose schema is a map (labels, data, limits). So
// the validator runs on proxies that record what it touched: in an object
// it read by name, a key it never read is a field its schema does not
// have. An object it neither read nor enumerated has a free-form schema
// (or sits below a type error) and is left alone.

function track(root) {
    const seen = new Map(); // target -> { read: Set, enumerated: bool }
    const proxies = new WeakMap();
    function wrap(v) {
        if (v === null || typeof v !== 'object') return v;
        if (proxies.has(v)) return proxies.get(v);
        const info = { read: new Set(), enumerated: false };
        seen.set(v, info);
        const p = new Proxy(v, {
            get(t, k, r) {
                if (typeof k === 'string') info.read.add(k);
                return wrap(Reflect.get(t, k, r));
            },
            has(t, k) {
                if (typeof k === 'string') info.read.add(k);
                return Reflect.has(t, k);
            },
            ownKeys(t) {
                info.enumerated = true;
                return Reflect.ownKeys(t);
            },
        });
        proxies.set(v, p);
        return p;
    }
    return { proxy: wrap(root), seen };
}

// The keys of `obj` (at `at`, a path array) that its validator did not know.
function unknownFields(root, seen, at, out) {
    (function walk(v, p) {
        if (v === null || typeof v !== 'object') return;
        const info = seen.get(v);
        if (Array.isArray(v)) {
            v.forEach((e, i) => walk(e, p.concat(i)));
            return;
        }
        if (!info || info.enumerated || info.read.size === 0) return;
        for (const k of Object.keys(v)) {
            if (!info.read.has(k)) {
                out.push({ path: p.concat(k), reason: unknownReason(k, info.read), unknown: true });
            } else {
                walk(v[k], p.concat(k));
            }
        }
    })(root, at);
}

function editDistance(a, b) {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
            d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
        }
    }
    return d[a.length][b.length];
}

function unknownReason(key, known) {
    const names = [...known].filter((k) => /^[a-zA-Z$]/.test(k));
    let best = null;
    for (const k of names) {
        const dist = editDistance(key, k);
        if (dist <= 2 && (!best || dist < best.dist)) best = { k, dist };
    }
    return 'unknown field' + (best ? ` (did you mean "${best.k}"?)` : '');
}

// --- running a model's validator ------------------------------------------

// Validates `data` with the model class `Model`; problems go to `out` with
// their paths prefixed by `at`.
function validateWith(Model, data, at, out) {
    const { proxy, seen } = track(data);
    let errors = [];
    try {
        Model.prototype.validate.call(proxy);
    } catch (e) {
        if (!Array.isArray(e.errors)) throw e;
        errors = e.errors;
    }
    for (const err of errors) {
        const p = err.instancePath.split('/').slice(1).map((s) => {
            const u = s.replace(/~1/g, '/').replace(/~0/g, '~');
            return /^[0-9]+$/.test(u) ? Number(u) : u;
        });
        if (err.keyword === 'required') {
            out.push({ path: at.concat(p, err.params.missingProperty), reason: 'required field missing' });
            continue;
        }
        const value = p.reduce((o, k) => (o == null ? o : o[k]), data);
        let reason = err.message;
        if (err.keyword === 'enum') reason += ': ' + err.params.allowedValues.map((v) => JSON.stringify(v)).join(', ');
        out.push({ path: at.concat(p), reason: `${reason} (got ${JSON.stringify(value)})` });
    }
    unknownFields(data, seen, at, out);
}

// --- LeaderWorkerSet ------------------------------------------------------
//
// leaderworkerset.x-k8s.io/v1, from kubernetes-sigs/lws
// api/leaderworkerset/v1/leaderworkerset_types.go (LeaderWorkerSetSpec,
// LeaderWorkerTemplate, RolloutStrategy, NetworkConfig).

const LWS_SPEC = ['replicas', 'leaderWorkerTemplate', 'rolloutStrategy', 'startupPolicy', 'networkConfig'];
const LWS_TEMPLATE = ['leaderTemplate', 'workerTemplate', 'size', 'restartPolicy', 'subGroupPolicy',
    'volumeClaimTemplates', 'persistentVolumeClaimRetentionPolicy'];

function isInt32(v) {
    return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;
}

function validateLeaderWorkerSet(doc, out) {
    const bad = (p, reason) => out.push({ path: p, reason });
    const fields = (obj, at, known) => {
        for (const k of Object.keys(obj)) {
            if (!known.includes(k)) bad(at.concat(k), unknownReason(k, new Set(known)));
        }
    };
    const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

    fields(doc, [], ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    if (!isObject(doc.metadata)) bad(['metadata'], 'required field missing');
    else validateWith(ObjectMeta, doc.metadata, ['metadata'], out);

    const spec = doc.spec;
    if (!isObject(spec)) return bad(['spec'], spec === undefined ? 'required field missing' : 'must be object');
    fields(spec, ['spec'], LWS_SPEC);
    if (spec.replicas !== undefined && !(isInt32(spec.replicas) && spec.replicas >= 0)) {
        bad(['spec', 'replicas'], `must be an integer >= 0 (got ${JSON.stringify(spec.replicas)})`);
    }
    if (spec.startupPolicy !== undefined && !['LeaderCreated', 'LeaderReady'].includes(spec.startupPolicy)) {
        bad(['spec', 'startupPolicy'], `must be "LeaderCreated" or "LeaderReady" (got ${JSON.stringify(spec.startupPolicy)})`);
    }

    const t = spec.leaderWorkerTemplate;
    const at = ['spec', 'leaderWorkerTemplate'];
    if (!isObject(t)) return bad(at, t === undefined ? 'required field missing' : 'must be object');
    fields(t, at, LWS_TEMPLATE);
    if (t.size === undefined) {
        bad(at.concat('size'), 'required field missing (the pods per group, leader included)');
    } else if (!(isInt32(t.size) && t.size >= 1)) {
        bad(at.concat('size'), `must be an integer >= 1 (got ${JSON.stringify(t.size)})`);
    }
    const policies = ['RecreateGroupOnPodRestart', 'None', 'Default'];
    if (t.restartPolicy !== undefined && !policies.includes(t.restartPolicy)) {
        bad(at.concat('restartPolicy'), `must be one of ${policies.join(', ')} (got ${JSON.stringify(t.restartPolicy)})`);
    }
    if (t.workerTemplate === undefined) bad(at.concat('workerTemplate'), 'required field missing');
    for (const k of ['leaderTemplate', 'workerTemplate']) {
        if (t[k] !== undefined) validateWith(PodTemplateSpec, t[k], at.concat(k), out);
    }
    if (Array.isArray(t.volumeClaimTemplates)) {
        t.volumeClaimTemplates.forEach((c, i) =>
            validateWith(PersistentVolumeClaim, c, at.concat('volumeClaimTemplates', i), out));
    }
}

// --- the pods' policy ------------------------------------------------------
//
// Beyond the schemas, every pod template (a Pod, the template of a
// Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob, a
// LeaderWorkerSet's leader and worker templates) is held to:
// - the Pod Security Standards' "restricted" profile
//   (https://kubernetes.io/docs/concepts/security/pod-security-standards/),
//   which contains "baseline": no host namespaces, no privileged
//   container, no hostPort; only the volume types configMap, csi,
//   downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected and
//   secret (hostPath named as such); runAsNonRoot true (on the pod, or on
//   every container) and no runAsUser 0; seccompProfile RuntimeDefault or
//   Localhost (on the pod, or on every container), never Unconfined; and in
//   every container allowPrivilegeEscalation false, capabilities.drop
//   holding ALL, capabilities.add at most NET_BIND_SERVICE. Reason
//   "restricted: ...".
// - the project's rules for its manifests, reason "nccl-init: ...":
//   readOnlyRootFilesystem true (the hardened shape), CPU and memory
//   requests on every container (else the pod is BestEffort),
//   enableServiceLinks false, args: on every container of an nccl-init
//   image (their CMD only prints the usage, so a pod without args: exits
//   and restarts) and no command: there but nccl-init's own
//   ("/usr/local/bin/nccl-init", "--", ...), which keeps it PID 1.
// and no Service may be named after a server (vllm, sglang, or either
// with a "-" suffix): the kubelet makes VLLM_PORT=tcp://... and the like
// from it in every pod of the namespace that keeps service links on, and
// the servers read VLLM_* and SGLANG_* as their own settings.

const ALLOWED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim',
    'projected', 'secret'];
const NCCL_INIT = '/usr/local/bin/nccl-init';

// [path, pod spec] of every pod template of a manifest.
function podSpecs(obj) {
    const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
    const at = (p) => {
        const v = p.reduce((o, k) => (isObject(o) ? o[k] : undefined), obj);
        return isObject(v) ? [[p, v]] : [];
    };
    switch (obj.kind) {
    case 'Pod': return at(['spec']);
    case 'Deployment': case 'StatefulSet': case 'DaemonSet': case 'ReplicaSet': case 'Job':
        return at(['spec', 'template', 'spec']);
    case 'CronJob': return at(['spec', 'jobTemplate', 'spec', 'template', 'spec']);
    case 'LeaderWorkerSet':
        return at(['spec', 'leaderWorkerTemplate', 'leaderTemplate', 'spec'])
            .concat(at(['spec', 'leaderWorkerTemplate', 'workerTemplate', 'spec']));
    default: return [];
    }
}

function checkPod(spec, at, out) {
    const bad = (p, reason) => out.push({ path: at.concat(p), reason });
    const got = (v) => `(got ${JSON.stringify(v)})`;
    for (const k of ['hostNetwork', 'hostPID', 'hostIPC']) {
        if (spec[k] === true) bad([k], 'restricted: the host\'s namespaces are not allowed (must be false or unset)');
    }
    if (spec.enableServiceLinks !== false) {
        bad(['enableServiceLinks'], 'nccl-init: must be false: the Services of the namespace would become ' +
            'variables such as VLLM_PORT, which the servers read as their own ' + got(spec.enableServiceLinks));
    }
    (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((v, i) => {
        if (v === null || typeof v !== 'object') return;
        for (const k of Object.keys(v)) {
            if (k === 'name' || ALLOWED_VOLUMES.includes(k)) continue;
            bad(['volumes', i, k], k === 'hostPath' ? 'restricted: hostPath volumes are not allowed'
                : `restricted: volume type ${k} is not allowed (only ${ALLOWED_VOLUMES.join(', ')})`);
        }
    });
    const psc = spec.securityContext && typeof spec.securityContext === 'object' ? spec.securityContext : {};
    const seccompOk = (sc) => sc && sc.seccompProfile && ['RuntimeDefault', 'Localhost'].includes(sc.seccompProfile.type);
    if (psc.runAsUser === 0) bad(['securityContext', 'runAsUser'], 'restricted: must not be 0 (root)');
    if (psc.runAsNonRoot === false) bad(['securityContext', 'runAsNonRoot'], 'restricted: must be true (got false)');
    if (psc.seccompProfile && !seccompOk(psc)) {
        bad(['securityContext', 'seccompProfile', 'type'], 'restricted: must be RuntimeDefault or Localhost ' +
            got(psc.seccompProfile.type));
    }
    const containers = [];
    for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
        (Array.isArray(spec[list]) ? spec[list] : []).forEach((c, i) => {
            if (c !== null && typeof c === 'object') containers.push([[list, i], c]);
        });
    }
    // runAsNonRoot and seccompProfile: on the pod, or on every container
    // (one line on the pod when no container sets it either, else one per
    // container that lacks it)
    const csc = (c) => (c.securityContext && typeof c.securityContext === 'object' ? c.securityContext : {});
    const podNonRoot = psc.runAsNonRoot === true;
    const someNonRoot = containers.some(([, c]) => csc(c).runAsNonRoot === true);
    const podSeccomp = seccompOk(psc);
    const someSeccomp = containers.some(([, c]) => csc(c).seccompProfile);
    if (!podNonRoot && !someNonRoot && psc.runAsNonRoot !== false) {
        bad(['securityContext', 'runAsNonRoot'], 'restricted: must be true, on the pod or on every container ' +
            got(psc.runAsNonRoot));
    }
    if (!psc.seccompProfile && !someSeccomp) {
        bad(['securityContext', 'seccompProfile', 'type'], 'restricted: must be RuntimeDefault or Localhost, ' +
            'on the pod or on every container (got none)');
    }
    for (const [p, c] of containers) {
        const sc = c.securityContext && typeof c.securityContext === 'object' ? c.securityContext : {};
        const scp = p.concat('securityContext');
        if (sc.privileged === true) bad(scp.concat('privileged'), 'restricted: privileged containers are not allowed');
        if (sc.allowPrivilegeEscalation !== false) {
            bad(scp.concat('allowPrivilegeEscalation'), 'restricted: must be false ' + got(sc.allowPrivilegeEscalation));
        }
        const caps = sc.capabilities && typeof sc.capabilities === 'object' ? sc.capabilities : {};
        if (!(Array.isArray(caps.drop) && caps.drop.includes('ALL'))) {
            bad(scp.concat('capabilities', 'drop'), 'restricted: must hold ALL ' + got(caps.drop));
        }
        if (Array.isArray(caps.add)) {
            caps.add.forEach((k, j) => {
                if (k !== 'NET_BIND_SERVICE') {
                    bad(scp.concat('capabilities', 'add', j), `restricted: only NET_BIND_SERVICE may be added ${got(k)}`);
                }
            });
        }
        if (sc.runAsUser === 0) bad(scp.concat('runAsUser'), 'restricted: must not be 0 (root)');
        if (sc.runAsNonRoot === false || (!podNonRoot && someNonRoot && sc.runAsNonRoot !== true)) {
            bad(scp.concat('runAsNonRoot'), 'restricted: must be true, on the pod or on every container ' +
                got(sc.runAsNonRoot));
        }
        if (sc.seccompProfile ? !seccompOk(sc) : !podSeccomp && (psc.seccompProfile || someSeccomp)) {
            bad(scp.concat('seccompProfile', 'type'), 'restricted: must be RuntimeDefault or Localhost, ' +
                'on the pod or on every container ' + got(sc.seccompProfile && sc.seccompProfile.type));
        }
        if (sc.procMount !== undefined && sc.procMount !== 'Default') {
            bad(scp.concat('procMount'), 'restricted: must be Default ' + got(sc.procMount));
        }
        if (sc.readOnlyRootFilesystem !== true) {
            bad(scp.concat('readOnlyRootFilesystem'), 'nccl-init: must be true (the hardened shape: nccl-init ' +
                'writes only its record, in an emptyDir) ' + got(sc.readOnlyRootFilesystem));
        }
        (Array.isArray(c.ports) ? c.ports : []).forEach((port, j) => {
            if (port && port.hostPort) bad(p.concat('ports', j, 'hostPort'), 'restricted: hostPort is not allowed');
        });
        if (p[0] === 'containers') {
            const req = c.resources && c.resources.requests && typeof c.resources.requests === 'object'
                ? c.resources.requests : {};
            for (const r of ['cpu', 'memory']) {
                if (req[r] === undefined) {
                    bad(p.concat('resources', 'requests', r), 'nccl-init: required: a pod without CPU and memory ' +
                        'requests is BestEffort, the first evicted');
                }
            }
        }
        if (typeof c.image === 'string' && /nccl-init/.test(c.image)) {
            if (!(Array.isArray(c.args) && c.args.length > 0)) {
                bad(p.concat('args'), 'nccl-init: required: the image\'s CMD only prints the usage, so without ' +
                    'args: the container exits and restarts');
            }
            if (c.command !== undefined && !(Array.isArray(c.command) && c.command[0] === NCCL_INIT &&
                c.command.includes('--'))) {
                bad(p.concat('command'), `nccl-init: replaces the image's ENTRYPOINT, so nccl-init would not run ` +
                    `(only ["${NCCL_INIT}", "--", ...]; give args: instead)`);
            }
        }
    }
}

function checkService(obj, out) {
    const name = obj.metadata && obj.metadata.name;
    if (typeof name === 'string' && /^(vllm|sglang)(-|$)/.test(name)) {
        const prefix = name.replace(/-/g, '_').toUpperCase();
        out.push({ path: ['metadata', 'name'], reason: `nccl-init: a Service named ${JSON.stringify(name)} ` +
            `puts ${prefix}_PORT=tcp://... into every pod of the namespace with service links, ` +
            `where the server reads it as its own setting` });
    }
}

// --- kustomize -------------------------------------------------------------
//
// A kustomization.yaml (kustomize.config.k8s.io/v1beta1 Kustomization, or
// a v1alpha1 Component, which has the same fields) is not an API object:
// its fields are checked against kustomize's
// (api/types/kustomization.go), and every file it names (resources,
// components, configurations, the files of the ConfigMap and Secret
// generators) must exist, relative to its directory; a directory among
// its resources or components must hold a kustomization.yaml. A file named
// kustomizeconfig.yaml is kustomize's transformer configuration
// (api/types/... TransformerConfig): its fields, and nameReference's shape.

const KUSTOMIZATION = ['apiVersion', 'kind', 'metadata', 'resources', 'components', 'crds', 'bases',
    'namespace', 'namePrefix', 'nameSuffix', 'labels', 'commonLabels', 'commonAnnotations', 'images',
    'replicas', 'patches', 'patchesStrategicMerge', 'patchesJson6902', 'replacements', 'vars',
    'configMapGenerator', 'secretGenerator', 'generatorOptions', 'configurations', 'generators',
    'transformers', 'validators', 'openapi', 'helmCharts', 'helmGlobals', 'sortOptions', 'buildMetadata'];
const GENERATOR = ['name', 'namespace', 'behavior', 'files', 'literals', 'envs', 'env', 'options', 'type'];
const TRANSFORMER_CONFIG = ['namePrefix', 'nameSuffix', 'nameSpace', 'commonLabels', 'labels', 'templateLabels',
    'commonAnnotations', 'nameReference', 'varReference', 'images', 'replicas'];

function validateKustomization(obj, dir, out) {
    const bad = (p, reason) => out.push({ path: p, reason });
    for (const k of Object.keys(obj)) {
        if (!KUSTOMIZATION.includes(k)) bad([k], unknownReason(k, new Set(KUSTOMIZATION)));
    }
    const exists = (p, rel) => {
        if (typeof rel !== 'string') return bad(p, `must be a string (got ${JSON.stringify(rel)})`);
        if (/^[a-z]+:\/\/|^git@|\?ref=/.test(rel)) return null; // a remote base: not fetched here
        if (!fs.existsSync(path.resolve(dir, rel))) bad(p, `no such file or directory: ${rel}`);
        return null;
    };
    for (const k of ['resources', 'components', 'configurations', 'crds']) {
        if (obj[k] === undefined) continue;
        if (!Array.isArray(obj[k])) { bad([k], 'must be a list'); continue; }
        obj[k].forEach((rel, i) => {
            exists([k, i], rel);
            // a directory is another kustomization (or a component)
            const p = typeof rel === 'string' ? path.resolve(dir, rel) : null;
            if (p && (k === 'resources' || k === 'components') && fs.existsSync(p) && fs.statSync(p).isDirectory() &&
                !['kustomization.yaml', 'kustomization.yml', 'Kustomization'].some((n) => fs.existsSync(path.join(p, n)))) {
                bad([k, i], `a directory without a kustomization.yaml: ${rel}`);
            }
        });
    }
    for (const g of ['configMapGenerator', 'secretGenerator']) {
        if (obj[g] === undefined) continue;
        if (!Array.isArray(obj[g])) { bad([g], 'must be a list'); continue; }
        obj[g].forEach((gen, i) => {
            if (gen === null || typeof gen !== 'object') return bad([g, i], 'must be a mapping');
            for (const k of Object.keys(gen)) {
                if (!GENERATOR.includes(k)) bad([g, i, k], unknownReason(k, new Set(GENERATOR)));
            }
            if (typeof gen.name !== 'string') bad([g, i, 'name'], 'required field missing');
            (Array.isArray(gen.files) ? gen.files : []).forEach((f, j) =>
                // "KEY=PATH" names the key; PATH is the file
                exists([g, i, 'files', j], typeof f === 'string' ? f.replace(/^[^=/]*=/, '') : f));
        });
    }
}

function validateTransformerConfig(obj, out) {
    const bad = (p, reason) => out.push({ path: p, reason });
    for (const k of Object.keys(obj)) {
        if (!TRANSFORMER_CONFIG.includes(k)) bad([k], unknownReason(k, new Set(TRANSFORMER_CONFIG)));
    }
    (Array.isArray(obj.nameReference) ? obj.nameReference : []).forEach((r, i) => {
        if (!r || typeof r.kind !== 'string') bad(['nameReference', i, 'kind'], 'required field missing');
        (r && Array.isArray(r.fieldSpecs) ? r.fieldSpecs : []).forEach((f, j) => {
            if (!f || typeof f.path !== 'string') bad(['nameReference', i, 'fieldSpecs', j, 'path'], 'required field missing');
            if (!f || typeof f.kind !== 'string') bad(['nameReference', i, 'fieldSpecs', j, 'kind'], 'required field missing');
        });
    });
}

// --- files ---------------------------------------------------------------

function yamlFiles(arg) {
    const st = fs.statSync(arg);
    if (!st.isDirectory()) return [arg];
    return fs.readdirSync(arg, { withFileTypes: true })
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .flatMap((e) => {
            const p = path.join(arg, e.name);
            if (e.isDirectory()) return yamlFiles(p);
            return /\.ya?ml$/.test(e.name) && !e.name.startsWith('.') ? [p] : [];
        });
}

// "spec.template.spec.containers[0].ports[0].containerPort"
function fieldPath(p) {
    return p.reduce((s, k) => (typeof k === 'number' ? `${s}[${k}]`
        : s === '' ? k : /^[A-Za-z0-9_$-]+$/.test(k) ? `${s}.${k}` : `${s}[${JSON.stringify(k)}]`), '');
}

// The line of the field at `p`, or of its nearest ancestor in the file.
function lineOf(doc, lc, p) {
    for (let n = p.length; n >= 0; n--) {
        const parent = n > 0 ? doc.getIn(p.slice(0, n - 1), true) : null;
        let node = null;
        if (n > 0 && parent && YAML.isMap(parent)) {
            // the key's line, so that an unknown field points at itself
            const pair = parent.items.find((it) => (YAML.isScalar(it.key) ? it.key.value : it.key) === p[n - 1]);
            node = pair && (pair.key && pair.key.range ? pair.key : pair.value);
        } else {
            node = n > 0 ? doc.getIn(p.slice(0, n), true) : doc.contents;
        }
        if (node && node.range) return lc.linePos(node.range[0]).line;
    }
    return 1;
}

function main(args) {
    if (args.length === 0 || args.includes('-h') || args.includes('--help')) {
        process.stderr.write('usage: validate.js FILE|DIR...\n');
        return 2;
    }
    let files;
    try {
        files = args.flatMap(yamlFiles);
    } catch (e) {
        process.stderr.write(`validate.js: ${e.message}\n`);
        return 2;
    }
    let problems = 0;
    let objects = 0;
    for (const file of files) {
        const text = fs.readFileSync(file, 'utf8');
        const lc = new YAML.LineCounter();
        // YAML 1.1, as Kubernetes' own parser reads manifests: "yes", "on"
        // and "off" are booleans there, not strings.
        const docs = YAML.parseAllDocuments(text, { lineCounter: lc, version: '1.1', uniqueKeys: true });
        const before = problems;
        let inFile = 0;
        for (const doc of docs) {
            for (const e of doc.errors) {
                const line = lc.linePos(e.pos[0]).line;
                const reason = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
                process.stdout.write(`${file}:${line}: YAML: ${reason}\n`);
                problems++;
            }
            if (doc.errors.length) continue;
            const obj = doc.toJS({ maxAliasCount: 100 });
            if (obj === null || obj === undefined) continue; // an empty document
            inFile++;
            objects++;
            const kind = obj && typeof obj.kind === 'string' ? obj.kind
                : path.basename(file) === 'kustomizeconfig.yaml' ? 'kustomizeconfig' : '?';
            const name = obj && obj.metadata && typeof obj.metadata.name === 'string' ? obj.metadata.name : '?';
            const out = [];
            if (typeof obj !== 'object' || Array.isArray(obj)) {
                out.push({ path: [], reason: 'a manifest must be a mapping' });
            } else if (path.basename(file) === 'kustomizeconfig.yaml') {
                validateTransformerConfig(obj, out);
            } else if ((obj.apiVersion === 'kustomize.config.k8s.io/v1beta1' && obj.kind === 'Kustomization') ||
                (obj.apiVersion === 'kustomize.config.k8s.io/v1alpha1' && obj.kind === 'Component')) {
                validateKustomization(obj, path.dirname(file), out);
            } else if (obj.apiVersion === 'leaderworkerset.x-k8s.io/v1' && obj.kind === 'LeaderWorkerSet') {
                validateLeaderWorkerSet(obj, out);
            } else {
                const Model = modelFor(obj.apiVersion, obj.kind);
                if (!Model) {
                    out.push({ path: ['kind'], reason: `no schema for apiVersion ${JSON.stringify(obj.apiVersion)}, kind ${JSON.stringify(obj.kind)}` });
                } else {
                    validateWith(Model, obj, [], out);
                }
            }
            if (typeof obj === 'object' && obj !== null && !Array.isArray(obj)) {
                for (const [at, spec] of podSpecs(obj)) checkPod(spec, at, out);
                if (obj.apiVersion === 'v1' && obj.kind === 'Service') checkService(obj, out);
            }
            // in the file's order
            const lines = out.map((o) => ({ ...o, line: lineOf(doc, lc, o.path) }));
            lines.sort((a, b) => a.line - b.line);
            for (const o of lines) {
                process.stdout.write(`${file}:${o.line}: ${kind}/${name}: ${fieldPath(o.path) || '(document)'}: ${o.reason}\n`);
                problems++;
            }
        }
        if (problems === before) process.stdout.write(`ok ${file} (${inFile} object${inFile === 1 ? '' : 's'})\n`);
    }
    process.stdout.write(`validate.js: ${files.length} file${files.length === 1 ? '' : 's'}, ${objects} object${objects === 1 ? '' : 's'}, ${problems} problem${problems === 1 ? '' : 's'}\n`);
    return problems ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
