// Hostile input for what patches make objects grow into (issue 22): JSON patch copies that double a value, copies of
// a value built inside the patch, long lists in strategic merge patches and apply configurations. Copies are bounded
// as kube-apiserver bounds them (3 MiB in all, its JSONPatchMaxCopyBytes), answered with its generic 422; long lists
// must merge in linear time (the rows use dryRun, so the fixtures stay as they are).
import { CMS, DEPLOYS, type HostileCase } from './hostile-cases.js';
import { THINGS } from './hostile-extensions.js';

const JSONPATCH_CT = { 'content-type': 'application/json-patch+json' };
const SMP_CT = { 'content-type': 'application/strategic-merge-patch+json' };
const APPLY_CT = { 'content-type': 'application/apply-patch+yaml' };

/** kube-apiserver's answer to a JSON patch whose copies add more than its limit. */
export const copyRefused = { expectCode: 422, expectReason: 'Invalid', expectMessage: /^the server rejected our request due to an error in our request$/ };

/** The repro: one value copied into itself forty times (each copy doubles it). */
export function doublingCopies(copies = 40, from = '/x'): unknown[] {
  const ops: unknown[] = [{ op: 'add', path: from, value: { k: 'v' } }];
  for (let i = 0; i < copies; i++) ops.push({ op: 'copy', from, path: `${from}/c${i}` });
  return ops;
}

/** A value of about `kib` KiB built inside the patch by copies (a 1 KiB string doubled), then copied until `ops` operations. */
export function builtValueCopies(kib = 512, ops = 10_000): unknown[] {
  const out: unknown[] = [{ op: 'add', path: '/t0', value: 'a'.repeat(1000) }];
  let level = 0;
  for (; 1 << level < kib; level++) {
    out.push({ op: 'add', path: `/t${level + 1}`, value: {} });
    out.push({ op: 'copy', from: `/t${level}`, path: `/t${level + 1}/a` }, { op: 'copy', from: `/t${level}`, path: `/t${level + 1}/b` });
  }
  out.push({ op: 'add', path: '/c', value: {} });
  while (out.length < ops) out.push({ op: 'copy', from: `/t${level}`, path: `/c/n${out.length}` });
  return out;
}

export function patchSizeCases(): HostileCase[] {
  const cm = `${CMS}/target`;
  const dry = '?dryRun=All';
  // Long enough that a search per item takes seconds (server-side apply does more per item: shorter lists).
  const n = 20_000;
  const names = Array.from({ length: n }, (_, i) => `example.com/f${i}`);
  const env = Array.from({ length: n }, (_, i) => ({ name: `E${i}`, value: 'v' }));
  const applied = env.slice(0, 5_000);
  const data = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, 'v']));
  const json = (name: string, ops: unknown[], extra: Partial<HostileCase> = copyRefused): HostileCase =>
    ({ name, method: 'PATCH', path: cm, headers: JSONPATCH_CT, body: JSON.stringify(ops), ...extra });
  return [
    json('40 copies that each double a value', doublingCopies()),
    json('a 512 KiB value built by copies, then copied 10,000 times', builtValueCopies()),
    json('copies of the whole document into itself', Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` }))),
    json('copies into a list, appended', [{ op: 'add', path: '/l', value: ['x'.repeat(1000)] }, ...Array.from({ length: 20 }, () => ({ op: 'copy', from: '/l', path: '/l/-' }))]),
    json('copies within the limit, then removed', [...doublingCopies(10), { op: 'remove', path: '/x' }], { expectCode: 200 }),
    json('moves that nest a value 3,000 levels deep (an unknown field: dropped)', [{ op: 'add', path: '/deep', value: {} },
      ...Array.from({ length: 3000 }, () => [{ op: 'add', path: '/tmp', value: {} }, { op: 'move', from: '/deep', path: '/tmp/a' }, { op: 'move', from: '/tmp', path: '/deep' }]).flat()], { expectCode: 200 }),
    // In a field that keeps what it is given, depth is bounded where anything is stored (1,000 levels).
    { name: 'moves that nest a kept value 1,500 levels deep', method: 'PATCH', path: `${THINGS}/target${dry}`, headers: JSONPATCH_CT, expectCode: 400,
      body: JSON.stringify([{ op: 'add', path: '/spec/free', value: { deep: {} } }, ...Array.from({ length: 1500 }, () => [{ op: 'add', path: '/spec/free/tmp', value: {} },
        { op: 'move', from: '/spec/free/deep', path: '/spec/free/tmp/a' }, { op: 'move', from: '/spec/free/tmp', path: '/spec/free/deep' }]).flat()]) },
    { name: 'doubling copies in a field that keeps them', method: 'PATCH', path: `${THINGS}/target`, headers: JSONPATCH_CT, ...copyRefused,
      body: JSON.stringify([{ op: 'add', path: '/spec/free', value: {} }, ...doublingCopies(40, '/spec/free/x')]) },
    { name: 'strategic: 20,000 finalizers in $setElementOrder and $deleteFromPrimitiveList', method: 'PATCH', path: cm + dry, headers: SMP_CT,
      body: JSON.stringify({ metadata: { '$setElementOrder/finalizers': names, '$deleteFromPrimitiveList/finalizers': names } }), expectCode: 200 },
    { name: 'strategic: 20,000 finalizers merged', method: 'PATCH', path: cm + dry, headers: SMP_CT, body: JSON.stringify({ metadata: { finalizers: names } }), expectCode: 200 },
    { name: 'strategic: 20,000 env items merged by name, twice over', method: 'PATCH', path: `${DEPLOYS}/web${dry}`, headers: SMP_CT,
      body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', env: [...env, ...env] }] } } } }), expectCode: 200 },
    { name: 'strategic: 20,000 env items with $setElementOrder', method: 'PATCH', path: `${DEPLOYS}/web${dry}`, headers: SMP_CT,
      body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', '$setElementOrder/env': env.map((e) => ({ name: e.name })), env }] } } } }), expectCode: 200 },
    { name: 'strategic: 20,000 env deletions', method: 'PATCH', path: `${DEPLOYS}/web${dry}`, headers: SMP_CT,
      body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', env: env.map((e) => ({ name: e.name, $patch: 'delete' })) }] } } } }), expectCode: 200 },
    { name: 'apply: 5,000 env items', method: 'PATCH', path: `${DEPLOYS}/web${dry}&fieldManager=size&force=true`, headers: APPLY_CT,
      body: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'c', env: applied }] } } } }), expectCode: 200 },
    { name: 'apply: 5,000 data keys', method: 'PATCH', path: `${cm}${dry}&fieldManager=size`, headers: APPLY_CT,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data }), expectCode: 200 },
  ];
}
