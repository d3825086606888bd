// Protobuf request bodies for the hostile-input suite, written by hand with a tiny wire-format writer:
// valid objects with keys named like Object members, truncations, wrong wire types, nesting.
import { CMS, NS, uniq, type HostileCase } from './hostile-cases.js';

const PB = { 'content-type': 'application/vnd.kubernetes.protobuf' };

export function varint(n: number | bigint): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? b | 0x80 : b);
  } while (v);
  return Buffer.from(out);
}
/** A varint field. */
export const vi = (field: number, n: number | bigint) => Buffer.concat([varint(field * 8), varint(n)]);
/** A length-delimited field. */
export const ld = (field: number, ...parts: (Buffer | string)[]) => {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return Buffer.concat([varint(field * 8 + 2), varint(body.length), body]);
};
export const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from('k8s\0', 'latin1'), ld(1, ld(1, apiVersion), ld(2, kind)), ld(2, raw)]);

/** A map<string,string> entry of field `field`. */
const entry = (field: number, k: string, v: string) => ld(field, ld(1, k), ld(2, v));

/** ConfigMap: metadata 1 (name 1, labels 11), data 2. */
export function configMap(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): Buffer {
  const meta = ld(1, ld(1, name), ...Object.entries(labels).map(([k, v]) => entry(11, k, v)));
  return envelope('v1', 'ConfigMap', Buffer.concat([meta, ...Object.entries(data).map(([k, v]) => entry(2, k, v))]));
}

/** ControllerRevision whose data (a RawExtension) holds `raw`: another envelope or JSON. */
const revision = (name: string, raw: Buffer) => envelope('apps/v1', 'ControllerRevision', Buffer.concat([ld(1, ld(1, name)), ld(2, ld(1, raw)), vi(3, 1)]));

export function protobufCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const add = (name: string, body: Buffer, expectCode: number, path = CMS) => out.push({ name: `protobuf ${name}`, method: 'POST', path, headers: PB, body, expectCode });
  const good = configMap(uniq('pb'), { a: 'b' });
  add('valid configmap', good, 201);
  add('configmap with keys named like Object members', configMap(uniq('pb'), { ['__proto__']: 'x', constructor: 'y', toString: 'z' }, { constructor: 'v' }), 201);
  add('label key __proto__', configMap(uniq('pb'), {}, { ['__proto__']: 'v' }), 422);
  for (const cut of [1, 4, 5, 8, 12, good.length - 3, good.length - 1]) add(`truncated at ${cut}`, good.subarray(0, cut), 400);
  add('trailing garbage', Buffer.concat([good, Buffer.from([0xff, 0xff])]), 400);
  add('no magic', good.subarray(4), 400);
  add('wrong kind for the path', envelope('v1', 'Secret', ld(1, ld(1, uniq('pb')))), 400);
  add('unknown kind', envelope('v1', 'NoSuchThing', Buffer.alloc(0)), 400);
  add('unknown group', envelope('evil.example/v1', 'ConfigMap', Buffer.alloc(0)), 400);
  // A group named like an Object member is other: not even meta.v1's kinds decode in it.
  for (const g of ['constructor', '__proto__', 'toString']) {
    out.push({ name: `protobuf group ${g}`, method: 'POST', path: CMS, headers: PB, body: envelope(`${g}/v1`, 'Status', Buffer.alloc(0)), expectCode: 400, expectMessage: /^the object provided is unrecognized .*scheme "pkg\/runtime\/scheme\.go:100"/ });
  }
  add('metadata as a varint', envelope('v1', 'ConfigMap', vi(1, 5)), 400);
  add('name as a varint', envelope('v1', 'ConfigMap', ld(1, vi(1, 5))), 400);
  add('data entry as a fixed64', envelope('v1', 'ConfigMap', Buffer.concat([ld(1, ld(1, uniq('pb'))), varint(2 * 8 + 1), Buffer.alloc(8)])), 400);
  add('group wire type', envelope('v1', 'ConfigMap', Buffer.from([0x0b, 0x0c])), 400);
  add('field number 0', envelope('v1', 'ConfigMap', Buffer.from([0x02, 0x00])), 400);
  add('length past the end', envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])), 400);
  add('varint of 11 bytes', envelope('v1', 'ConfigMap', Buffer.concat([Buffer.from([0x08]), Buffer.alloc(10, 0xff), Buffer.from([0x01])])), 400);
  add('unknown fields are skipped', envelope('v1', 'ConfigMap', Buffer.concat([ld(1, ld(1, uniq('pb'))), vi(99, 1), ld(100, 'x')])), 201);
  add('random bytes', Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 131 + 7) % 256))]), 400);
  const revisions = `/apis/apps/v1/namespaces/${NS}/controllerrevisions`;
  let nested = Buffer.from('{"a":1}');
  for (let i = 0; i < 60; i++) nested = revision('inner', nested);
  add('envelopes nested 60 deep in RawExtensions', revision(uniq('rev'), nested), 400, revisions);
  add('JSON 500 deep in a RawExtension', revision(uniq('rev'), Buffer.from('{"a":'.repeat(499) + '{}' + '}'.repeat(499))), 201, revisions);
  add('JSON 2,000 deep in a RawExtension', revision(uniq('rev'), Buffer.from('{"a":'.repeat(1999) + '{}' + '}'.repeat(1999))), 400, revisions);
  add('invalid JSON in a RawExtension', revision(uniq('rev'), Buffer.from('{not json')), 400, revisions);
  add('1e400 in a RawExtension', revision(uniq('rev'), Buffer.from('{"a":1e400}')), 400, revisions);
  return out;
}
