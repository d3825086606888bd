// ValidatingAdmissionPolicies through the real kubectl: a policy with Deny and Warn bindings refusing Deployments with
// more than 5 replicas, on create and through the scale subresource (admitted as an autoscaling/v1 Scale), and the
// table columns kubectl prints for policies and bindings.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments", "deployments/scale"]
  validations:
  - expression: "object.spec.replicas <= 5"
`;

const binding = (name: string, action: string, env: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: max-replicas
  validationActions: [${action}]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: ${env}
`;

const denied = `ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-deny' denied request: failed expression: object.spec.replicas <= 5`;

// A second policy, bound through an objectSelector: pods labelled app=blocked are refused, whoever creates them.
const noBlockedPods = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-blocked-pods
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "false"
    message: pods of app=blocked are refused
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-blocked-pods
spec:
  policyName: no-blocked-pods
  validationActions: [Deny]
  matchResources:
    objectSelector:
      matchLabels:
        app: blocked
`;

describe('ValidatingAdmissionPolicy with kubectl', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const k = () => env.k;

  it('applies a policy and two bindings, and prints their columns', async () => {
    for (const [ns, label] of [['vap-deny', 'test'], ['vap-warn', 'staging']]) {
      await k().ok(['create', 'namespace', ns]);
      await k().ok(['label', 'namespace', ns, `environment=${label}`]);
    }
    const out = await k().ok(['apply', '-f', '-'], { input: [policy, binding('max-replicas-deny', 'Deny', 'test'), binding('max-replicas-warn', 'Warn', 'staging')].join('---\n') });
    assert.match(out, /validatingadmissionpolicy.admissionregistration.k8s.io\/max-replicas created/);
    assert.match(out, /validatingadmissionpolicybinding.admissionregistration.k8s.io\/max-replicas-deny created/);

    const policies = await k().ok(['get', 'validatingadmissionpolicies']);
    assert.match(policies, /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\n/);
    assert.match(policies, /^max-replicas\s+1\s+<unset>\s+\d+s\n/m);
    const bindings = await k().ok(['get', 'validatingadmissionpolicybindings']);
    assert.match(bindings, /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\n/);
    assert.match(bindings, /^max-replicas-deny\s+max-replicas\s+<unset>\s+\d+s\n/m);
    assert.match(bindings, /^max-replicas-warn\s+max-replicas\s+<unset>\s+\d+s\n/m);
    // The type checker records the generation it checked.
    await eventually(async () => (await k().ok(['get', 'validatingadmissionpolicy', 'max-replicas', '-o', 'jsonpath={.status.observedGeneration}'])).trim() === '1', 10_000, 'status.observedGeneration');
  });

  it('refuses a create with 6 replicas in a namespace the Deny binding selects', async () => {
    const r = await k().run(['create', 'deployment', 'big', '-n', 'vap-deny', '--image=nginx', '--replicas=6']);
    assert.notEqual(r.code, 0);
    // A policy's denial is a 422 Invalid whose cause carries the message with an empty field, as kube-apiserver's.
    assert.equal(r.stderr.trim(), `error: failed to create deployment: deployments.apps "big" is forbidden: ${denied}`);
    assert.match(await k().fails(['get', 'deploy', 'big', '-n', 'vap-deny']), /NotFound/);
    const manifest = (await k().ok(['create', 'deployment', 'big', '-n', 'vap-deny', '--image=nginx', '--replicas=6', '--dry-run=client', '-o', 'yaml']));
    const fromFile = await k().fails(['create', '-f', '-'], { input: manifest });
    assert.equal(fromFile.trim(), `The deployments "big" is invalid: : ${denied}`);
    // Server-side dry run is admitted too.
    const dry = await k().fails(['create', 'deployment', 'big', '-n', 'vap-deny', '--image=nginx', '--replicas=6', '--dry-run=server']);
    assert.match(dry, /deployments\.apps "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas'/);
  });

  it('refuses kubectl scale beyond 5 through the scale subresource, and allows 5', async () => {
    await k().ok(['create', 'deployment', 'web', '-n', 'vap-deny', '--image=nginx', '--replicas=2']);
    const stderr = await k().fails(['scale', 'deploy', 'web', '-n', 'vap-deny', '--replicas', '6']);
    // kubectl words a 422 from its details (kind is the resource, the group left out) and the cause's empty field.
    assert.equal(stderr.trim(), `The deployments "web" is invalid: : ${denied}`);
    assert.equal(await k().ok(['get', 'deploy', 'web', '-n', 'vap-deny', '-o', 'jsonpath={.spec.replicas}']), '2');
    assert.match(await k().ok(['scale', 'deploy', 'web', '-n', 'vap-deny', '--replicas', '5']), /deployment.apps\/web scaled/);
    assert.equal(await k().ok(['get', 'deploy', 'web', '-n', 'vap-deny', '-o', 'jsonpath={.spec.replicas}']), '5');
    // An update of the main resource is refused as well.
    const patch = await k().run(['patch', 'deploy', 'web', '-n', 'vap-deny', '-p', '{"spec":{"replicas":7}}']);
    assert.notEqual(patch.code, 0);
    assert.match(patch.stderr, /The deployments "web" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-deny' denied request: failed expression: object\.spec\.replicas <= 5/);
  });

  it('lets the request through with a Warning under validationActions [Warn]', async () => {
    const warning = `Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-warn': failed expression: object.spec.replicas <= 5`;
    const r = await k().run(['create', 'deployment', 'big', '-n', 'vap-warn', '--image=nginx', '--replicas=6']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment.apps\/big created/);
    assert.ok(r.stderr.includes(warning), r.stderr);
    const s = await k().run(['scale', 'deploy', 'big', '-n', 'vap-warn', '--replicas', '8']);
    assert.equal(s.code, 0, s.stderr);
    assert.ok(s.stderr.includes(warning), s.stderr);
    assert.equal(await k().ok(['get', 'deploy', 'big', '-n', 'vap-warn', '-o', 'jsonpath={.spec.replicas}']), '8');
  });

  it('applies to the pods a ReplicaSet creates in process, as to any other write', async () => {
    await k().ok(['apply', '-f', '-'], { input: noBlockedPods });
    await k().ok(['create', 'deployment', 'blocked', '-n', 'vap-deny', '--image=nginx']);
    const event = await eventually(async () => {
      const out = await k().ok(['get', 'events', '-n', 'vap-deny', '--field-selector', 'reason=FailedCreate', '-o', 'jsonpath={.items[*].message}']);
      return out || undefined;
    }, 15_000, 'a FailedCreate event');
    assert.match(event, /^Error creating: pods "blocked-[a-z0-9]+-[a-z0-9]{5}" is forbidden: ValidatingAdmissionPolicy 'no-blocked-pods' with binding 'no-blocked-pods' denied request: pods of app=blocked are refused/);
    assert.equal(await k().ok(['get', 'pods', '-n', 'vap-deny', '-l', 'app=blocked', '-o', 'name']), '');
  });

  it('leaves namespaces no binding selects alone, and stops refusing once the binding is deleted', async () => {
    await k().ok(['create', 'deployment', 'free', '--image=nginx', '--replicas=6']);
    await k().ok(['delete', 'validatingadmissionpolicybinding', 'max-replicas-deny']);
    const r = await k().run(['scale', 'deploy', 'web', '-n', 'vap-deny', '--replicas', '6']);
    assert.equal(r.code, 0, r.stderr);
  });
});
