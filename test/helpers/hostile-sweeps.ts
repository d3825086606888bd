// Generated sweeps for the hostile-input suite: nulls in every list of a pod, every wrong JSON type at every
// position of a Deployment, malformed and prototype-touching patches, and broken protobuf bodies.
import { CMS, DEPLOYS, NS, PODS, uniq, type HostileCase } from './hostile-cases.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

const JSON_CT = { 'content-type': 'application/json' };
const MERGE_CT = { 'content-type': 'application/merge-patch+json' };
const SMP_CT = { 'content-type': 'application/strategic-merge-patch+json' };
const JSONPATCH_CT = { 'content-type': 'application/json-patch+json' };
const APPLY_CT = { 'content-type': 'application/apply-patch+yaml' };
const PB_CT = { 'content-type': 'application/vnd.kubernetes.protobuf' };

function withoutProbe(c: Json): Json {
  const copy = { ...(c as Record<string, Json>) };
  delete copy.livenessProbe; // init containers without restartPolicy Always take no probes
  return copy;
}

/** A pod with something in every list the sweep visits. */
export function richPod(name: string): Record<string, Json> {
  const container = (n: string): Json => ({
    name: n, image: 'nginx', command: ['sh'], args: ['-c', 'true'],
    env: [{ name: 'A', value: '1' }], envFrom: [{ configMapRef: { name: 'cfg' } }],
    ports: [{ containerPort: 80, protocol: 'TCP' }], volumeMounts: [{ name: 'data', mountPath: '/data' }],
    resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m' } },
    securityContext: { capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } },
    livenessProbe: { exec: { command: ['true'] } },
  });
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'x' }, annotations: { note: 'n' }, finalizers: ['example.com/f'] },
    spec: {
      containers: [container('c')], initContainers: [withoutProbe(container('i'))],
      volumes: [{ name: 'data', emptyDir: {} }], tolerations: [{ key: 'k', operator: 'Exists' }],
      imagePullSecrets: [{ name: 'pull' }], hostAliases: [{ ip: '10.0.0.1', hostnames: ['a.example'] }],
      readinessGates: [{ conditionType: 'example.com/ready' }], schedulingGates: [{ name: 'example.com/gate' }],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' }],
      securityContext: { supplementalGroups: [1000], sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
      nodeSelector: { disk: 'ssd' },
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] } } },
    },
  };
}

function paths(v: Json, prefix: Path = []): { path: Path; value: Json }[] {
  const out: { path: Path; value: Json }[] = [{ path: prefix, value: v }];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}

function withAt(root: Json, path: Path, value: Json | undefined): Json {
  const copy = structuredClone(root);
  let cur = copy as Record<string | number, Json>;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, Json>;
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(cur)) cur.splice(Number(last), 1);
    else delete cur[last];
  } else cur[last] = value;
  return copy;
}

/** Lists whose zero item upstream accepts (strings, numbers, objects without required fields). */
const zeroItemAccepted = new Set(['command', 'args', 'imagePullSecrets', 'supplementalGroups', 'add', 'drop', 'nodeSelectorTerms', 'values']);

/** `[null]` in place of every list of the pod: Go decodes it into one zero item. */
export function podNullSweep(): HostileCase[] {
  const out: HostileCase[] = [];
  const base = richPod('base');
  for (const { path, value } of paths(base)) {
    if (!Array.isArray(value) || path[0] === 'metadata' && path[1] !== 'finalizers') continue;
    const name = uniq('nullpod');
    const pod = withAt(base, path, [null]) as Record<string, Json>;
    (pod.metadata as Record<string, Json>).name = name;
    (pod.metadata as Record<string, Json>).finalizers = path[1] === 'finalizers' ? [null] : [];
    const key = String(path[path.length - 1]);
    out.push({
      name: `pod with ${path.join('.')}: [null]`, method: 'POST', path: PODS, headers: JSON_CT, body: JSON.stringify(pod),
      expectCode: zeroItemAccepted.has(key) ? 201 : 422,
    });
  }
  return out;
}

export function deployment(name: string): Record<string, Json> {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { app: 'd' } },
    spec: {
      replicas: 1, revisionHistoryLimit: 3, paused: false,
      selector: { matchLabels: { app: 'd' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: {
          containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, readinessProbe: { httpGet: { path: '/', port: 80 } } }],
          terminationGracePeriodSeconds: 30, tolerations: [{ key: 'k', operator: 'Exists' }],
        },
      },
    },
  };
}

const jsonType = (v: Json) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** Positions that take a string or a number (quantities, int-or-string). */
const eitherStringOrNumber = (p: Path) => p.includes('limits') || p.includes('maxSurge') || p.includes('maxUnavailable') || (p.includes('httpGet') && p[p.length - 1] === 'port');

/**
 * Every position of a Deployment given each JSON type it does not hold: a 400 decode error (Go's typed
 * decoding); null at a position decodes as its absence, so it gets what the object without it gets.
 */
export function deploymentTypeSweep(): HostileCase[] {
  const out: HostileCase[] = [];
  const base = deployment('base');
  const replacements: Json[] = ['str', 7, true, [], {}];
  for (const { path, value } of paths(base)) {
    if (path.length === 0 || (path.length === 2 && path[0] === 'metadata' && path[1] === 'name')) continue;
    for (const r of replacements) {
      if (jsonType(r) === jsonType(value)) continue;
      if (eitherStringOrNumber(path) && (typeof r === 'string' || typeof r === 'number')) continue;
      const name = uniq('type');
      const body = withAt(withAt(base, ['metadata', 'name'], name), path, r);
      out.push({ name: `deployment ${path.join('.')} as ${jsonType(r)}`, method: 'POST', path: DEPLOYS, headers: JSON_CT, body: JSON.stringify(body), expectCode: 400 });
    }
    const name = uniq('null');
    const renamed = withAt(base, ['metadata', 'name'], name);
    const isItem = typeof path[path.length - 1] === 'number';
    const twinName = uniq('absent');
    // A null list item is a zero item, not an absent one: its twin holds {} (or "" / 0 for scalars).
    const twinValue = isItem ? (value && typeof value === 'object' ? {} : typeof value === 'number' ? 0 : '') : undefined;
    out.push({
      name: `deployment ${path.join('.')} as null`, method: 'POST', path: DEPLOYS, headers: JSON_CT, body: JSON.stringify(withAt(renamed, path, null)),
      sameAs: { method: 'POST', path: DEPLOYS, headers: JSON_CT, body: JSON.stringify(withAt(withAt(base, ['metadata', 'name'], twinName), path, twinValue)) },
    });
  }
  for (const root of ['[]', '"x"', '7', 'true']) out.push({ name: `deployment body ${root}`, method: 'POST', path: DEPLOYS, headers: JSON_CT, body: root, expectCode: 400 });
  // JSON null decodes as an empty Deployment (the URL gives the kind), which validation refuses.
  out.push({ name: 'deployment body null', method: 'POST', path: DEPLOYS, headers: JSON_CT, body: 'null', expectCode: 422 });
  return out;
}

/** Patches: malformed documents, directives, prototype paths, options. */
export function patchCases(): HostileCase[] {
  const cm = `${CMS}/target`;
  const d = `${DEPLOYS}/web`;
  const t: [string, string, Record<string, string>, string, number][] = [
    ['json patch not a list', cm, JSONPATCH_CT, '{"op":"add"}', 400],
    ['json patch list of numbers', cm, JSONPATCH_CT, '[1]', 400],
    ['json patch /__proto__/finalizers', cm, JSONPATCH_CT, '[{"op":"add","path":"/__proto__/finalizers","value":["example.com/pwned"]}]', 422],
    ['json patch /constructor/prototype/x', cm, JSONPATCH_CT, '[{"op":"add","path":"/constructor/prototype/finalizers","value":["p"]}]', 422],
    ['json patch /metadata/__proto__', cm, JSONPATCH_CT, '[{"op":"add","path":"/metadata/__proto__","value":{"finalizers":["example.com/pwned"]}}]', 200],
    ['json patch /data/__proto__', cm, JSONPATCH_CT, '[{"op":"add","path":"/data/__proto__","value":"x"}]', 200],
    ['json patch replace /data/valueOf', cm, JSONPATCH_CT, '[{"op":"replace","path":"/data/valueOf","value":"x"}]', 422],
    ['json patch move into child', cm, JSONPATCH_CT, '[{"op":"move","from":"/data","path":"/data/x"}]', 422],
    ['json patch copy metadata into labels', cm, JSONPATCH_CT, '[{"op":"copy","from":"/metadata","path":"/metadata/labels"}]', 422],
    ['json patch unknown op', cm, JSONPATCH_CT, '[{"op":"frob","path":"/data"}]', 422],
    ['json patch huge index', cm, JSONPATCH_CT, '[{"op":"add","path":"/metadata/finalizers/99999999999999999999","value":"x"}]', 422],
    ['json patch too many operations', cm, JSONPATCH_CT, `[${Array(10_001).fill('{"op":"test","path":"/kind","value":"ConfigMap"}').join(',')}]`, 413],
    ['merge patch __proto__', cm, MERGE_CT, '{"__proto__":{"finalizers":["example.com/pwned"]}}', 200],
    ['merge patch metadata.__proto__', cm, MERGE_CT, '{"metadata":{"__proto__":{"finalizers":["example.com/pwned"]}}}', 200],
    ['merge patch constructor.prototype', cm, MERGE_CT, '{"constructor":{"prototype":{"finalizers":["example.com/pwned"]}}}', 200],
    ['merge patch data keys like Object members', cm, MERGE_CT, '{"data":{"__proto__":"x","constructor":"y","toString":"z","hasOwnProperty":"w"}}', 200],
    ['merge patch label constructor', cm, MERGE_CT, '{"metadata":{"labels":{"constructor":"v","prototype":"w"}}}', 200],
    ['merge patch label __proto__', cm, MERGE_CT, '{"metadata":{"labels":{"__proto__":"v"}}}', 422],
    ['merge patch a string', cm, MERGE_CT, '"x"', 400],
    ['merge patch a list', cm, MERGE_CT, '[1]', 400],
    ['merge patch 1e400', cm, MERGE_CT, '{"data":{"a":1e400}}', 400],
    ['strategic bogus directive', cm, SMP_CT, '{"$patch":"bogus"}', 422],
    ['strategic list of lists', cm, SMP_CT, '{"metadata":{"finalizers":[["a"]]}}', 422],
    ['strategic mixed list', cm, SMP_CT, '{"metadata":{"finalizers":[{"$patch":"delete"}]}}', 422],
    ['strategic retainKeys not a list', d, SMP_CT, '{"spec":{"strategy":{"$retainKeys":"type"}}}', 400],
    ['strategic container without merge key', d, SMP_CT, '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}', 422],
    ['strategic setElementOrder mismatch', d, SMP_CT, '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"zz"}],"containers":[{"name":"c","image":"y"}]}}}}', 422],
    ['strategic containers [null]', d, SMP_CT, '{"spec":{"template":{"spec":{"containers":[null]}}}}', 422],
    ['strategic __proto__ in a container', d, SMP_CT, '{"spec":{"template":{"spec":{"containers":[{"name":"c","__proto__":{"image":"evil"}}]}}}}', 200],
    ['strategic setElementOrder of a list named constructor', cm, SMP_CT, '{"$setElementOrder/constructor":[],"constructor":[]}', 200],
    ['strategic setElementOrder of a list named toString', cm, SMP_CT, '{"$setElementOrder/toString":["a"],"toString":["a"]}', 200],
    ['strategic setElementOrder of a pod spec list named constructor', d, SMP_CT, '{"spec":{"template":{"spec":{"$setElementOrder/constructor":["a"],"constructor":["a"]}}}}', 200],
    ['merge patch containers [null]', d, MERGE_CT, '{"spec":{"template":{"spec":{"containers":[null]}}}}', 422],
    ['merge patch replicas a string', d, MERGE_CT, '{"spec":{"replicas":"3"}}', 422],
    ['merge patch replicas 1e10', d, MERGE_CT, '{"spec":{"replicas":1e10}}', 422],
    ['merge patch replicas -1', d, MERGE_CT, '{"spec":{"replicas":-1}}', 422],
    ['merge patch cpu 1e400 string', d, MERGE_CT, '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"1e400"}}}]}}}}', 422],
    // Content-Types named like Object members are no patch type.
    ['content type constructor', cm, { 'content-type': 'constructor' }, '{}', 415],
    ['content type __proto__', cm, { 'content-type': '__proto__' }, '{}', 415],
    ['content type toString', cm, { 'content-type': 'toString' }, '{}', 415],
    ['scale content type constructor', `${d}/scale`, { 'content-type': 'constructor' }, '{}', 415],
  ];
  const out: HostileCase[] = t.map(([name, path, headers, body, expectCode]) => ({ name, method: 'PATCH', path, headers, body, expectCode }));
  const apply = (q: string, code: number, what: string, body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"}}') =>
    out.push({ name: `apply ${what}`, method: 'PATCH', path: `${cm}${q}`, headers: APPLY_CT, body, expectCode: code });
  apply('', 422, 'without fieldManager');
  apply(`?fieldManager=${'m'.repeat(129)}`, 422, 'fieldManager of 129 characters');
  apply(`?fieldManager=${'m'.repeat(128)}`, 200, 'fieldManager of 128 characters');
  apply('?fieldManager=a%00b', 422, 'fieldManager with NUL');
  apply('?fieldManager=a%0Ab', 422, 'fieldManager with a newline');
  apply('?fieldManager=a%C2%A0b', 422, 'fieldManager with a no-break space');
  apply('?fieldManager=%C3%BC', 200, 'fieldManager ü');
  apply('?fieldManager=t', 400, 'of a list', '[]');
  apply('?fieldManager=t', 400, 'of another kind', '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"target"}}');
  apply('?fieldManager=t', 400, 'with undeclared __proto__ fields', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target","__proto__":{"finalizers":["p"]}},"data":{"__proto__":"x","constructor":"y"},"__proto__":{"x":1}}');
  apply('?fieldManager=t', 200, 'with __proto__ map keys', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target","labels":{"constructor":"v"}},"data":{"__proto__":"x","constructor":"y"}}');
  for (const [ct, q] of [[MERGE_CT, '?force=true'], [JSONPATCH_CT, '?force=false'], [SMP_CT, '?force=']] as const) {
    out.push({ name: `force on ${ct['content-type']}`, method: 'PATCH', path: `${cm}${q}`, headers: ct, body: ct === JSONPATCH_CT ? '[]' : '{}', expectCode: 422, expectMessage: /force: Forbidden: may not be specified for non-apply patch/ });
  }
  out.push({ name: 'create with fieldManager of 200 characters', method: 'POST', path: `${CMS}?fieldManager=${'x'.repeat(200)}`, headers: JSON_CT, body: `{"metadata":{"name":"${uniq()}"}}`, expectCode: 422 });
  out.push({ name: 'update with fieldManager holding a tab', method: 'PUT', path: `${cm}?fieldManager=a%09b`, headers: JSON_CT, body: '{"metadata":{"name":"target"}}', expectCode: 422 });
  return out;
}

/** Subresources and collection operations with bodies that are not what they expect. */
export function subresourceCases(): HostileCase[] {
  const scale = `${DEPLOYS}/web/scale`;
  const t: [string, string, string, Record<string, string> | undefined, string | undefined, number][] = [
    ['scale replicas beyond int32', 'PUT', scale, JSON_CT, '{"spec":{"replicas":1e10}}', 400],
    ['scale replicas a string', 'PUT', scale, JSON_CT, '{"spec":{"replicas":"3"}}', 400],
    ['scale body a list', 'PUT', scale, JSON_CT, '[]', 400],
    ['scale merge patch replicas null', 'PATCH', scale, MERGE_CT, '{"spec":{"replicas":null}}', 400],
    ['scale apply patch', 'PATCH', scale, APPLY_CT, '{}', 415],
    ['namespace finalize with finalizers a string', 'PUT', `/api/v1/namespaces/${NS}/finalize`, JSON_CT, '{"spec":{"finalizers":"x"}}', 400],
    ['namespace finalize with a list body', 'PUT', `/api/v1/namespaces/${NS}/finalize`, JSON_CT, '[1]', 400],
    ['binding without a target', 'POST', `${PODS}/pod1/binding`, JSON_CT, '{"metadata":{"name":"pod1"}}', 400],
    ['binding target a string', 'POST', `${PODS}/pod1/binding`, JSON_CT, '{"target":"node"}', 400],
    ['eviction with a bad grace period', 'POST', `${PODS}/pod1/eviction`, JSON_CT, '{"deleteOptions":{"gracePeriodSeconds":"x"}}', 400],
    ['status update with a wrong type', 'PUT', `${PODS}/pod1/status`, JSON_CT, '{"metadata":{"name":"pod1"},"status":{"phase":7}}', 400],
    ['status merge patch with [null] conditions', 'PATCH', `${PODS}/pod1/status`, MERGE_CT, '{"status":{"conditions":[null]}}', 422],
    ['delete collection with a bad selector', 'DELETE', `${CMS}?labelSelector=${encodeURIComponent('a in (')}`, undefined, undefined, 400],
    ['delete collection with a bad field selector', 'DELETE', `${CMS}?fieldSelector=nope`, undefined, undefined, 400],
    ['log of a pod with a bad tailLines', 'GET', `${PODS}/pod1/log?tailLines=x`, undefined, undefined, 400],
  ];
  const pf = `${PODS}/pod1/portforward`;
  const ports: HostileCase[] = [
    ['a port that is not a number', '?ports=x'], ['a port beyond 16 bits', '?ports=65536'], ['a 400-digit port', `?ports=${'9'.repeat(400)}`],
    ['an empty port', '?ports=80,'], ['two thousand ports', `?ports=${'1,'.repeat(1999)}1`], ['a port named __proto__', '?ports=__proto__'],
  ].map(([what, q]) => ({ name: `port-forward with ${what}`, method: 'GET', path: `${pf}${q}`, expectCode: 400, expectMessage: /^cannot convert to \[\]int32: / }));
  return [...t.map(([name, method, path, headers, body, expectCode]) => ({ name, method, path, headers, body, expectCode })), ...ports];
}

/** Container resources named like Object members or not resources at all. */
export function resourceNameCases(): HostileCase[] {
  const pod = (limits: Record<string, string>): string => {
    const p = richPod(uniq('res'));
    ((p.spec as Record<string, Json>).containers as Record<string, Json>[])[0].resources = { limits };
    return JSON.stringify(p);
  };
  const t: [string, Record<string, string>, number][] = [
    ['constructor', { constructor: '1' }, 422],
    ['__proto__', { ['__proto__']: '1' }, 422],
    ['pods', { pods: '1' }, 422],
    ['example.com/gadget', { 'example.com/gadget': '1' }, 201],
    ['kubernetes.io/thing', { 'kubernetes.io/thing': '1' }, 201],
    ['cpu 1e400', { cpu: '1e400' }, 400],
    ['cpu digits then x', { cpu: `${'1'.repeat(50_000)}x` }, 400],
  ];
  return t.map(([name, limits, expectCode]) => ({ name: `container limits ${name}`, method: 'POST', path: PODS, headers: JSON_CT, body: pod(limits), expectCode }));
}
