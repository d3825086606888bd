import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultJobSelector } from '../../src/registry/defaults/batch.js';
import { defaultPullPolicy } from '../../src/registry/defaults/pod.js';
import { defaultKind } from '../helpers/builtin-defs.js';
import type { KObject } from '../../src/machinery/types.js';

const apps = (kind: string) => ({ group: 'apps', version: 'v1', kind });
const core = (kind: string) => ({ group: '', version: 'v1', kind });

function deployment(): KObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
    },
  };
}

test('minimal Deployment gets every upstream default', () => {
  const d = deployment();
  defaultKind(apps('Deployment'), d);
  const spec = d.spec as Record<string, any>;
  assert.equal(spec.replicas, 1);
  assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.progressDeadlineSeconds, 600);
  const pod = spec.template.spec;
  assert.equal(pod.restartPolicy, 'Always');
  assert.equal(pod.dnsPolicy, 'ClusterFirst');
  assert.equal(pod.terminationGracePeriodSeconds, 30);
  assert.equal(pod.schedulerName, 'default-scheduler');
  assert.deepEqual(pod.securityContext, {});
  assert.equal(pod.enableServiceLinks, undefined, 'enableServiceLinks is a Pod-only default upstream');
  assert.deepEqual(pod.containers[0], {
    name: 'nginx', image: 'nginx', imagePullPolicy: 'Always', resources: {},
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
  });
});

test('explicit values are kept and Recreate gets no rollingUpdate', () => {
  const d = deployment();
  Object.assign(d.spec as object, { replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2 });
  defaultKind(apps('Deployment'), d);
  const spec = d.spec as Record<string, any>;
  assert.equal(spec.replicas, 0);
  assert.deepEqual(spec.strategy, { type: 'Recreate' });
  assert.equal(spec.revisionHistoryLimit, 2);
});

test('a pod template carries the deprecated serviceAccount alias of serviceAccountName, as v1 objects do', () => {
  const named = deployment();
  (named.spec as Record<string, any>).template.spec.serviceAccountName = 'cert-manager';
  defaultKind(apps('Deployment'), named);
  const pod = (named.spec as Record<string, any>).template.spec;
  assert.equal(pod.serviceAccount, 'cert-manager');
  assert.equal(pod.serviceAccountName, 'cert-manager');
  const old = deployment();
  (old.spec as Record<string, any>).template.spec.serviceAccount = 'legacy';
  defaultKind(apps('Deployment'), old);
  assert.equal((old.spec as Record<string, any>).template.spec.serviceAccountName, 'legacy');
  const both = deployment();
  Object.assign((both.spec as Record<string, any>).template.spec, { serviceAccount: 'stale', serviceAccountName: 'new' });
  defaultKind(apps('Deployment'), both);
  assert.equal((both.spec as Record<string, any>).template.spec.serviceAccount, 'new');
  const none = deployment();
  defaultKind(apps('Deployment'), none);
  assert.equal((none.spec as Record<string, any>).template.spec.serviceAccount, undefined);
});

test('image pull policy follows the tag', () => {
  assert.equal(defaultPullPolicy('nginx'), 'Always');
  assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
  assert.equal(defaultPullPolicy('nginx:1.27'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('localhost:5000/app'), 'Always');
  assert.equal(defaultPullPolicy('localhost:5000/app:v1'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('nginx@sha256:abc'), 'IfNotPresent');
});

test('Pod: probes, ports, volumes, env, requests from limits, enableServiceLinks', () => {
  const pod: KObject = {
    metadata: { name: 'p' },
    spec: {
      containers: [{
        name: 'c', image: 'busybox:1.36',
        ports: [{ containerPort: 80 }],
        livenessProbe: { httpGet: { port: 80 } },
        readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
        env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
        resources: { limits: { cpu: '1' } },
      }],
      volumes: [{ name: 'a' }, { name: 'b', configMap: { name: 'cm' } }, { name: 'c', secret: { secretName: 's' } }],
    },
  };
  defaultKind(core('Pod'), pod);
  const spec = pod.spec as Record<string, any>;
  const c = spec.containers[0];
  assert.equal(spec.enableServiceLinks, true);
  assert.equal(c.imagePullPolicy, 'IfNotPresent');
  assert.equal(c.ports[0].protocol, 'TCP');
  assert.deepEqual(c.livenessProbe, {
    httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3,
  });
  assert.equal(c.readinessProbe.periodSeconds, 5);
  assert.equal(c.env[0].valueFrom.fieldRef.apiVersion, 'v1');
  assert.deepEqual(c.resources.requests, { cpu: '1' });
  assert.deepEqual(spec.volumes[0], { name: 'a', emptyDir: {} });
  assert.equal(spec.volumes[1].configMap.defaultMode, 420);
  assert.equal(spec.volumes[2].secret.defaultMode, 420);
});

test('Service defaults', () => {
  const svc: KObject = { metadata: { name: 's' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }, { port: 443, targetPort: 'https' }] } };
  defaultKind(core('Service'), svc);
  assert.deepEqual(svc.spec, {
    selector: { app: 'web' },
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 443, targetPort: 'https', protocol: 'TCP' }],
    type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'],
  });
  const np: KObject = { metadata: { name: 'n' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
  defaultKind(core('Service'), np);
  assert.equal((np.spec as any).externalTrafficPolicy, 'Cluster');
  assert.equal((np.spec as any).allocateLoadBalancerNodePorts, true);
  const ext: KObject = { metadata: { name: 'e' }, spec: { type: 'ExternalName', externalName: 'example.com' } };
  defaultKind(core('Service'), ext);
  assert.equal((ext.spec as any).ipFamilies, undefined);
  assert.equal((ext.spec as any).internalTrafficPolicy, undefined);
});

test('Job defaults and generated selector', () => {
  const job: KObject = {
    metadata: { name: 'pi', uid: 'u-1' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34' }] } } },
  };
  defaultKind({ group: 'batch', version: 'v1', kind: 'Job' }, job);
  const spec = job.spec as Record<string, any>;
  assert.equal(spec.parallelism, 1);
  assert.equal(spec.completions, 1);
  assert.equal(spec.backoffLimit, 6);
  assert.equal(spec.completionMode, 'NonIndexed');
  assert.equal(spec.suspend, false);
  assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
  assert.equal(spec.manualSelector, undefined);
  assert.equal(spec.template.spec.restartPolicy, 'Never');
  defaultJobSelector(job as never);
  assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
  assert.deepEqual(spec.template.metadata.labels, {
    'job-name': 'pi', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'batch.kubernetes.io/controller-uid': 'u-1',
  });
  assert.deepEqual(job.metadata.labels, spec.template.metadata.labels);
});

test('Job with only parallelism keeps completions unset', () => {
  const job: KObject = { metadata: { name: 'j' }, spec: { parallelism: 3, template: { spec: { containers: [] } } } };
  defaultKind({ group: 'batch', version: 'v1', kind: 'Job' }, job);
  assert.equal((job.spec as any).completions, undefined);
  assert.equal((job.spec as any).parallelism, 3);
});

test('a pod-condition pattern of a pod failure policy defaults its status to True, in Jobs and CronJob templates', () => {
  const policy = () => ({ rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }, { type: 'ConfigIssue', status: 'False' }] }] });
  const job: KObject = { metadata: { name: 'j' }, spec: { podFailurePolicy: policy(), template: { spec: { containers: [], restartPolicy: 'Never' } } } };
  defaultKind({ group: 'batch', version: 'v1', kind: 'Job' }, job);
  const cj: KObject = { metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { podFailurePolicy: policy(), template: { spec: { containers: [] } } } } } };
  defaultKind({ group: 'batch', version: 'v1', kind: 'CronJob' }, cj);
  for (const spec of [(job.spec as any), (cj.spec as any).jobTemplate.spec]) {
    assert.deepEqual(spec.podFailurePolicy.rules[0].onPodConditions.map((p: any) => p.status), ['True', 'False']);
  }
});

test('CronJob, StatefulSet, DaemonSet, Namespace, Secret, PVC, StorageClass, PriorityClass', () => {
  const cj: KObject = { metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [] } } } } } };
  defaultKind({ group: 'batch', version: 'v1', kind: 'CronJob' }, cj);
  const cs = cj.spec as any;
  assert.deepEqual([cs.concurrencyPolicy, cs.suspend, cs.successfulJobsHistoryLimit, cs.failedJobsHistoryLimit], ['Allow', false, 3, 1]);
  assert.equal(cs.jobTemplate.spec.backoffLimit, undefined);
  assert.equal(cs.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');

  const sts: KObject = { metadata: { name: 's' }, spec: { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }], template: { spec: { containers: [] } } } };
  defaultKind(apps('StatefulSet'), sts);
  const ss = sts.spec as any;
  assert.equal(ss.replicas, 1);
  assert.equal(ss.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(ss.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(ss.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.equal(ss.revisionHistoryLimit, 10);
  assert.equal(ss.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
  assert.equal(ss.volumeClaimTemplates[0].status.phase, 'Pending');

  const ds: KObject = { metadata: { name: 'd' }, spec: { template: { spec: { containers: [] } } } };
  defaultKind(apps('DaemonSet'), ds);
  assert.deepEqual((ds.spec as any).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });

  const ns: KObject = { metadata: { name: 'team' } };
  defaultKind(core('Namespace'), ns);
  assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(ns.status, { phase: 'Active' });
  assert.equal(ns.metadata.labels?.['kubernetes.io/metadata.name'], 'team');

  const secret: KObject = { metadata: { name: 's' } };
  defaultKind(core('Secret'), secret);
  assert.equal(secret.type, 'Opaque');

  const pvc: KObject = { metadata: { name: 'p' }, spec: {} };
  defaultKind(core('PersistentVolumeClaim'), pvc);
  assert.equal((pvc.spec as any).volumeMode, 'Filesystem');

  const sc: KObject = { metadata: { name: 'standard' }, provisioner: 'x' };
  defaultKind({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' }, sc);
  assert.deepEqual([sc.reclaimPolicy, sc.volumeBindingMode], ['Delete', 'Immediate']);

  const pc: KObject = { metadata: { name: 'high' }, value: 1000 };
  defaultKind({ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' }, pc);
  assert.equal(pc.preemptionPolicy, 'PreemptLowerPriority');
});

test('HPA v2 minReplicas, default metric and behavior', () => {
  const hpa: KObject = { metadata: { name: 'h' }, spec: { maxReplicas: 5, scaleTargetRef: { kind: 'Deployment', name: 'web' }, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } };
  defaultKind({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' }, hpa);
  const spec = hpa.spec as any;
  assert.equal(spec.minReplicas, 1);
  assert.equal(spec.metrics[0].resource.target.averageUtilization, 80);
  assert.equal(spec.behavior.scaleDown.stabilizationWindowSeconds, 60);
  assert.equal(spec.behavior.scaleDown.selectPolicy, 'Max');
  assert.equal(spec.behavior.scaleUp.policies.length, 2);
});
