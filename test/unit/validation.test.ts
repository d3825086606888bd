import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultJobSelector } from '../../src/registry/defaults/batch.js';
import { defaultKind, validateKind } from '../helpers/builtin-defs.js';
import { checkAgainstSchema } from '../../src/registry/validation/schema.js';
import { cronError } from '../../src/machinery/cron.js';
import { parseQuantity } from '../../src/machinery/quantity.js';
import type { GroupVersionKind, KObject } from '../../src/machinery/types.js';

const deploymentGvk: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
const lines = (errs: { field: string; message: string }[]) => errs.map((e) => `${e.field}: ${e.message}`);

function deployment(mut?: (d: any) => void): KObject {
  const d: any = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
    },
  };
  mut?.(d);
  defaultKind(deploymentGvk, d);
  return d;
}

test('a valid defaulted Deployment has no errors', () => {
  assert.deepEqual(validateKind(deploymentGvk, deployment()), []);
});

test('bad names use the DNS-1123 subdomain message; namespaces and services their own', () => {
  const errs = validateKind(deploymentGvk, deployment((d) => { d.metadata.name = 'Web_1'; }));
  assert.deepEqual(lines(errs), [
    `metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  const nsErrs = validateKind({ group: '', version: 'v1', kind: 'Namespace' }, { metadata: { name: 'a.b' } });
  assert.deepEqual(lines(nsErrs), ['metadata.name: Invalid value: "a.b": must not contain dots']);
  const svc: KObject = { metadata: { name: '1svc', namespace: 'default' }, spec: { ports: [{ port: 80 }] } };
  defaultKind({ group: '', version: 'v1', kind: 'Service' }, svc);
  const svcErrs = validateKind({ group: '', version: 'v1', kind: 'Service' }, svc);
  assert.match(lines(svcErrs)[0], /^metadata\.name: Invalid value: "1svc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character \(e\.g\. 'my-name',  or 'abc-123', regex used/);
  const noName = validateKind(deploymentGvk, deployment((d) => { delete d.metadata.name; }));
  assert.deepEqual(lines(noName), ['metadata.name: Required value: name or generateName is required']);
  const noNs = validateKind(deploymentGvk, deployment((d) => { delete d.metadata.namespace; }));
  assert.deepEqual(lines(noNs), ['metadata.namespace: Required value']);
});

test('labels are validated with upstream messages', () => {
  const errs = validateKind(deploymentGvk, deployment((d) => { d.metadata.labels = { 'bad key!': 'ok', app: 'bad value!' }; }));
  assert.equal(errs.length, 2);
  assert.equal(errs[0].field, 'metadata.labels');
  assert.match(errs[0].message, /^Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '\.', and must start and end with an alphanumeric character \(e\.g\. 'MyName',  or 'my\.name',  or '123-abc'/);
  assert.match(errs[1].message, /^Invalid value: "bad value!": a valid label must be an empty string or consist of/);
});

test('missing image, duplicate container names and bad ports', () => {
  const errs = validateKind(deploymentGvk, deployment((d) => {
    d.spec.template.spec.containers = [{ name: 'a' }, { name: 'a', image: 'x', ports: [{ containerPort: 70000 }] }];
  }));
  assert.deepEqual(lines(errs), [
    'spec.template.spec.containers[0].image: Required value',
    'spec.template.spec.containers[1].name: Duplicate value: "a"',
    'spec.template.spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
  ]);
  const none = validateKind(deploymentGvk, deployment((d) => { d.spec.template.spec.containers = []; }));
  assert.deepEqual(lines(none), ['spec.template.spec.containers: Required value']);
});

test('selector must match template labels; empty and missing selectors', () => {
  const errs = validateKind(deploymentGvk, deployment((d) => { d.spec.template.metadata.labels = { app: 'x' }; }));
  assert.deepEqual(lines(errs), ['spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`']);
  const missing = validateKind(deploymentGvk, deployment((d) => { delete d.spec.selector; }));
  assert.deepEqual(lines(missing), ['spec.selector: Required value']);
  const empty = validateKind(deploymentGvk, deployment((d) => { d.spec.selector = {}; }));
  assert.deepEqual(lines(empty), ['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
});

test('replicas, strategy and restartPolicy', () => {
  const errs = validateKind(deploymentGvk, deployment((d) => {
    d.spec.replicas = -1;
    d.spec.strategy = { type: 'BlueGreen' };
    d.spec.template.spec.restartPolicy = 'Never';
  }));
  assert.deepEqual(lines(errs), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    'spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"',
  ]);
});

test('deployment selector is immutable', () => {
  const old = deployment();
  const next = deployment((d) => { d.spec.selector = { matchLabels: { app: 'web', tier: 'a' } }; d.spec.template.metadata.labels.tier = 'a'; });
  const errs = validateKind(deploymentGvk, next, old);
  assert.deepEqual(lines(errs), ['spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"a"}}: field is immutable']);
});

test('requests above limits and negative quantities', () => {
  const errs = validateKind(deploymentGvk, deployment((d) => {
    d.spec.template.spec.containers[0].resources = { limits: { cpu: '500m' }, requests: { cpu: '1', memory: '-1Gi' } };
  }));
  assert.deepEqual(lines(errs), [
    'spec.template.spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
    'spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "1": must be less than or equal to cpu limit of 500m',
  ]);
  assert.deepEqual(parseQuantity('1.5Gi'), { value: 1.5 * 2 ** 30 });
  assert.ok('error' in parseQuantity('1x'));
});

test('Job: restartPolicy, generated selector, immutable template', () => {
  const gvk = { group: 'batch', version: 'v1', kind: 'Job' };
  const job: any = { metadata: { name: 'pi', namespace: 'default', uid: 'u1' }, spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } } } };
  defaultKind(gvk, job);
  defaultJobSelector(job);
  assert.deepEqual(lines(validateKind(gvk, job)), [
    'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
  ]);
  job.spec.template.spec.restartPolicy = 'Never';
  assert.deepEqual(validateKind(gvk, job), []);
  const next = structuredClone(job);
  next.spec.template.spec.containers[0].image = 'perl:2';
  assert.deepEqual(validateKind(gvk, next, job).map((e) => e.field), ['spec.template']);
  assert.match(validateKind(gvk, next, job)[0].message, /: field is immutable$/);
});

test('CronJob schedule', () => {
  const gvk = { group: 'batch', version: 'v1', kind: 'CronJob' };
  const cj: any = {
    metadata: { name: 'c', namespace: 'default' },
    spec: { schedule: 'every minute', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
  };
  defaultKind(gvk, cj);
  assert.deepEqual(lines(validateKind(gvk, cj)), ['spec.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: [every minute]']);
  cj.spec.schedule = '*/5 * * * *';
  assert.deepEqual(validateKind(gvk, cj), []);
  assert.equal(cronError('61 * * * *'), 'end of range (61) above maximum (59): 61');
  assert.equal(cronError('@hourly'), undefined);
  delete cj.spec.schedule;
  assert.deepEqual(lines(validateKind(gvk, cj)), ['spec.schedule: Required value']);
});

test('Service: ports required, type enum, clusterIP may not change', () => {
  const gvk = { group: '', version: 'v1', kind: 'Service' };
  const svc: any = { metadata: { name: 'web', namespace: 'default' }, spec: { type: 'Foo' } };
  defaultKind(gvk, svc);
  assert.deepEqual(lines(validateKind(gvk, svc)), [
    'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    'spec.ports: Required value',
  ]);
  const old: any = { metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ port: 80 }], clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] } };
  defaultKind(gvk, old);
  const next = structuredClone(old);
  next.spec.clusterIP = 'None';
  next.spec.clusterIPs = ['None'];
  assert.deepEqual(lines(validateKind(gvk, next, old)), ['spec.clusterIPs[0]: Invalid value: ["None"]: may not change once set']);
});

test('ConfigMap with immutable: true cannot change data', () => {
  const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
  const old: KObject = { metadata: { name: 'c', namespace: 'default' }, data: { a: '1' }, immutable: true };
  const next: KObject = { ...old, data: { a: '2' } };
  assert.deepEqual(lines(validateKind(gvk, next, old)), ['data: Forbidden: field is immutable when `immutable` is set']);
});

test('schema: unknown field paths', () => {
  const { unknownFields, typeErrors } = checkAgainstSchema(deploymentGvk, {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', labels: { a: 'b' } },
    spec: { foo: 1, replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'i', imagePullPolicyy: 'Always', resources: { limits: { cpu: 1 } } }] } } },
    extra: true,
  });
  assert.deepEqual(unknownFields, ['spec.foo', 'spec.template.spec.containers[0].imagePullPolicyy', 'extra']);
  assert.deepEqual(typeErrors, []);
});

test('schema: type errors in encoding/json wording; IntOrString and Quantity', () => {
  assert.deepEqual(checkAgainstSchema(deploymentGvk, { spec: { replicas: 'three' } }).typeErrors, [
    'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  ]);
  assert.deepEqual(checkAgainstSchema(deploymentGvk, { spec: { template: { spec: { containers: [{ name: 5 }] } } } }).typeErrors, [
    'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.name of type string',
  ]);
  assert.deepEqual(checkAgainstSchema(deploymentGvk, { metadata: { labels: ['a'] } }).typeErrors, [
    'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string',
  ]);
  assert.deepEqual(checkAgainstSchema(deploymentGvk, { spec: { strategy: { rollingUpdate: { maxSurge: '50%', maxUnavailable: 1 } } } }).typeErrors, []);
  assert.deepEqual(checkAgainstSchema(deploymentGvk, { spec: { template: { spec: { containers: [{ resources: { limits: { cpu: '1x' } } }] } } } }).typeErrors, [
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  ]);
  assert.deepEqual(checkAgainstSchema({ group: '', version: 'v1', kind: 'Secret' }, { data: { a: 'not base64!' } }).typeErrors, ['illegal base64 data at input byte 3']);
  assert.deepEqual(checkAgainstSchema({ group: 'example.com', version: 'v1', kind: 'Widget' }, { anything: 1 }), { unknownFields: [], typeErrors: [] });
});
