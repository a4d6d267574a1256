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
// its leaderTemplate and workerTemplate as PodTemplateSpecs.
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
            const kind = obj && typeof obj.kind === 'string' ? obj.kind : '?';
            const name = obj && obj.metadata && typeof obj.metadata.name === 'string' ? obj.metadata.name : '?';
            const out = [];
            if (typeof obj !== 'object' || Array.isArray(obj)) {
                out.push({ path: [], reason: 'a manifest must be a mapping' });
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
