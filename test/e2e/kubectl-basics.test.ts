// kubectl version, discovery, explain, create commands (protobuf bodies), get tables and errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

describe('kubectl basics', () => {
  const env = useKubectlServer();

  it('reports its version and serves discovery', async () => {
    const v = await env.k.ok(['version']);
    assert.match(v, /Server Version: v1\.35\.0/);
    const res = await env.k.ok(['api-resources']);
    assert.match(res, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    assert.match(res, /^pods\s+po\s+v1\s+true\s+Pod$/m);
    assert.match(res, /^horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler$/m);
    const cats = await env.k.ok(['api-resources', '--categories=all', '-o', 'name']);
    for (const r of ['pods', 'services', 'deployments.apps', 'jobs.batch', 'cronjobs.batch']) assert.match(cats, new RegExp(`^${r.replace('.', '\\.')}$`, 'm'));
    const versions = await env.k.ok(['api-versions']);
    for (const gv of ['apps/v1', 'batch/v1', 'autoscaling/v1', 'autoscaling/v2', 'policy/v1', 'v1', 'rbac.authorization.k8s.io/v1']) assert.match(versions, new RegExp(`^${gv}$`, 'm'));
    const info = await env.k.ok(['cluster-info']);
    assert.match(info, /Kubernetes control plane is running at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('explains fields from the OpenAPI documents', async () => {
    const s = await env.k.ok(['explain', 'deployment.spec.strategy']);
    assert.match(s, /KIND:\s+Deployment/);
    assert.match(s, /FIELD:\s+strategy <DeploymentStrategy>/);
    assert.match(s, /rollingUpdate\s+<RollingUpdateDeployment>/);
    const r = await env.k.ok(['explain', 'pod.spec.containers.resources']);
    assert.match(r, /limits\s+<map\[string\]Quantity>/);
  });

  it('creates objects with the typed create commands (protobuf bodies)', async () => {
    assert.match(await env.k.ok(['create', 'namespace', 'team-a']), /namespace\/team-a created/);
    assert.match(await env.k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=3', '-n', 'team-a']), /deployment.apps\/web created/);
    assert.match(await env.k.ok(['create', 'configmap', 'cfg', '--from-literal=a=1', '-n', 'team-a']), /configmap\/cfg created/);
    assert.match(await env.k.ok(['create', 'secret', 'generic', 'sec', '--from-literal=p=s3cret', '-n', 'team-a']), /secret\/sec created/);
    assert.match(await env.k.ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', 'team-a']), /service\/web created/);
    assert.match(await env.k.ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=0 0 29 2 *', '-n', 'team-a']), /cronjob.batch\/tick created/);
    assert.match(await env.k.ok(['create', 'job', 'tick-now', '--from=cronjob/tick', '-n', 'team-a']), /job.batch\/tick-now created/);
    assert.match(await env.k.ok(['create', 'serviceaccount', 'robot', '-n', 'team-a']), /serviceaccount\/robot created/);
    assert.match(await env.k.ok(['create', 'role', 'reader', '--verb=get,list', '--resource=pods', '-n', 'team-a']), /role.rbac.authorization.k8s.io\/reader created/);
    assert.match(await env.k.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1', '-n', 'team-a']), /poddisruptionbudget.policy\/web created/);
    assert.match(await env.k.ok(['create', 'priorityclass', 'high', '--value=1000']), /priorityclass.scheduling.k8s.io\/high created/);

    const dep = JSON.parse(await env.k.ok(['get', 'deployment', 'web', '-n', 'team-a', '-o', 'json'])) as Record<string, any>;
    assert.equal(dep.spec.replicas, 3);
    assert.equal(dep.spec.strategy.type, 'RollingUpdate');
    assert.equal(dep.spec.strategy.rollingUpdate.maxSurge, '25%');
    assert.equal(dep.spec.revisionHistoryLimit, 10);
    assert.equal(dep.spec.progressDeadlineSeconds, 600);
    const pod = dep.spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.dnsPolicy, 'ClusterFirst');
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.equal(pod.schedulerName, 'default-scheduler');
    assert.equal(pod.containers[0].imagePullPolicy, 'Always');
    assert.equal(pod.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.ok(dep.metadata.uid);
    assert.ok(dep.metadata.creationTimestamp);
    assert.match(dep.metadata.resourceVersion, /^\d+$/);
    assert.equal(dep.metadata.generation, 1);

    const job = JSON.parse(await env.k.ok(['get', 'job', 'tick-now', '-n', 'team-a', '-o', 'json'])) as Record<string, any>;
    assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    assert.equal(job.metadata.ownerReferences[0].kind, 'CronJob');

    const secret = JSON.parse(await env.k.ok(['get', 'secret', 'sec', '-n', 'team-a', '-o', 'json'])) as Record<string, any>;
    assert.equal(Buffer.from(secret.data.p, 'base64').toString(), 's3cret');
    const svc = JSON.parse(await env.k.ok(['get', 'svc', 'web', '-n', 'team-a', '-o', 'json'])) as Record<string, any>;
    assert.match(svc.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.equal(svc.spec.ports[0].targetPort, 8080);
  });

  it('prints upstream table columns', async () => {
    await env.k.ok(['rollout', 'status', 'deploy/web', '-n', 'team-a', '--timeout=30s']);
    const deps = await env.k.ok(['get', 'deploy', '-n', 'team-a']);
    assert.match(deps, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    assert.match(deps, /^web\s+3\/3\s+3\s+3\s+\d+s$/m);
    const wide = await env.k.ok(['get', 'deploy', '-n', 'team-a', '-o', 'wide']);
    assert.match(wide, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
    assert.match(wide, /web\s+3\/3\s+3\s+3\s+\d+s\s+nginx\s+nginx\s+app=web/);
    const svcs = await env.k.ok(['get', 'svc', '-A']);
    assert.match(svcs, /^NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/m);
    assert.match(svcs, /^default\s+kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP/m);
    assert.match(svcs, /^team-a\s+web\s+ClusterIP\s+[\d.]+\s+<none>\s+80\/TCP/m);
    const ns = await env.k.ok(['get', 'ns']);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'team-a']) assert.match(ns, new RegExp(`^${n}\\s+Active\\s+\\d+s$`, 'm'));
    const cj = await env.k.ok(['get', 'cronjobs', '-n', 'team-a']);
    assert.match(cj, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/m);
    // A schedule that fires only at midnight on 29 February: nothing is scheduled while the test runs.
    assert.match(cj, /^tick\s+0 0 29 2 \*\s+<none>\s+False\s+0\s+<none>\s+\d+s$/m);
    const labels = await env.k.ok(['get', 'ns', 'team-a', '--show-labels']);
    assert.match(labels, /kubernetes\.io\/metadata\.name=team-a/);
    const sa = await eventually(async () => {
      const out = await env.k.ok(['get', 'sa', '-n', 'team-a']);
      return /^default\s/m.test(out) && out;
    }, 10_000, 'default service account');
    assert.match(sa, /^robot\s/m);
  });

  it('answers auth questions (plain HTTP: kubectl sends no credentials, so it is anonymous; everything is allowed)', async () => {
    // client-go reads a kubeconfig's credentials only for https servers; over TLS the same kubeconfig is bonsai-admin
    // (test/e2e/authentication.test.ts).
    assert.match(await env.k.ok(['auth', 'whoami']), /Username\s+system:anonymous/);
    assert.equal((await env.k.ok(['auth', 'can-i', 'delete', 'nodes'])).trim(), 'yes');
    const token = (await env.k.ok(['create', 'token', 'default'])).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string };
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
  });

  it('prints errors as against a real cluster', async () => {
    assert.match(await env.k.fails(['get', 'pod', 'zz']), /Error from server \(NotFound\): pods "zz" not found/);
    assert.match(await env.k.fails(['create', 'namespace', 'team-a']), /Error from server \(AlreadyExists\): namespaces "team-a" already exists/);
    assert.match(await env.k.fails(['get', 'pods', '-l', 'a in (']), /Error from server \(BadRequest\)|unable to parse requirement|invalid/);
    assert.match(await env.k.fails(['get', 'configmap', 'x', '-n', 'nope']), /NotFound/);
    assert.match(await env.k.fails(['create', 'configmap', 'x', '-n', 'nope']), /namespaces "nope" not found/);
  });
});
