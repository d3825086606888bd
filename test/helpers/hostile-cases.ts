// Generated hostile requests for test/api/hostile-input.test.ts. A case is one request and the HTTP status
// kube-apiserver answers it with. To cover a new path, append rows to a table here or in hostile-sweeps.ts, or
// write a function returning HostileCase[] and add it to the `groups` list of the test.
// Everything addresses namespace `hostile`, whose fixtures the suite creates first: ConfigMap `target`,
// Deployment `web`, Pod `pod1`.

export interface HostileCase {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The status upstream answers; errors must also be a Status with this code. Unused with `sameAs`. */
  expectCode?: number;
  /** Optional Status reason and message checks. */
  expectReason?: string;
  expectMessage?: RegExp;
  /** Instead of expectCode: the status answered to this other request (sent first), e.g. null ≡ absent. */
  sameAs?: Pick<HostileCase, 'method' | 'path' | 'headers' | 'body'>;
  /** How soon a quiet machine answers (a note, not asserted: every case must answer, however busy the machine). */
  maxMs?: number;
}

export const NS = 'hostile';
export const CMS = `/api/v1/namespaces/${NS}/configmaps`;
export const DEPLOYS = `/apis/apps/v1/namespaces/${NS}/deployments`;
export const PODS = `/api/v1/namespaces/${NS}/pods`;

export const JSON_CT = { 'content-type': 'application/json' };
export const YAML_CT = { 'content-type': 'application/yaml' };
export const APPLY_CT = { 'content-type': 'application/apply-patch+yaml' };
export const MERGE_CT = { 'content-type': 'application/merge-patch+json' };
const SMP_CT = { 'content-type': 'application/strategic-merge-patch+json' };
export const JSONPATCH_CT = { 'content-type': 'application/json-patch+json' };

let seq = 0;
/** A fresh object name for a create. */
export const uniq = (prefix = 'h') => `${prefix}-${++seq}`;

/** JSON text of a value `depth` containers deep (a scalar has depth 0). */
export function deepJson(depth: number, kind: 'object' | 'array' | 'fieldset' = 'object'): string {
  if (depth === 0) return '1';
  const open = kind === 'array' ? '[' : kind === 'fieldset' ? '{"f:a":' : '{"a":';
  const close = kind === 'array' ? ']' : '}';
  const inner = kind === 'array' ? '' : '{}';
  return open.repeat(depth - 1) + (kind === 'array' ? '[]' : inner) + close.repeat(depth - 1);
}

/** YAML text nested `depth` collections deep, in one of the block or flow styles (each line indented by 2). */
export function deepYaml(depth: number, style: 'block-map' | 'block-seq' | 'flow-seq' | 'flow-map'): string {
  if (style === 'flow-seq') return `  ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
  if (style === 'flow-map') return `  ${'{a: '.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}\n`;
  const lines: string[] = [];
  for (let i = 0; i < depth - 1; i++) lines.push(`${' '.repeat(2 + i)}${style === 'block-map' ? 'a:' : '-'}`);
  lines.push(`${' '.repeat(2 + depth - 1)}${style === 'block-map' ? 'a: 1' : '- 1'}`);
  return `${lines.join('\n')}\n`;
}

const cmJson = (name: string, extra = '') => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}${extra}}`;
const fieldsEntry = (fieldsV1: string) => `{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${fieldsV1}}`;

/** Nesting: every decoder and patch engine, below, at and above each limit. */
export function depthCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const d of [1, 50, 999, 1000, 5000, 9998, 9999, 10000, 20000]) {
    // Unknown fields are dropped after decoding, so only the decoder's 10,000 matters.
    const ok = d + 1 <= 10_000 ? 201 : 400;
    out.push({ name: `json create, unknown field ${d} deep`, method: 'POST', path: CMS, headers: JSON_CT, body: cmJson(uniq(), `,"x":${deepJson(d)}`), expectCode: ok });
    out.push({ name: `json create, unknown array ${d} deep`, method: 'POST', path: CMS, headers: JSON_CT, body: cmJson(uniq(), `,"x":${deepJson(d, 'array')}`), expectCode: ok });
    const patchOk = d + 1 <= 10_000 ? 200 : 400;
    out.push({ name: `merge patch ${d} deep`, method: 'PATCH', path: `${CMS}/target`, headers: MERGE_CT, body: `{"x":${deepJson(d)}}`, expectCode: patchOk });
    out.push({ name: `strategic patch ${d} deep`, method: 'PATCH', path: `${CMS}/target`, headers: SMP_CT, body: `{"x":${deepJson(d)}}`, expectCode: patchOk });
    out.push({ name: `strategic patch of a deployment ${d} deep`, method: 'PATCH', path: `${DEPLOYS}/web`, headers: SMP_CT, body: `{"spec":{"template":{"x":${deepJson(Math.max(1, d - 3))}}}}`, expectCode: d <= 10_000 ? 200 : 400 });
    out.push({ name: `json patch value ${d} deep`, method: 'PATCH', path: `${CMS}/target`, headers: JSONPATCH_CT, body: `[{"op":"add","path":"/x","value":${deepJson(d)}}]`, expectCode: d + 2 <= 10_000 ? 200 : 400 });
    // Free-form content is stored: FieldsV1 holds what it is given, up to the depth Bonsai stores.
    const fvDepth = d + 4;
    out.push({
      name: `json create, managedFields fieldsV1 ${d} deep`, method: 'POST', path: CMS, headers: JSON_CT,
      body: cmJson(uniq()).replace('"metadata":{', `"metadata":{"managedFields":[${fieldsEntry(deepJson(d, 'fieldset'))}],`),
      expectCode: fvDepth <= 1000 ? 201 : 400,
    });
    out.push({
      name: `merge patch, managedFields fieldsV1 ${d} deep`, method: 'PATCH', path: `${CMS}/target`, headers: MERGE_CT,
      body: `{"metadata":{"managedFields":[${fieldsEntry(deepJson(d, 'fieldset'))}]}}`, expectCode: fvDepth <= 1000 ? 200 : 400,
    });
  }
  for (const d of [1, 100, 298, 299, 300, 301, 800, 1000, 1500]) {
    // YAML nests up to 300 collections in Bonsai; the document below has one more level (the ConfigMap).
    const yamlOk = d + 1 <= 300;
    for (const style of ['block-map', 'block-seq', 'flow-seq', 'flow-map'] as const) {
      const doc = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${uniq()}\nx:\n${deepYaml(d, style)}`;
      out.push({ name: `yaml create, ${style} ${d} deep`, method: 'POST', path: CMS, headers: YAML_CT, body: doc, expectCode: yamlOk ? 201 : 400 });
      const name = uniq('apply');
      const applied = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\nx:\n${deepYaml(d, style)}`;
      // Server-side apply refuses the undeclared field `x` at any depth (structured-merge-diff types the whole configuration).
      out.push({ name: `apply yaml, ${style} ${d} deep`, method: 'PATCH', path: `${CMS}/${name}?fieldManager=hostile`, headers: APPLY_CT, body: applied, expectCode: 400 });
    }
  }
  // The shape that aborted the process: quoted keys, so that the first plain scalar, whose type is resolved by
  // RegExps compiled on first use, sits at the bottom, where the recursive composer had no stack left.
  for (const d of [850, 1000]) {
    const jsonish = `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "${uniq()}"}, "x": ${'['.repeat(d)}1${']'.repeat(d)}}`;
    for (const time of ['first', 'second']) {
      out.push({ name: `quoted yaml with a plain scalar ${d} deep (${time})`, method: 'POST', path: CMS, headers: YAML_CT, body: jsonish, expectCode: 400, expectMessage: /exceeded max depth of 300/ });
    }
  }
  // Sent twice in a row, as the report that crashed the process did.
  const crash = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: crash\nx:\n${deepYaml(1000, 'block-map')}`;
  out.push({ name: 'yaml 1,000 deep (first)', method: 'POST', path: CMS, headers: YAML_CT, body: crash, expectCode: 400, expectMessage: /exceeded max depth/ });
  out.push({ name: 'yaml 1,000 deep (second)', method: 'POST', path: CMS, headers: YAML_CT, body: crash, expectCode: 400, expectMessage: /exceeded max depth/ });
  out.push({ name: 'apply yaml 1,000 deep', method: 'PATCH', path: `${CMS}/crash?fieldManager=x`, headers: APPLY_CT, body: crash, expectCode: 400 });
  return out;
}

/** YAML that is not plain data: aliases, cycles, tags, non-finite numbers, several documents. */
export function yamlCases(): HostileCase[] {
  const doc = (rest: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${uniq()}\n${rest}`;
  const laughs = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
  const chain: string[] = ['z0: &z0 [1]'];
  for (let i = 1; i < 320; i++) chain.push(`z${i}: &z${i} [*z${i - 1}]`);
  const cases: [string, string, number][] = [
    ['billion laughs', doc(`x:\n${laughs.map((l) => `  ${l}`).join('\n')}\n`), 400],
    ['anchor containing itself (sequence)', doc('x: &a [*a]\n'), 400],
    ['anchor containing itself (map)', doc('data: &a {b: *a}\n'), 400],
    ['alias chain deeper than the limit', doc(`x:\n${chain.map((l) => `  ${l}`).join('\n')}\n`), 400],
    ['aliases within limits', doc('data:\n  a: &v hello\n  b: *v\n'), 201],
    ['.inf', doc('x: .inf\n'), 400],
    ['.nan', doc('x: .nan\n'), 400],
    ['1e400', doc('x: 1e400\n'), 400],
    ['unknown tag', doc('data:\n  a: !foo bar\n'), 201],
    ['binary tag', doc('data:\n  a: !!binary aGVsbG8=\n'), 201],
    ['complex key', doc('data:\n  ? [a, b]\n  : c\n'), 422],
    ['two documents (the first is read, as go-yaml reads it)', `${doc('')}---\n${doc('')}`, 201],
    ['__proto__ keys', doc('__proto__: {finalizers: [pwned]}\ndata:\n  __proto__: x\n  constructor: y\n'), 201],
    ['merge key', doc('data:\n  <<: {a: b}\n'), 201],
    ['tabs and garbage', doc('x:\t[\n'), 400],
    ['not a mapping', '- a\n- b\n', 400],
    ['empty document', '', 400],
    // No document is JSON null: decoded as an empty object of the URL's kind, which validation then refuses.
    ['only a comment', '# nothing\n', 422],
  ];
  return cases.map(([name, body, expectCode]) => ({ name: `yaml: ${name}`, method: 'POST', path: CMS, headers: YAML_CT, body, expectCode }));
}

/** Names and namespaces in paths: dots, escapes, slashes, length, unicode. */
export function nameCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const invalid: string[] = ['.', '..', '%2e', '%2E', '%2e%2e', '%2E%2e', '.%2e', 'a%25b', '%25', '%252e'];
  const missing: string[] = ['a'.repeat(300), '%C3%BC', '%E6%97%A5%E6%9C%AC', '%F0%9F%8D%95', 'a%20b', 'a%00b', 'UPPER', '-x-', 'a.b'];
  for (const seg of invalid) {
    for (const method of ['GET', 'DELETE']) out.push({ name: `${method} configmap ${seg}`, method, path: `${CMS}/${seg}`, expectCode: 400, expectMessage: /^Name parameter invalid: / });
    out.push({ name: `PUT configmap ${seg}`, method: 'PUT', path: `${CMS}/${seg}`, headers: JSON_CT, body: cmJson('x'), expectCode: 400 });
    out.push({ name: `PATCH configmap ${seg}`, method: 'PATCH', path: `${CMS}/${seg}`, headers: MERGE_CT, body: '{}', expectCode: 400 });
    out.push({ name: `list in namespace ${seg}`, method: 'GET', path: `/api/v1/namespaces/${seg}/configmaps`, expectCode: 400 });
    out.push({ name: `GET namespace ${seg}`, method: 'GET', path: `/api/v1/namespaces/${seg}`, expectCode: 400 });
    out.push({ name: `watch in namespace ${seg}`, method: 'GET', path: `/api/v1/watch/namespaces/${seg}/configmaps`, expectCode: 400 });
  }
  for (const seg of missing) {
    out.push({ name: `GET configmap ${seg.slice(0, 20)}`, method: 'GET', path: `${CMS}/${seg}`, expectCode: 404, expectReason: 'NotFound' });
    out.push({ name: `DELETE configmap ${seg.slice(0, 20)}`, method: 'DELETE', path: `${CMS}/${seg}`, expectCode: 404 });
  }
  // %2F separates segments as in Go's URL.Path: a/b is the subresource b of a, which does not exist.
  out.push({ name: 'GET configmap a%2Fb', method: 'GET', path: `${CMS}/a%2Fb`, expectCode: 404 });
  out.push({ name: 'GET configmap %2F', method: 'GET', path: `${CMS}/%2F`, expectCode: 404 });
  for (const p of ['/api//v1/namespaces', '/api/v1//namespaces', `/api/v1/namespaces//configmaps`, '/apis//apps/v1', `/apis/apps//v1/deployments`, `${CMS}//target`]) {
    out.push({ name: `empty segment ${p}`, method: 'GET', path: p, expectCode: 404 });
  }
  out.push({ name: 'malformed escape', method: 'GET', path: `${CMS}/%zz`, expectCode: 400 });
  const badBodyNames: [string, number][] = [['..', 422], ['.', 422], ['a/b', 422], ['a%b', 422], ['ü', 422], ['a'.repeat(254), 422], ['', 422], ['UPPER', 422], ['-x', 422]];
  for (const [n, code] of badBodyNames) {
    out.push({ name: `create named ${JSON.stringify(n.slice(0, 20))}`, method: 'POST', path: CMS, headers: JSON_CT, body: cmJson(n), expectCode: code });
  }
  out.push({ name: 'PUT with a body name differing from the path', method: 'PUT', path: `${CMS}/target`, headers: JSON_CT, body: cmJson('other'), expectCode: 400 });
  out.push({ name: 'create in a namespace named in the body differently', method: 'POST', path: CMS, headers: JSON_CT, body: cmJson(uniq()).replace('"metadata":{', '"metadata":{"namespace":"other",'), expectCode: 400 });
  return out;
}

/** Label and field selectors and other query parameters. */
export function queryCases(): HostileCase[] {
  const ok = ['a=b', 'a!=b', 'a==b', 'a in (b,c)', 'a notin (b)', '!a', 'a', 'a,b', 'constructor', 'toString=x', 'prototype!=y', 'a>1', 'a<5',
    Array(300).fill('k=v').join(','), 'example.com/k in (a, b)'];
  const bad = ['=', '!', '!=', 'a in (', 'a in ()', 'a in (b', '(((', '('.repeat(1000), 'a=b=c', 'a b c', ',,', 'a=b,', 'a>b', '__proto__',
    '__proto__=x', '🍕=1', 'a'.repeat(400), `a=${'b'.repeat(64)}`, 'a in (b)) ', 'a notin', '%', 'a=(b)'];
  const enc = encodeURIComponent;
  const out: HostileCase[] = [];
  for (const s of ok) out.push({ name: `labelSelector ${s.slice(0, 30)}`, method: 'GET', path: `${CMS}?labelSelector=${enc(s)}`, expectCode: 200 });
  for (const s of bad) out.push({ name: `labelSelector ${s.slice(0, 30)}`, method: 'GET', path: `${CMS}?labelSelector=${enc(s)}`, expectCode: 400, expectReason: 'BadRequest' });
  const fieldOk = ['metadata.name=x', 'metadata.name==x', 'metadata.name!=x', 'metadata.namespace=hostile,metadata.name!=y', ''];
  const fieldBad = ['metadata.name', '=x', 'spec.foo=x', 'metadata.labels=x', 'constructor=x', '__proto__=x', 'metadata.name=x,,', '!', 'metadata.name in (x)'];
  for (const s of fieldOk) out.push({ name: `fieldSelector ${s}`, method: 'GET', path: `${CMS}?fieldSelector=${enc(s)}`, expectCode: 200 });
  for (const s of fieldBad) out.push({ name: `fieldSelector ${s}`, method: 'GET', path: `${CMS}?fieldSelector=${enc(s)}`, expectCode: 400 });
  const params: [string, number][] = [
    ['limit=abc', 400], ['limit=99999999999999999999', 400], ['limit=1', 200], ['resourceVersion=abc', 400], ['continue=garbage', 400],
    ['__proto__=1', 200], ['constructor=1', 200], ['labelSelector=a&labelSelector=b', 200], ['watch=0', 200],
  ];
  for (const [q, code] of params) out.push({ name: `list ?${q}`, method: 'GET', path: `${CMS}?${q}`, expectCode: code });
  for (const s of ['a in (', '((((', '__proto__']) {
    out.push({ name: `watch with labelSelector ${s}`, method: 'GET', path: `${CMS}?watch=true&labelSelector=${enc(s)}`, expectCode: 400 });
  }
  out.push({ name: 'watch with fieldSelector constructor=x', method: 'GET', path: `${CMS}?watch=true&fieldSelector=constructor%3Dx`, expectCode: 400 });
  out.push({ name: 'delete ?gracePeriodSeconds huge', method: 'DELETE', path: `${CMS}/nothing?gracePeriodSeconds=99999999999999999999`, expectCode: 400 });
  out.push({ name: 'delete ?gracePeriodSeconds=abc', method: 'DELETE', path: `${CMS}/nothing?gracePeriodSeconds=abc`, expectCode: 400 });
  out.push({ name: 'delete body gracePeriodSeconds 1.5', method: 'DELETE', path: `${CMS}/nothing`, headers: JSON_CT, body: '{"gracePeriodSeconds":1.5}', expectCode: 400 });
  out.push({ name: 'delete body gracePeriodSeconds 1e300', method: 'DELETE', path: `${CMS}/nothing`, headers: JSON_CT, body: '{"gracePeriodSeconds":1e300}', expectCode: 400 });
  out.push({ name: 'delete body that is a list', method: 'DELETE', path: `${CMS}/nothing`, headers: JSON_CT, body: '[]', expectCode: 400 });
  const del = (name: string, q: string, body: string | undefined, code: number, message?: RegExp) =>
    out.push({ name: `delete ${name}`, method: 'DELETE', path: `${CMS}/nothing${q}`, headers: body ? JSON_CT : undefined, body, expectCode: code, expectMessage: message });
  del('?propagationPolicy=bogus', '?propagationPolicy=bogus', undefined, 422,
    /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Unsupported value: "bogus": supported values: "Foreground", "Background", "Orphan", "nil"$/);
  del('body propagationPolicy bogus', '', '{"propagationPolicy":"bogus"}', 422);
  del('body propagationPolicy a number', '', '{"propagationPolicy":7}', 400);
  del('body orphanDependents and propagationPolicy', '', '{"propagationPolicy":"Orphan","orphanDependents":true}', 422, /cannot be both set/);
  del('body dryRun ["x"]', '', '{"dryRun":["x"]}', 422);
  del('body dryRun "All"', '', '{"dryRun":"All"}', 400);
  del('body preconditions a string', '', '{"preconditions":"x"}', 400);
  del('body preconditions.uid a number', '', '{"preconditions":{"uid":5}}', 400);
  del('with valid options (not found)', '?propagationPolicy=Foreground', '{"gracePeriodSeconds":0,"preconditions":{"uid":"u"}}', 404);
  return out;
}

/** Tables, lists and partial metadata of everything the other groups stored (run last). */
export function readBackCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const table = { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' };
  const partial = { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' };
  const lists = [...['configmaps', 'pods', 'services', 'events', 'secrets'].map((r) => `/api/v1/namespaces/${NS}/${r}`),
    ...['deployments', 'controllerrevisions', 'replicasets'].map((r) => `/apis/apps/v1/namespaces/${NS}/${r}`)];
  for (const path of lists) {
    out.push({ name: `table of ${path}`, method: 'GET', path, headers: table, expectCode: 200 });
    out.push({ name: `list of ${path}`, method: 'GET', path, expectCode: 200 });
    out.push({ name: `partial list of ${path}`, method: 'GET', path, headers: partial, expectCode: 200 });
  }
  out.push({ name: 'table of target with includeObject=garbage', method: 'GET', path: `${CMS}/target?includeObject=garbage`, headers: table, expectCode: 200 });
  return out;
}
