// Bodies at the size limit that once held the event loop for seconds (issue 22): protobuf maps of 200,000
// entries, unknown protobuf fields nested 50,000 deep, JSON a million brackets deep, YAML with 100,000 aliases;
// and valid bodies near the limit of each type, which must still be accepted. The same rows feed the event-loop
// stall bench (bench/hostile-stall.ts), which imports them from the compiled dist/test/helpers.
import { APPLY_CT, CMS, JSON_CT, JSONPATCH_CT, MERGE_CT, uniq, YAML_CT, type HostileCase } from './hostile-cases.js';
import { envelope, ld, varint } from './hostile-protobuf.js';

const PB = { 'content-type': 'application/vnd.kubernetes.protobuf' };

/** A protobuf ConfigMap with `n` data entries `k<i>` of `value`, built in one concatenation. */
function pbMapEntries(name: string, n: number, value = ''): Buffer {
  const parts = [ld(1, ld(1, name))];
  for (let i = 0; i < n; i++) parts.push(ld(2, ld(1, `k${i}`), ld(2, value)));
  return envelope('v1', 'ConfigMap', Buffer.concat(parts));
}

/** A protobuf ConfigMap carrying unknown field 99, whose payload is field 99 again, `depth` levels deep. */
function pbUnknownNested(name: string, depth: number): Buffer {
  const headers: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < depth; i++) {
    const h = Buffer.concat([varint(99 * 8 + 2), varint(size)]);
    headers.push(h);
    size += h.length;
  }
  return envelope('v1', 'ConfigMap', Buffer.concat([ld(1, ld(1, name)), ...headers.reverse()]));
}

const yamlMap = (name: string, data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${data}`;

/** `anchors` anchors used `uses` times each, as data values. */
function yamlAliases(name: string, anchors: number, uses: number): string {
  const lines = ['metadata2:'];
  for (let a = 0; a < anchors; a++) lines.push(`  a${a}: &a${a} v`);
  lines.push('data:');
  for (let a = 0; a < anchors; a++) for (let u = 0; u < uses; u++) lines.push(`  k${a}-${u}: *a${a}`);
  return yamlMap(name, `${lines.join('\n')}\n`);
}

/** A valid ConfigMap of `keys` entries of `size` bytes in JSON, about keys * size bytes. */
const bigData = (keys: number, size: number) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'x'.repeat(size)]));

export function largeBodyCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const add = (name: string, c: Omit<HostileCase, 'name' | 'method' | 'path'> & { method?: string; path?: string }) =>
    out.push({ name: `large body: ${name}`, method: 'POST', path: CMS, ...c });
  const deep = /exceeded max depth/;
  // Protobuf.
  add('protobuf ConfigMap of 200,000 map entries', { headers: PB, body: pbMapEntries(uniq('pbmap'), 200_000), expectCode: 422, expectMessage: /Too long: may not be more than 1048576 bytes/ });
  add('protobuf ConfigMap of 2,000 entries of 450 bytes', { headers: PB, body: pbMapEntries(uniq('pbmap'), 2_000, 'x'.repeat(450)), expectCode: 201 });
  const pbDeep = /messages nest more than 100 levels deep/;
  add('protobuf unknown field nested 50,000 deep', { headers: PB, body: pbUnknownNested(uniq('pbdeep'), 50_000), expectCode: 400, expectMessage: pbDeep });
  add('protobuf unknown field nested 101 deep', { headers: PB, body: pbUnknownNested(uniq('pbdeep'), 101), expectCode: 400, expectMessage: pbDeep });
  add('protobuf unknown field nested 100 deep', { headers: PB, body: pbUnknownNested(uniq('pbdeep'), 100), expectCode: 201 });
  // JSON, as created and as each patch type's body before the patch engines see it.
  const arrays = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
  add('JSON arrays 1,000,000 deep', { headers: JSON_CT, body: arrays, expectCode: 400, expectMessage: deep });
  add('JSON objects 500,000 deep', { headers: JSON_CT, body: '{"a":'.repeat(500_000) + '1' + '}'.repeat(500_000), expectCode: 400, expectMessage: deep });
  add('merge patch 1,000,000 deep', { method: 'PATCH', path: `${CMS}/target`, headers: MERGE_CT, body: `{"x":${arrays}}`, expectCode: 400, expectMessage: deep });
  add('json patch 1,000,000 deep', { method: 'PATCH', path: `${CMS}/target`, headers: JSONPATCH_CT, body: `[{"op":"add","path":"/x","value":${arrays}}]`, expectCode: 400, expectMessage: deep });
  const tooMuch = /Too long: may not be more than 1048576 bytes/;
  add('JSON ConfigMap of 200,000 keys', { headers: JSON_CT, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniq('keys') }, data: bigData(200_000, 0) }), expectCode: 422, expectMessage: tooMuch });
  add('JSON ConfigMap of 200,000 keys, replacing one', { method: 'PUT', path: `${CMS}/target`, headers: JSON_CT, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: bigData(200_000, 0) }), expectCode: 422, expectMessage: /ConfigMap "target" is invalid: : Too long: may not be more than 1048576 bytes/ });
  add('JSON ConfigMap of 1,000 KiB', { headers: JSON_CT, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniq('big') }, data: bigData(2_000, 500) }), expectCode: 201 });
  // YAML, as created and as an apply configuration.
  const aliasing = /yaml: document contains excessive aliasing/;
  const flow = (name: string) => yamlMap(name, `metadata2: &a {x: y}\ndata:\n  k: [${Array(100_000).fill('*a').join(', ')}]\n`);
  add('YAML of 100,000 aliases in a flow sequence', { headers: YAML_CT, body: flow(uniq('ya')), expectCode: 400, expectMessage: aliasing });
  add('YAML of 150,000 aliases as map values', { headers: YAML_CT, body: yamlAliases(uniq('ya'), 1_500, 100), expectCode: 400, expectMessage: aliasing });
  add('apply configuration of 100,000 aliases', { method: 'PATCH', path: `${CMS}/target?fieldManager=hostile`, headers: APPLY_CT, body: flow('target'), expectCode: 400, expectMessage: aliasing });
  add('YAML of 1,001 aliases', { headers: YAML_CT, body: yamlAliases(uniq('ya'), 11, 91), expectCode: 400, expectMessage: aliasing });
  // The yaml library also refuses the 100th use of one anchor: 20 anchors used 50 times each.
  add('YAML of 1,000 aliases', { headers: YAML_CT, body: yamlAliases(uniq('ya'), 20, 50), expectCode: 201 });
  const lines = Array.from({ length: 2_000 }, (_, i) => `  k${i}: ${'x'.repeat(450)}`).join('\n');
  add('YAML ConfigMap of 900 KiB', { headers: YAML_CT, body: yamlMap(uniq('ybig'), `data:\n${lines}\n`), expectCode: 201 });
  return out;
}
