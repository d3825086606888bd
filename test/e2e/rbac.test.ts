// RBAC as kubectl users meet it: `--as` impersonation, Forbidden messages, role bindings, `auth can-i`, aggregated
// ClusterRoles, escalation prevention, access reviews, and the audit log of requests and components.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, Kubectl } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { writeKubeconfigFor } from '../helpers/tls.js';

const auditPath = join(mkdtempSync(join(tmpdir(), 'bonsai-audit-')), 'audit.log');

interface AuditLine {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  impersonatedUser?: { username: string; groups?: string[] };
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string; apiGroup?: string };
  responseStatus?: { code: number; reason?: string; message?: string };
  annotations?: Record<string, string>;
}

function auditLines(): AuditLine[] {
  let text = '';
  try {
    text = readFileSync(auditPath, 'utf8');
  } catch {
    return [];
  }
  // The last piece may be a line still being written: only whole lines are read.
  return text.split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as AuditLine);
}

describe('RBAC with kubectl', () => {
  const env = useKubectlServer({ args: [...noAddons, '--tls', '--authorization-mode', 'RBAC', '--audit-log', auditPath, '--nodes', '1'] });

  it('forbids jane until a RoleBinding grants view, and can-i follows', async () => {
    const denied = await env.k.fails(['get', 'pods', '--as', 'jane']);
    assert.match(denied, /Error from server \(Forbidden\): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"/);
    assert.equal((await env.k.run(['auth', 'can-i', 'list', 'pods', '--as', 'jane'])).stdout.trim(), 'no');
    const before = await env.k.ok(['auth', 'can-i', '--list', '--as', 'jane']);
    assert.match(before, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.match(before, /^\s+\[\/api\/\*\]\s+\[\]\s+\[get\]$/m);
    assert.doesNotMatch(before, /^pods\s/m);

    assert.match(await env.k.ok(['create', 'rolebinding', 'jane-view', '--clusterrole', 'view', '--user', 'jane']), /rolebinding.rbac.authorization.k8s.io\/jane-view created/);
    assert.match(await env.k.ok(['get', 'pods', '--as', 'jane']), /^$/);
    assert.equal((await env.k.ok(['auth', 'can-i', 'list', 'pods', '--as', 'jane'])).trim(), 'yes');
    const after = await env.k.ok(['auth', 'can-i', '--list', '--as', 'jane']);
    assert.match(after, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(after, /^deployments\.apps\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    const create = await env.k.run(['auth', 'can-i', 'create', 'deployments', '--as', 'jane']);
    assert.equal(create.code, 1);
    assert.equal(create.stdout.trim(), 'no');
    // view is namespaced power: nothing in other namespaces, nothing cluster-wide.
    assert.match(await env.k.fails(['get', 'pods', '-n', 'kube-system', '--as', 'jane']), /User "jane" cannot list resource "pods" in API group "" in the namespace "kube-system"/);
    assert.match(await env.k.fails(['get', 'nodes', '--as', 'jane']), /nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope/);
    assert.match(await env.k.fails(['get', 'secret', 'x', '--as', 'jane']), /secrets "x" is forbidden: User "jane" cannot get resource "secrets" in API group "" in the namespace "default"/);
    assert.match(await env.k.fails(['get', '--raw', '/api/v1/namespaces/default/pods/p/exec', '--as', 'jane']), /pods "p" is forbidden: User "jane" cannot get resource "pods\/exec"/);
    assert.match(await env.k.fails(['get', '--raw', '/foo', '--as', 'jane']), /Error from server \(Forbidden\): forbidden: User "jane" cannot get path "\/foo"/);
  });

  it('authorizes a ServiceAccount through a Role bound to it', async () => {
    await env.k.ok(['create', 'serviceaccount', 'robot']);
    await env.k.ok(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
    await env.k.ok(['create', 'rolebinding', 'robot-reads', '--role', 'pod-reader', '--serviceaccount', 'default:robot']);
    const sa = 'system:serviceaccount:default:robot';
    await env.k.ok(['get', 'pods', '--as', sa]);
    assert.match(await env.k.fails(['get', 'deployments', '--as', sa]), /deployments\.apps is forbidden: User "system:serviceaccount:default:robot" cannot list resource "deployments" in API group "apps" in the namespace "default"/);
    assert.equal((await env.k.ok(['auth', 'can-i', 'get', 'pods', '--as', sa])).trim(), 'yes');
    // The ServiceAccount's groups come with it: a binding to system:serviceaccounts:default applies too.
    await env.k.ok(['create', 'rolebinding', 'ns-sas-view-cm', '--clusterrole', 'view', '--group', 'system:serviceaccounts:default']);
    assert.equal((await env.k.ok(['auth', 'can-i', 'list', 'configmaps', '--as', sa])).trim(), 'yes');
  });

  it("lets a pod's ServiceAccount token act with that ServiceAccount's RBAC, and answers a bogus token 401", async () => {
    const ca = readFileSync(join(env.server.dataDir, 'pki', 'ca.crt'), 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'bonsai-rbac-token-'));
    const withToken = (name: string, token: string) => new Kubectl(writeKubeconfigFor(join(dir, name), env.server.url, { ca, token }));
    await env.k.ok(['create', 'namespace', 'tokens']);
    await env.k.ok(['create', 'serviceaccount', 'reader', '-n', 'tokens']);
    await env.k.ok(['run', 'reader-pod', '-n', 'tokens', '--image=nginx', '--overrides', JSON.stringify({ spec: { serviceAccountName: 'reader' } })]);
    const token = (await env.k.ok(['create', 'token', 'reader', '-n', 'tokens', '--bound-object-kind', 'Pod', '--bound-object-name', 'reader-pod'])).trim();
    const reader = withToken('reader', token);
    const sa = 'system:serviceaccount:tokens:reader';
    assert.match(await reader.ok(['auth', 'whoami']), new RegExp(`Username\\s+${sa}`));
    assert.match(await reader.fails(['get', 'pods', '-n', 'tokens']), new RegExp(`Error from server \\(Forbidden\\): pods is forbidden: User "${sa}" cannot list resource "pods" in API group "" in the namespace "tokens"`));
    await env.k.ok(['create', 'rolebinding', 'reader-view', '-n', 'tokens', '--clusterrole', 'view', '--serviceaccount', 'tokens:reader']);
    assert.match(await reader.ok(['get', 'pods', '-n', 'tokens']), /^reader-pod\s/m);
    assert.match(await reader.fails(['delete', 'pod', 'reader-pod', '-n', 'tokens']), new RegExp(`pods "reader-pod" is forbidden: User "${sa}" cannot delete resource "pods"`));
    // The token is bound to its pod: once the pod is gone, so is the token.
    await env.k.ok(['delete', 'pod', 'reader-pod', '-n', 'tokens', '--grace-period=0', '--force']);
    await eventually(async () => /Unauthorized/.test((await reader.run(['auth', 'whoami'])).stderr), 20_000, 'the bound token to stop authenticating');
    assert.match(await withToken('bogus', 'bogus-token').fails(['auth', 'whoami']), /^error: You must be logged in to the server \(Unauthorized\)$/m);
  });

  it('has the default roles, aggregated, and aggregates a labelled ClusterRole into view', async () => {
    const view = await env.k.ok(['get', 'clusterrole', 'view', '-o', 'yaml']);
    assert.match(view, /kubernetes\.io\/bootstrapping: rbac-defaults/);
    assert.match(view, /rbac\.authorization\.kubernetes\.io\/autoupdate: "true"/);
    assert.match(view, /aggregationRule:\n\s+clusterRoleSelectors:\n\s+- matchLabels:\n\s+rbac\.authorization\.k8s\.io\/aggregate-to-view: "true"/);
    assert.match(view, /- pods\n/);
    const names = await env.k.ok(['get', 'clusterroles', '-o', 'name']);
    for (const n of ['cluster-admin', 'admin', 'edit', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:node', 'system:kube-scheduler', 'system:controller:replicaset-controller', 'system:controller:clusterrole-aggregation-controller']) {
      assert.match(names, new RegExp(`^clusterrole.rbac.authorization.k8s.io/${n}$`, 'm'));
    }
    assert.match(await env.k.ok(['get', 'clusterrolebinding', 'cluster-admin', '-o', 'yaml']), /kind: Group\n\s+name: system:masters/);
    // Each controller's identity is a ServiceAccount in kube-system, bound to its role.
    await env.k.ok(['get', 'serviceaccount', 'replicaset-controller', '-n', 'kube-system']);
    assert.match(await env.k.ok(['get', 'clusterrolebinding', 'system:controller:replicaset-controller', '-o', 'yaml']), /kind: ServiceAccount\n\s+name: replicaset-controller\n\s+namespace: kube-system/);

    await env.k.ok(['apply', '-f', '-'], {
      input: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: widget-viewer\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: "true"\n'
        + 'rules:\n- apiGroups: ["example.com"]\n  resources: ["widgets"]\n  verbs: ["get", "list"]\n',
    });
    for (const role of ['view', 'edit', 'admin']) {
      await eventually(async () => /widgets/.test(await env.k.ok(['get', 'clusterrole', role, '-o', 'yaml'])), 10_000, `widgets aggregated into ${role}`);
    }
    assert.match(await env.k.ok(['auth', 'can-i', '--list', '--as', 'jane']), /^widgets\.example\.com\s+\[\]\s+\[\]\s+\[get list\]$/m);
  });

  it('refuses privilege escalation', async () => {
    await env.k.ok(['create', 'namespace', 'team']);
    await env.k.ok(['create', 'rolebinding', 'jane-admin', '--clusterrole', 'admin', '--user', 'jane', '-n', 'team']);
    // admin may write roles in its namespace, but not grant what it lacks.
    await env.k.ok(['create', 'role', 'cm-reader', '--verb=get', '--resource=configmaps', '-n', 'team', '--as', 'jane']);
    const role = await env.k.fails(['create', 'role', 'node-reader', '--verb=get', '--resource=nodes', '-n', 'team', '--as', 'jane']);
    assert.match(role, /roles\.rbac\.authorization\.k8s\.io "node-reader" is forbidden: user "jane" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get"\]\}/);
    const bind = await env.k.fails(['create', 'rolebinding', 'grab', '--clusterrole', 'cluster-admin', '--user', 'jane', '-n', 'team', '--as', 'jane']);
    assert.match(bind, /rolebindings\.rbac\.authorization\.k8s\.io "grab" is forbidden: user "jane" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}/);
    // Binding a role whose permissions jane holds is fine.
    await env.k.ok(['create', 'rolebinding', 'share-view', '--clusterrole', 'view', '--user', 'joe', '-n', 'team', '--as', 'jane']);
    // The bind verb lets one bind what one does not hold.
    await env.k.ok(['create', 'clusterrole', 'bind-edit', '--verb=bind', '--resource=clusterroles', '--resource-name=edit']);
    await env.k.ok(['create', 'clusterrolebinding', 'jane-bind-edit', '--clusterrole', 'bind-edit', '--user', 'jane']);
    await env.k.ok(['create', 'rolebinding', 'joe-edit', '--clusterrole', 'edit', '--user', 'joe', '-n', 'team', '--as', 'jane']);
  });

  it('answers SubjectAccessReviews created with kubectl create -f', async () => {
    const sar = (user: string, verb: string, ns: string) => `apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: ${user}\n  resourceAttributes:\n    namespace: ${ns}\n    verb: ${verb}\n    resource: pods\n`;
    // kubectl's client-side validation lists CRDs for kinds without a PATCH operation; Bonsai serves none.
    const yes = JSON.parse(await env.k.ok(['create', '-f', '-', '--validate=false', '-o', 'json'], { input: sar('jane', 'list', 'default') })) as { status: { allowed: boolean; reason?: string } };
    assert.deepEqual(yes.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "jane-view/default" of ClusterRole "view" to User "jane"' });
    const no = JSON.parse(await env.k.ok(['create', '-f', '-', '--validate=false', '-o', 'json'], { input: sar('jane', 'delete', 'default') })) as { status: { allowed: boolean } };
    assert.deepEqual(no.status, { allowed: false });
    const bad = await env.k.fails(['create', '-f', '-', '--validate=false'], { input: 'apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: jane\n' });
    assert.match(bad, /The SubjectAccessReview "" is invalid: spec\.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified/);
    const local = await env.k.fails(['create', '-f', '-', '--validate=false', '-n', 'team'], {
      input: 'apiVersion: authorization.k8s.io/v1\nkind: LocalSubjectAccessReview\nspec:\n  user: jane\n  resourceAttributes:\n    namespace: default\n    verb: get\n    resource: pods\n',
    });
    assert.match(local, /spec\.resourceAttributes\.namespace: Invalid value: "default": must match metadata\.namespace/);
  });

  it('writes audit events for requests and for the components', async () => {
    await env.k.ok(['run', 'audited', '--image=nginx']);
    const lines = await eventually(() => {
      const all = auditLines();
      const bound = all.some((l) => l.user.username === 'system:kube-scheduler' && l.objectRef?.subresource === 'binding' && l.objectRef.name === 'audited');
      const status = all.some((l) => l.user.username.startsWith('system:node:bonsai-') && l.objectRef?.resource === 'pods' && l.objectRef.subresource === 'status' && l.objectRef.name === 'audited');
      return bound && status && all;
    }, 20_000, 'scheduler and kubelet audit events');
    // The create's name comes from its body: RequestReceived (written before the body is read) lacks it.
    const done = lines.find((l) => l.verb === 'create' && l.objectRef?.resource === 'pods' && l.objectRef.name === 'audited' && !l.objectRef.subresource);
    assert.ok(done);
    assert.deepEqual(lines.filter((l) => l.auditID === done.auditID).map((l) => l.stage), ['RequestReceived', 'ResponseComplete']);
    assert.equal(done.user.username, 'bonsai-admin');
    assert.equal(done.responseStatus?.code, 201);
    assert.equal(done.annotations?.['authorization.k8s.io/decision'], 'allow');
    const binding = lines.find((l) => l.stage === 'ResponseComplete' && l.objectRef?.subresource === 'binding' && l.objectRef.name === 'audited');
    assert.equal(binding?.verb, 'create');
    assert.equal(binding?.requestURI, '/api/v1/namespaces/default/pods/audited/binding');
    assert.match(binding?.annotations?.['authorization.k8s.io/reason'] ?? '', /^RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"$/);
    // Impersonated requests name both users; denials carry the Status and the forbid decision.
    const denied = lines.find((l) => l.stage === 'ResponseComplete' && l.impersonatedUser?.username === 'jane' && l.responseStatus?.code === 403);
    assert.equal(denied?.user.username, 'bonsai-admin');
    assert.equal(denied?.responseStatus?.reason, 'Forbidden');
    assert.equal(denied?.annotations?.['authorization.k8s.io/decision'], 'forbid');
    assert.ok(lines.some((l) => l.user.username.startsWith('system:serviceaccount:kube-system:') && l.stage === 'ResponseComplete'));
  });
});
