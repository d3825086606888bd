// flowcontrol.apiserver.k8s.io/v1 through real kubectl: the built-in FlowSchemas and priority levels with upstream's
// columns and order, describe, validation messages, the Dangling status, and how the configuration producer treats
// the built-in objects a user changes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

/** The rows of a `kubectl get` table, each as its cells (columns are separated by two or more spaces). */
function table(out: string): string[][] {
  return out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
}

/** The table without its AGE column (the header's index). */
function withoutAge(rows: string[][]): string[][] {
  const age = rows[0].indexOf('AGE');
  return rows.map((r) => r.filter((_, i) => i !== age));
}

const schemaRows = [
  ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'MISSINGPL'],
  ['exempt', 'exempt', '1', '<none>', 'False'],
  ['probes', 'exempt', '2', '<none>', 'False'],
  ['system-leader-election', 'leader-election', '100', 'ByUser', 'False'],
  ['endpoint-controller', 'workload-high', '150', 'ByUser', 'False'],
  ['workload-leader-election', 'leader-election', '200', 'ByUser', 'False'],
  ['system-node-high', 'node-high', '400', 'ByUser', 'False'],
  ['system-nodes', 'system', '500', 'ByUser', 'False'],
  ['kube-controller-manager', 'workload-high', '800', 'ByNamespace', 'False'],
  ['kube-scheduler', 'workload-high', '800', 'ByNamespace', 'False'],
  ['kube-system-service-accounts', 'workload-high', '900', 'ByNamespace', 'False'],
  ['service-accounts', 'workload-low', '9000', 'ByUser', 'False'],
  ['global-default', 'global-default', '9900', 'ByUser', 'False'],
  ['catch-all', 'catch-all', '10000', 'ByUser', 'False'],
];

const levelRows = [
  ['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT'],
  ['catch-all', 'Limited', '5', '<none>', '<none>', '<none>'],
  ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>'],
  ['global-default', 'Limited', '20', '128', '6', '50'],
  ['leader-election', 'Limited', '10', '16', '4', '50'],
  ['node-high', 'Limited', '40', '64', '6', '50'],
  ['system', 'Limited', '30', '64', '6', '50'],
  ['workload-high', 'Limited', '40', '128', '6', '50'],
  ['workload-low', 'Limited', '100', '128', '6', '50'],
];

const mine = (pl: string) => `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: mine
spec:
  priorityLevelConfiguration:
    name: ${pl}
  rules:
  - subjects:
    - kind: Group
      group:
        name: devs
    resourceRules:
    - verbs: ["*"]
      apiGroups: ["*"]
      resources: ["*"]
      namespaces: ["*"]
`;

describe('flowcontrol.apiserver.k8s.io/v1', () => {
  const env = useKubectlServer({ args: [...noAddons] });

  it('lists the built-in FlowSchemas by precedence and the priority levels by name, with upstream columns', async () => {
    // The configuration producer runs once the server listens: wait until every status is set.
    const schemas = await eventually(async () => {
      const rows = withoutAge(table(await env.k.ok(['get', 'flowschemas'])));
      return rows.length === schemaRows.length && rows.every((r) => r[4] !== '?') && rows;
    }, 30_000, 'the built-in FlowSchemas and their status');
    assert.deepEqual(schemas, schemaRows);
    assert.deepEqual(withoutAge(table(await env.k.ok(['get', 'prioritylevelconfigurations']))), levelRows);
    const resources = await env.k.ok(['api-resources', '--api-group=flowcontrol.apiserver.k8s.io']);
    assert.match(resources, /^flowschemas\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+FlowSchema$/m);
    assert.match(resources, /^prioritylevelconfigurations\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+PriorityLevelConfiguration$/m);
  });

  it('describes a FlowSchema', async () => {
    const out = await env.k.ok(['describe', 'flowschema', 'global-default']);
    assert.match(out, /^Name:\s+global-default$/m);
    assert.match(out, /^Annotations:\s+apf\.kubernetes\.io\/autoupdate-spec: true$/m);
    assert.match(out, /^\s+Matching Precedence:\s+9900$/m);
    assert.match(out, /^\s+Name:\s+system:unauthenticated$/m);
    assert.match(out, /Message:\s+This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists/);
    assert.match(out, /^\s+Reason:\s+Found$/m);
  });

  it('refuses invalid objects with upstream messages', async () => {
    const level = `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: bad
spec:
  type: Limited
  limited:
    lendablePercent: 101
    limitResponse:
      type: Queue
      queuing: {queues: 4, handSize: 8}
`;
    const err = await env.k.fails(['apply', '-f', '-'], { input: level });
    assert.match(err, /The PriorityLevelConfiguration "bad" is invalid: \n\* spec\.limited\.limitResponse\.queuing\.handSize: Invalid value: 8: should not be greater than queues \(4\)\n\* spec\.limited\.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive/);
    const first = await env.k.fails(['apply', '-f', '-'], { input: mine('x').replace('  rules:', '  matchingPrecedence: 1\n  rules:') });
    assert.match(first, /spec\.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1/);
    const fixed = await env.k.fails(['patch', 'flowschema', 'catch-all', '--type=merge', '-p', '{"spec":{"matchingPrecedence":9999}}']);
    assert.match(fixed, /spec of 'catch-all' must equal the fixed value/);
  });

  it('marks a FlowSchema whose priority level is missing as Dangling, and clears it when the level appears', async () => {
    assert.match(await env.k.ok(['apply', '-f', '-'], { input: mine('later') }), /flowschema\.flowcontrol\.apiserver\.k8s\.io\/mine created/);
    await eventually(async () => withoutAge(table(await env.k.ok(['get', 'flowschema', 'mine'])))[1]?.[4] === 'True', 20_000, 'MISSINGPL True');
    const reason = await env.k.ok(['get', 'flowschema', 'mine', '-o', 'jsonpath={.status.conditions[?(@.type=="Dangling")].reason} {.status.conditions[?(@.type=="Dangling")].message}']);
    assert.equal(reason, 'NotFound This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object');
    // A re-apply of the unchanged object writes nothing.
    const rv = await env.k.ok(['get', 'flowschema', 'mine', '-o', 'jsonpath={.metadata.resourceVersion}']);
    assert.match(await env.k.ok(['apply', '-f', '-'], { input: mine('later') }), /flowschema\.flowcontrol\.apiserver\.k8s\.io\/mine unchanged/);
    assert.equal(await env.k.ok(['get', 'flowschema', 'mine', '-o', 'jsonpath={.metadata.resourceVersion}']), rv);
    await env.k.ok(['apply', '-f', '-'], { input: 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: later\nspec:\n  type: Limited\n  limited:\n    limitResponse:\n      type: Reject\n' });
    await eventually(async () => withoutAge(table(await env.k.ok(['get', 'flowschema', 'mine'])))[1]?.[4] === 'False', 20_000, 'MISSINGPL False');
    const later = await env.k.ok(['get', 'prioritylevelconfiguration', 'later', '-o', 'jsonpath={.spec.limited.nominalConcurrencyShares} {.spec.limited.lendablePercent}']);
    assert.equal(later, '30 0');
    await env.k.ok(['delete', 'flowschema', 'mine']);
    await env.k.ok(['delete', 'prioritylevelconfiguration', 'later']);
  });

  it('keeps a suggested object a user changed with autoupdate-spec "false", and puts the mandatory ones back', async () => {
    await env.k.ok(['patch', 'prioritylevelconfiguration', 'workload-low', '--type=merge', '-p',
      '{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"limited":{"nominalConcurrencyShares":7}}}']);
    // With the annotation still "true", the built-in spec comes back.
    await env.k.ok(['patch', 'prioritylevelconfiguration', 'global-default', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":9}}}']);
    await env.k.ok(['annotate', 'prioritylevelconfiguration', 'catch-all', 'apf.kubernetes.io/autoupdate-spec=false', '--overwrite']);
    await env.k.ok(['delete', 'flowschema', 'exempt']);
    const shares = (name: string) => env.k.ok(['get', 'prioritylevelconfiguration', name, '-o', 'jsonpath={.spec.limited.nominalConcurrencyShares}']);
    await eventually(async () => (await shares('global-default')) === '20', 20_000, 'global-default back at 20 shares');
    await eventually(async () => (await env.k.ok(['get', 'prioritylevelconfiguration', 'catch-all', '-o', 'jsonpath={.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}'])) === 'true', 20_000, 'catch-all annotated "true" again');
    await eventually(async () => (await env.k.run(['get', 'flowschema', 'exempt'])).code === 0, 20_000, 'the exempt FlowSchema recreated');
    assert.equal(await shares('workload-low'), '7');
    assert.equal(await env.k.ok(['get', 'prioritylevelconfiguration', 'workload-low', '-o', 'jsonpath={.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}']), 'false');
  });
});
