// Every built-in kind's hooks hang off its def: the printers, defaulters, validators and name rules each kind had
// (formerly in maps keyed by kind name) are found on its declaration, and the write pipeline uses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDef } from '../../src/registry/resource.js';
import { allResources } from '../../src/registry/resources/index.js';
import { applyDefaults, objectErrors } from '../../src/registry/write.js';
import { tablePrinterOf, defaultPrinter } from '../../src/registry/tables/def-printer.js';
import { nameIsDns1035Label, nameIsDnsLabel, nameIsPathSegment } from '../../src/machinery/names.js';
import * as coreTables from '../../src/registry/tables/core.js';
import * as appsTables from '../../src/registry/tables/apps.js';
import { cronJobPrinter, jobPrinter } from '../../src/registry/tables/batch.js';
import { podPrinter } from '../../src/registry/tables/pods.js';
import { nodePrinter, persistentVolumeClaimPrinter, persistentVolumePrinter } from '../../src/registry/tables/nodes.js';
import { coreEventPrinter, eventsV1EventPrinter } from '../../src/registry/tables/events.js';
import { horizontalPodAutoscalerPrinter } from '../../src/registry/tables/autoscaling.js';
import { leasePrinter, podDisruptionBudgetPrinter, priorityClassPrinter } from '../../src/registry/tables/misc.js';
import { endpointSlicePrinter, ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from '../../src/registry/tables/networking.js';
import { storageClassPrinter } from '../../src/registry/tables/storage.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from '../../src/registry/tables/rbac.js';
import { certificateSigningRequestPrinter } from '../../src/registry/tables/certificates.js';
import { apiServicePrinter } from '../../src/registry/tables/apiregistration.js';
import { validateConfigMap, validateNamespace, validatePod, validatePodTemplateKind, validatePvc, validateReplicationController, validateSecret, validateService } from '../../src/registry/validation/core.js';
import { validateDaemonSet, validateDeployment, validateReplicaSet, validateStatefulSet } from '../../src/registry/validation/apps.js';
import { validateCronJob, validateJob } from '../../src/registry/validation/batch.js';
import { validateHpa, validateIngress, validateNetworkPolicy, validatePdb } from '../../src/registry/validation/other.js';
import type { TablePrinter } from '../../src/registry/tables/helpers.js';
import type { KObject } from '../../src/machinery/types.js';

function def(group: string, plural: string): ResourceDef {
  const d = allResources.find((r) => r.group === group && r.plural === plural);
  assert.ok(d, `${group}/${plural} is served`);
  return d;
}

const rbac = 'rbac.authorization.k8s.io';

test('every kind with a specific printer has it on its def', () => {
  const printers: Array<[string, string, TablePrinter]> = [
    ['', 'pods', podPrinter], ['', 'podtemplates', coreTables.podTemplatePrinter], ['', 'replicationcontrollers', coreTables.replicationControllerPrinter],
    ['', 'services', coreTables.servicePrinter], ['', 'endpoints', coreTables.endpointsPrinter], ['', 'nodes', nodePrinter],
    ['', 'events', coreEventPrinter], ['', 'namespaces', coreTables.namespacePrinter], ['', 'resourcequotas', coreTables.resourceQuotaPrinter],
    ['', 'persistentvolumes', persistentVolumePrinter], ['', 'persistentvolumeclaims', persistentVolumeClaimPrinter],
    ['', 'configmaps', coreTables.configMapPrinter], ['', 'secrets', coreTables.secretPrinter], ['', 'serviceaccounts', coreTables.serviceAccountPrinter],
    ['apps', 'deployments', appsTables.deploymentPrinter], ['apps', 'replicasets', appsTables.replicaSetPrinter],
    ['apps', 'statefulsets', appsTables.statefulSetPrinter], ['apps', 'daemonsets', appsTables.daemonSetPrinter],
    ['apps', 'controllerrevisions', appsTables.controllerRevisionPrinter], ['batch', 'jobs', jobPrinter], ['batch', 'cronjobs', cronJobPrinter],
    ['autoscaling', 'horizontalpodautoscalers', horizontalPodAutoscalerPrinter], ['policy', 'poddisruptionbudgets', podDisruptionBudgetPrinter],
    ['coordination.k8s.io', 'leases', leasePrinter], ['scheduling.k8s.io', 'priorityclasses', priorityClassPrinter],
    ['discovery.k8s.io', 'endpointslices', endpointSlicePrinter], ['events.k8s.io', 'events', eventsV1EventPrinter],
    ['networking.k8s.io', 'ingresses', ingressPrinter], ['networking.k8s.io', 'ingressclasses', ingressClassPrinter],
    ['networking.k8s.io', 'networkpolicies', networkPolicyPrinter], ['storage.k8s.io', 'storageclasses', storageClassPrinter],
    [rbac, 'rolebindings', roleBindingPrinter], [rbac, 'clusterrolebindings', clusterRoleBindingPrinter],
    ['certificates.k8s.io', 'certificatesigningrequests', certificateSigningRequestPrinter], ['apiregistration.k8s.io', 'apiservices', apiServicePrinter],
  ];
  for (const [g, r, p] of printers) {
    assert.equal(def(g, r).table, p, `${g}/${r}`);
    assert.equal(tablePrinterOf(def(g, r)).columns, p.columns, `${g}/${r} renders with its printer`);
  }
  // Kinds without a specific printer render upstream's default columns.
  for (const [g, r] of [['', 'limitranges'], [rbac, 'roles'], [rbac, 'clusterroles']]) {
    assert.equal(def(g, r).table, undefined);
    assert.equal(tablePrinterOf(def(g, r)).columns, defaultPrinter.columns);
  }
});

test('every kind with a defaulter has it on its def', () => {
  const defaulted = [
    ['', 'pods'], ['', 'podtemplates'], ['', 'replicationcontrollers'], ['', 'services'], ['', 'namespaces'], ['', 'secrets'],
    ['', 'persistentvolumes'], ['', 'persistentvolumeclaims'], ['', 'endpoints'], ['', 'limitranges'],
    ['apps', 'deployments'], ['apps', 'replicasets'], ['apps', 'statefulsets'], ['apps', 'daemonsets'], ['batch', 'jobs'], ['batch', 'cronjobs'],
    ['autoscaling', 'horizontalpodautoscalers'], ['networking.k8s.io', 'networkpolicies'], ['networking.k8s.io', 'ingressclasses'],
    ['storage.k8s.io', 'storageclasses'], ['scheduling.k8s.io', 'priorityclasses'], ['discovery.k8s.io', 'endpointslices'],
    [rbac, 'rolebindings'], [rbac, 'clusterrolebindings'],
    ['admissionregistration.k8s.io', 'mutatingwebhookconfigurations'], ['admissionregistration.k8s.io', 'validatingwebhookconfigurations'],
  ];
  for (const [g, r] of defaulted) assert.equal(typeof def(g, r).defaults, 'function', `${g}/${r}`);
  // The pipeline's defaulting is the def's: a StorageClass gets its reclaim policy, a ConfigMap (no defaulter) only metadata.
  const sc = { metadata: { name: 's' }, provisioner: 'x' } as KObject;
  applyDefaults(def('storage.k8s.io', 'storageclasses'), sc);
  assert.equal(sc.reclaimPolicy, 'Delete');
  const cm = { data: {} } as unknown as KObject;
  applyDefaults(def('', 'configmaps'), cm);
  assert.deepEqual(cm, { data: {}, metadata: {} });
});

test('every kind with its own validation has it on its def', () => {
  const direct: Array<[string, string, unknown]> = [
    ['', 'pods', validatePod], ['', 'podtemplates', validatePodTemplateKind], ['', 'replicationcontrollers', validateReplicationController],
    ['', 'services', validateService], ['', 'configmaps', validateConfigMap], ['', 'secrets', validateSecret], ['', 'persistentvolumeclaims', validatePvc],
    ['', 'namespaces', validateNamespace], ['apps', 'deployments', validateDeployment], ['apps', 'replicasets', validateReplicaSet],
    ['apps', 'daemonsets', validateDaemonSet], ['apps', 'statefulsets', validateStatefulSet], ['batch', 'jobs', validateJob], ['batch', 'cronjobs', validateCronJob],
    ['autoscaling', 'horizontalpodautoscalers', validateHpa], ['policy', 'poddisruptionbudgets', validatePdb],
    ['networking.k8s.io', 'ingresses', validateIngress], ['networking.k8s.io', 'networkpolicies', validateNetworkPolicy],
  ];
  for (const [g, r, fn] of direct) assert.equal(def(g, r).validate, fn, `${g}/${r}`);
  // Kinds whose rules take extra arguments, and those that had validation on their def before.
  for (const [g, r] of [[rbac, 'roles'], [rbac, 'clusterroles'], [rbac, 'rolebindings'], [rbac, 'clusterrolebindings'],
    ['certificates.k8s.io', 'certificatesigningrequests'], ['apiregistration.k8s.io', 'apiservices'],
    ['admissionregistration.k8s.io', 'validatingadmissionpolicies'], ['apiextensions.k8s.io', 'customresourcedefinitions']]) {
    assert.equal(typeof def(g, r).validate, 'function', `${g}/${r}`);
  }
  const role = { metadata: { name: 'r', namespace: 'default' }, rules: [{ verbs: [] }] } as KObject;
  assert.ok(objectErrors(def(rbac, 'roles'), role, undefined).some((e) => e.field === 'rules[0].verbs'));
});

test('name rules and limits are the def\'s', () => {
  const rules: Array<[string, string, unknown]> = [
    ['', 'namespaces', nameIsDnsLabel], ['', 'services', nameIsDns1035Label], ['', 'events', nameIsPathSegment], ['events.k8s.io', 'events', nameIsPathSegment],
    [rbac, 'roles', nameIsPathSegment], [rbac, 'clusterroles', nameIsPathSegment], [rbac, 'rolebindings', nameIsPathSegment],
    [rbac, 'clusterrolebindings', nameIsPathSegment], ['certificates.k8s.io', 'certificatesigningrequests', nameIsPathSegment],
    ['apiregistration.k8s.io', 'apiservices', nameIsPathSegment],
  ];
  for (const [g, r, fn] of rules) assert.equal(def(g, r).nameValidation, fn, `${g}/${r}`);
  assert.equal(def('', 'configmaps').nameValidation, undefined, 'DNS-1123 subdomain by default');
  assert.equal(def('batch', 'cronjobs').maxNameLength, 52);
  const name = 'c'.repeat(53);
  const cj = { metadata: { name, namespace: 'default' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: {} } } } } as KObject;
  assert.ok(objectErrors(def('batch', 'cronjobs'), cj, undefined).some((e) => e.field === 'metadata.name' && e.message.endsWith(': must be no more than 52 characters')));
  // A role's name is a path segment: dots and capitals are fine, a slash is not.
  const role = (n: string) => ({ metadata: { name: n, namespace: 'default' }, rules: [] }) as KObject;
  assert.deepEqual(objectErrors(def(rbac, 'roles'), role('system:Admin.x'), undefined), []);
  assert.deepEqual(objectErrors(def(rbac, 'roles'), role('a/b'), undefined).map((e) => e.field), ['metadata.name']);
});

test('a StatefulSet\'s claim templates are checked on create only', () => {
  const sts = {
    metadata: { name: 's', namespace: 'default' },
    spec: {
      selector: { matchLabels: { a: 'b' } }, serviceName: 's', podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'OnDelete' },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }],
    },
  } as KObject;
  const fields = objectErrors(def('apps', 'statefulsets'), sts, undefined).map((e) => e.field);
  assert.ok(fields.includes('spec.volumeClaimTemplates[0].spec.accessModes'), fields.join());
  const stored = { ...sts, metadata: { ...sts.metadata, resourceVersion: '1', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z' } } as KObject;
  const onUpdate = objectErrors(def('apps', 'statefulsets'), stored, stored).map((e) => e.field);
  assert.ok(!onUpdate.some((f) => f.startsWith('spec.volumeClaimTemplates')), onUpdate.join());
});
