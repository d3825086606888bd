// keepManagedTimesIfOnlyChange: a write whose only effect would be new managedFields times keeps the stored entries
// (so the registry's no-op comparison spares the store); any other difference, in an entry or in the object, keeps
// the new object as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepManagedTimesIfOnlyChange } from '../../src/registry/managed-fields.js';

const entry = (time: string, fields: Record<string, unknown> = { 'f:data': { 'f:a': {} } }) =>
  ({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: fields });
const obj = (time: string, data = 'x', fields?: Record<string, unknown>) =>
  ({ metadata: { name: 'c', managedFields: [entry(time, fields)] }, data: { a: data } });

test('only the times differ: the stored entries are kept', () => {
  const cur = obj('2026-01-01T00:00:00Z');
  const kept = keepManagedTimesIfOnlyChange(obj('2026-01-01T00:00:09Z'), cur);
  assert.equal(kept.metadata.managedFields, cur.metadata.managedFields);
  assert.deepEqual(kept, cur);
});

test('a changed field set, a changed object or another entry count: the new object as it is', () => {
  const cur = obj('2026-01-01T00:00:00Z');
  const fields = obj('2026-01-01T00:00:09Z', 'x', { 'f:data': { 'f:b': {} } });
  assert.equal(keepManagedTimesIfOnlyChange(fields, cur), fields);
  const data = obj('2026-01-01T00:00:09Z', 'y');
  const kept = keepManagedTimesIfOnlyChange(data, cur);
  assert.notDeepEqual(kept, cur); // the data differs: the registry writes it
  const two = { ...cur, metadata: { ...cur.metadata, managedFields: [entry('t'), entry('u')] } };
  assert.equal(keepManagedTimesIfOnlyChange(two, cur), two);
  const none = { metadata: { name: 'c' } as { name: string; managedFields?: unknown }, data: { a: 'x' } };
  assert.equal(keepManagedTimesIfOnlyChange(none, cur), none);
});
