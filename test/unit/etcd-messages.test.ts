// The etcd transaction a write sends, encoded by hand, read back with protobufjs and etcd's schema: the compare (a
// create wants the key absent, an update or delete its revision), the put or delete, and the range of the current value
// on failure; keys and values of every size class of a varint length, and text beyond ASCII.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { encodeTxn, etcdProtoSchema } from '../../src/storage/etcd/etcd-messages.js';

const pb = createRequire(import.meta.url)('protobufjs') as typeof import('protobufjs');
const txnRequest = pb.parse(etcdProtoSchema, { keepCase: true }).root.lookupType('etcdserverpb.TxnRequest');

interface Decoded {
  compare: { result: number; target: number; key: string; create_revision?: number; mod_revision?: number; target_union?: string }[];
  success: { request_put?: { key: string; value: string }; request_delete_range?: { key: string } }[];
  failure: { request_range?: { key: string } }[];
}

function decode(b: Uint8Array): Decoded {
  return txnRequest.toObject(txnRequest.decode(b), { bytes: String, longs: Number, defaults: true, oneofs: true }) as unknown as Decoded;
}

const utf8 = (s: string) => Buffer.from(s).toString('base64');

test('a create wants the key absent (create revision 0), puts the value, and reads the key when it exists', () => {
  const key = '/registry/pods/default/web-0';
  const value = JSON.stringify({ kind: 'Pod', metadata: { name: 'web-0', annotations: { note: 'grüße, 世界 🌲' } } });
  const d = decode(encodeTxn('create', key, value, undefined));
  assert.deepEqual(d.compare, [{ result: 0, target: 1, key: utf8(key), create_revision: 0, target_union: 'create_revision' }]);
  assert.deepEqual(d.success.map((op) => op.request_put), [{ key: utf8(key), value: utf8(value) }]);
  assert.equal(d.success[0].request_delete_range, undefined);
  assert.deepEqual(d.failure.map((op) => op.request_range?.key), [utf8(key)]);
});

test('an update and a delete compare the mod revision, at every varint length', () => {
  for (const rev of [0, 1, 127, 128, 16_383, 16_384, 2_097_152, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER]) {
    const u = decode(encodeTxn('update', '/k', 'v', rev));
    assert.equal(u.compare[0].target, 2);
    assert.equal(u.compare[0].target_union, 'mod_revision');
    assert.equal(u.compare[0].mod_revision, rev, `revision ${rev}`);
    assert.equal(u.success[0].request_put?.value, utf8('v'));
    const del = decode(encodeTxn('delete', '/k', undefined, rev));
    assert.equal(del.compare[0].mod_revision, rev);
    assert.equal(del.success[0].request_put, undefined);
    assert.equal(del.success[0].request_delete_range?.key, utf8('/k'));
    assert.equal(del.failure[0].request_range?.key, utf8('/k'));
  }
});

test('values whose length takes one to four varint bytes, and an empty one', () => {
  for (const n of [0, 1, 127, 128, 16_383, 16_384, 300_000, 2_100_000]) {
    const value = 'é'.repeat(n >> 1) + 'x'.repeat(n & 1); // n bytes of UTF-8
    assert.equal(Buffer.byteLength(value), n);
    const key = `/registry/configmaps/ns/${'k'.repeat(n % 300)}`;
    const d = decode(encodeTxn('update', key, value, 7));
    assert.equal(d.success[0].request_put?.key, utf8(key));
    assert.equal(Buffer.from(d.success[0].request_put?.value ?? '', 'base64').toString(), value, `value of ${n} bytes`);
    assert.equal(d.compare[0].key, utf8(key));
  }
});
