// flowcontrol.apiserver.k8s.io/v1 without a server: upstream's defaults, validation messages, the printers' cells,
// the built-in objects passing their own validation, and what the configuration producer writes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/machinery/types.js';
import { defaultKind, validateKind } from '../helpers/builtin-defs.js';
import { flowSchemaPrinter, priorityLevelConfigurationPrinter } from '../../src/registry/tables/flowcontrol.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/flowcontrol/bootstrap.js';
import { danglingCondition, desiredUpdate } from '../../src/flowcontrol/config-controller.js';

const group = 'flowcontrol.apiserver.k8s.io';
const fsKind = { group, kind: 'FlowSchema' };
const plKind = { group, kind: 'PriorityLevelConfiguration' };

const obj = (kind: string, name: string, spec: unknown, extra: Partial<KObject> = {}): KObject =>
  ({ apiVersion: `${group}/v1`, kind, metadata: { name, ...extra.metadata }, spec: structuredClone(spec), ...(extra.status ? { status: extra.status } : {}) });
const messages = (kind: typeof fsKind, o: KObject) => validateKind(kind, o).map((e) => `${e.field}: ${e.message}`);
const rules = [{ subjects: [{ kind: 'Group', group: { name: 'devs' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }];

describe('flowcontrol defaults', () => {
  it('fills in what upstream does, and keeps an explicit zero share', () => {
    const fs = obj('FlowSchema', 'a', { priorityLevelConfiguration: { name: 'x' }, rules });
    defaultKind(fsKind, fs);
    assert.equal((fs.spec as { matchingPrecedence: number }).matchingPrecedence, 1000);
    const pl = obj('PriorityLevelConfiguration', 'b', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } });
    defaultKind(plKind, pl);
    assert.deepEqual(pl.spec, { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } });
    const jail = obj('PriorityLevelConfiguration', 'c', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } });
    defaultKind(plKind, jail);
    assert.equal((jail.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 0);
  });
});

describe('flowcontrol validation', () => {
  it('accepts every built-in object as it is', () => {
    for (const o of [...mandatoryFlowSchemas, ...suggestedFlowSchemas]) assert.deepEqual(messages(fsKind, structuredClone(o) as unknown as KObject), [], o.metadata.name);
    for (const o of [...mandatoryPriorityLevels, ...suggestedPriorityLevels]) assert.deepEqual(messages(plKind, structuredClone(o) as unknown as KObject), [], o.metadata.name);
  });

  it('reports FlowSchema errors in upstream words', () => {
    const fs = obj('FlowSchema', 'a', {
      priorityLevelConfiguration: { name: '' }, matchingPrecedence: 1, distinguisherMethod: { type: 'ByGroup' },
      rules: [{ subjects: [{ kind: 'User', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get', 'fetch'], nonResourceURLs: ['healthz', '/a/*/b'] }] }],
    });
    assert.deepEqual(messages(fsKind, fs), [
      'spec.matchingPrecedence: Invalid value: 1: only the schema named \'exempt\' may have matchingPrecedence 1',
      'spec.distinguisherMethod.type: Unsupported value: {"type":"ByGroup"}: supported values: "ByNamespace", "ByUser"',
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
      'spec.rules[0].subjects[0].user: Required value: user is required when subject kind is \'User\'',
      'spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not \'Group\'',
      'spec.rules[0].nonResourceRules[0].verbs: Unsupported value: ["get","fetch"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
    ]);
    const ns = obj('FlowSchema', 'b', { priorityLevelConfiguration: { name: 'x' }, matchingPrecedence: 10001, rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'sa' } }], resourceRules: [{ verbs: ['*', 'get'], apiGroups: [''], resources: ['pods'], namespaces: ['Bad'] }] }] });
    assert.deepEqual(messages(fsKind, ns), [
      'spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
      'spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account',
      'spec.rules[0].resourceRules[0].verbs: Invalid value: ["*","get"]: if \'*\' is present, must not specify other verbs',
      'spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "Bad": each member of this list must be \'*\' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    ]);
  });

  it('reports PriorityLevelConfiguration errors in upstream words, and fixes the mandatory specs', () => {
    const queuing = (q: Record<string, number>) => obj('PriorityLevelConfiguration', 'q', { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: q } } });
    assert.deepEqual(messages(plKind, queuing({ queues: 128, handSize: 9, queueLengthLimit: 1 })), [
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 9: required entropy bits of deckSize 128 and handSize 9 should not be greater than 60',
    ]);
    assert.deepEqual(messages(plKind, queuing({ queues: 128, handSize: 8, queueLengthLimit: 1 })), []);
    assert.deepEqual(messages(plKind, obj('PriorityLevelConfiguration', 'r', { type: 'Limited', limited: { nominalConcurrencyShares: -1, lendablePercent: 0, borrowingLimitPercent: -2, limitResponse: { type: 'Reject', queuing: { queues: 1 } } } })), [
      'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
      'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
      'spec.limited.borrowingLimitPercent: Invalid value: -2: if specified, must be a non-negative integer',
    ]);
    const catchAll = structuredClone(mandatoryPriorityLevels.find((p) => p.metadata.name === 'catch-all')!) as unknown as KObject;
    (catchAll.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares = 6;
    assert.match(messages(plKind, catchAll).join('\n'), /^spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value$/);
    const exempt = structuredClone(mandatoryPriorityLevels.find((p) => p.metadata.name === 'exempt')!) as unknown as KObject;
    (exempt.spec as { exempt: { nominalConcurrencyShares: number } }).exempt.nominalConcurrencyShares = 4;
    assert.deepEqual(messages(plKind, exempt), []);
    assert.deepEqual(messages(plKind, obj('PriorityLevelConfiguration', 'exempt', { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } } })), [
      'spec.type: Invalid value: "Limited": type must be \'Exempt\' if and only if name is \'exempt\'',
      'spec: Invalid value: {"type":"Limited","limited":{"nominalConcurrencyShares":1,"lendablePercent":0,"limitResponse":{"type":"Reject"}}}: spec of \'exempt\' except the \'spec.exempt\' field must equal the fixed value',
    ]);
  });
});

describe('flowcontrol printers', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  it('prints "?" before the Dangling condition is set, its status after, and "<none>" for what a level lacks', () => {
    const fs = obj('FlowSchema', 'a', { priorityLevelConfiguration: { name: 'x' }, matchingPrecedence: 10, distinguisherMethod: { type: 'ByUser' } }, { metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' } });
    assert.deepEqual(flowSchemaPrinter.cells(fs, now), ['a', 'x', 10, 'ByUser', '10m', '?']);
    fs.status = { conditions: [danglingCondition('x', false)] };
    assert.equal(flowSchemaPrinter.cells(fs, now)[5], 'True');
    const pl = obj('PriorityLevelConfiguration', 'p', { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } }, { metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' } });
    assert.deepEqual(priorityLevelConfigurationPrinter.cells(pl, now), ['p', 'Limited', 5, '<none>', '<none>', '<none>', '10m']);
    const order = flowSchemaPrinter.order!([obj('FlowSchema', 'b', { matchingPrecedence: 800 }), obj('FlowSchema', 'z', { matchingPrecedence: 2 }), obj('FlowSchema', 'a', { matchingPrecedence: 800 })]);
    assert.deepEqual(order.map((o) => o.metadata.name), ['z', 'a', 'b']);
  });
});

describe('the configuration producer', () => {
  const wanted = suggestedPriorityLevels.find((p) => p.metadata.name === 'global-default')!;
  const stored = (annotations: Record<string, string> | undefined, generation: number, shares: number): KObject => {
    const o = structuredClone(wanted) as unknown as KObject;
    o.metadata = { name: 'global-default', generation, resourceVersion: '5', ...(annotations ? { annotations } : {}) };
    (o.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares = shares;
    return o;
  };
  const key = 'apf.kubernetes.io/autoupdate-spec';

  it('leaves objects that are as they should be', () => {
    assert.equal(desiredUpdate(wanted, stored({ [key]: 'true' }, 1, 20), false), undefined);
    assert.equal(desiredUpdate(wanted, stored({ [key]: 'false' }, 3, 7), false), undefined);
  });

  it('puts a suggested spec back while the annotation says so, and a mandatory one always', () => {
    const back = desiredUpdate(wanted, stored({ [key]: 'true' }, 2, 7), false)!;
    assert.equal((back.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 20);
    assert.equal(back.metadata.resourceVersion, '5');
    const mandatory = desiredUpdate(wanted, stored({ [key]: 'false' }, 2, 7), true)!;
    assert.equal(mandatory.metadata.annotations?.[key], 'true');
    assert.equal((mandatory.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 20);
  });

  it('treats a missing annotation as "true" only while the spec was never changed', () => {
    const fresh = desiredUpdate(wanted, stored(undefined, 1, 20), false)!;
    assert.equal(fresh.metadata.annotations?.[key], 'true');
    const edited = desiredUpdate(wanted, stored(undefined, 2, 7), false)!;
    assert.equal(edited.metadata.annotations?.[key], 'false');
    assert.equal((edited.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 7);
  });

  it('leaves the exempt level\'s spec.exempt to the administrator', () => {
    const exempt = mandatoryPriorityLevels.find((p) => p.metadata.name === 'exempt')!;
    const o = structuredClone(exempt) as unknown as KObject;
    (o.spec as { exempt: { lendablePercent: number } }).exempt.lendablePercent = 40;
    assert.equal(desiredUpdate(exempt, o, true), undefined);
  });
});
