import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { crdScaleTablePrinter, crdTablePrinter, tablePrinterForColumns } from '../../src/apiextensions/printer-columns.js';
import { customResourceDefinitionTable } from '../../src/apiextensions/crd-table.js';
import type { KObject } from '../../src/machinery/types.js';

const crds = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'crds');
const load = (file: string): unknown => parse(readFileSync(join(crds, file), 'utf8'), { maxAliasCount: 0 });
const jobset = load('jobset.x-k8s.io_jobsets.yaml');
const lws = load('leaderworkerset.x-k8s.io_leaderworkersets.yaml');

const now = new Date('2024-01-01T12:00:00Z');
const created = '2024-01-01T11:55:00Z';
const obj = (o: Record<string, unknown>): KObject => ({ metadata: { name: 'demo', namespace: 'default', creationTimestamp: created }, ...o }) as KObject;
const head = (p: { columns: { name: string; type: string; priority: number; format: string; description: string }[] }) => p.columns.map((c) => `${c.name}:${c.type}:${c.priority}`);

test('JobSet columns and cells', () => {
  const p = crdTablePrinter(jobset, 'v1alpha2');
  assert.deepEqual(head(p), ['Name:string:0', 'TerminalState:string:0', 'Restarts:string:0', 'Completed:string:0', 'Suspended:string:0', 'Age:date:0']);
  assert.equal(p.columns[0].format, 'name');
  assert.equal(p.columns[1].description, 'Final state of JobSet');
  assert.equal(p.columns[3].description, 'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Completed")].status');
  const fresh = obj({ spec: { suspend: false }, status: { restarts: 0 } });
  assert.deepEqual(p.cells(fresh, now), ['demo', null, '0', null, 'false', '5m']);
  const done = obj({ spec: {}, status: { terminalState: 'Completed', restarts: 2, conditions: [{ type: 'StartupPolicyCompleted', status: 'True' }, { type: 'Completed', status: 'True' }] } });
  assert.deepEqual(p.cells(done, now), ['demo', 'Completed', '2', 'True', null, '5m']);
});

test('LeaderWorkerSet columns and cells', () => {
  const p = crdTablePrinter(lws, 'v1');
  assert.deepEqual(head(p), ['Name:string:0', 'Ready:integer:0', 'Desired:integer:0', 'Up-to-date:integer:0', 'Age:date:0']);
  assert.deepEqual(p.cells(obj({ spec: { replicas: 3 }, status: { readyReplicas: 2, updatedReplicas: 3 } }), now), ['demo', 2, 3, 3, '5m']);
  assert.deepEqual(p.cells(obj({ spec: { replicas: 3 } }), now), ['demo', null, 3, null, '5m']);
});

test('a version without columns gets Name and Age', () => {
  const crd = { spec: { versions: [{ name: 'v1' }] } };
  const p = crdTablePrinter(crd, 'v1');
  assert.deepEqual(head(p), ['Name:string:0', 'Age:date:0']);
  assert.match(p.columns[1].description, /^CreationTimestamp is a timestamp/);
  assert.deepEqual(p.cells(obj({}), now), ['demo', '5m']);
});

test('cells convert by column type, first result only', () => {
  const p = tablePrinterForColumns([
    { name: 'I', type: 'integer', jsonPath: '.spec.f' },
    { name: 'N', type: 'number', jsonPath: '.spec.i' },
    { name: 'B', type: 'boolean', jsonPath: '.spec.s' },
    { name: 'S', type: 'string', jsonPath: '.spec.items[*].name' },
    { name: 'M', type: 'string', jsonPath: '.spec.map' },
    { name: 'Z', type: 'string', jsonPath: '.spec.nil' },
    { name: 'D', type: 'date', jsonPath: '.spec.bad' },
    { name: 'W', type: 'string', priority: 1, format: 'int32', description: 'wide', jsonPath: '.spec.items[9].name' },
  ]);
  assert.deepEqual(p.columns[8], { name: 'W', type: 'string', format: 'int32', description: 'wide', priority: 1 });
  const o = obj({ spec: { f: 2.7, i: 4, s: 'true', items: [{ name: 'a' }, { name: 'b' }], map: { b: 1, a: '<' }, nil: null, bad: 'yesterday' } });
  assert.deepEqual(p.cells(o, now), ['demo', 2, 4, null, 'a', '{"a":"\\u003c","b":1}', '<no value>', '<invalid>', null]);
});

test('a column that does not parse drops it and the ones after it', () => {
  const p = tablePrinterForColumns([
    { name: 'A', type: 'string', jsonPath: '.spec.a' },
    { name: 'Bad', type: 'string', jsonPath: '.spec.items[' },
    { name: 'C', type: 'string', jsonPath: '.spec.c' },
  ]);
  assert.deepEqual(p.columns.map((c) => c.name), ['Name', 'A']);
});

test('scale table and the CRD table', () => {
  const s = crdScaleTablePrinter({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' });
  assert.deepEqual(s.columns.map((c) => c.name), ['Name', 'Desired', 'Available', 'Age']);
  assert.deepEqual(s.cells(obj({ spec: { replicas: 2 }, status: { replicas: 1 } }), now), ['demo', 2, 1, '5m']);
  assert.deepEqual(customResourceDefinitionTable.columns.map((c) => c.name), ['Name', 'Created At']);
  const crd = { metadata: { name: 'jobsets.jobset.x-k8s.io', creationTimestamp: '2024-01-01T10:00:00Z' } } as KObject;
  assert.deepEqual(customResourceDefinitionTable.cells(crd, now), ['jobsets.jobset.x-k8s.io', '2024-01-01T10:00:00Z']);
});
