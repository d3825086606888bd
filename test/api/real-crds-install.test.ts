// Real projects' manifests install over HTTP as on kube-apiserver: Gateway API's safe-upgrades policy (which calls
// the global `matches(s, re)`) guards the install of its standard HTTPRoute and GRPCRoute CRDs (RE2 `(?i)` rules),
// then routes are created and a bad GRPCRoute service name is refused; Kueue's Workload CRD (rules whose cost estimate
// sizes an unbounded conditions list) installs, a Workload is created, and its podSets rule refuses a bad status.
// Fixtures and provenance: test/fixtures/ecosystem/SOURCE.md.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const fixture = (file: string): Json[] =>
  parseAllDocuments(readFileSync(join(process.cwd(), 'test/fixtures/ecosystem', file), 'utf8')).map((d) => d.toJS() as Json).filter(Boolean);

describe('real projects\' CRDs and policies install', () => {
  const { req } = useBonsai();

  async function install(crd: Json): Promise<void> {
    const r = await req('POST', CRDS, crd);
    assert.equal(r.status, 201, r.text.slice(0, 800));
    const { group, names, versions } = crd.spec;
    for (const v of (versions as Json[]).filter((x) => x.served)) {
      await eventually(async () => (await req('GET', `/apis/${group}/${v.name}/namespaces/default/${names.plural}`)).status === 200, 10_000, `${crd.metadata.name} ${v.name} served`);
    }
  }

  it('Gateway API: the safe-upgrades policy admits the standard CRDs; HTTPRoute and GRPCRoute are created', async () => {
    const [policy, binding] = fixture('gateway.networking.k8s.io_vap_safeupgrades.yaml');
    assert.equal((await req('POST', `${ADMISSION}/validatingadmissionpolicies`, policy)).status, 201);
    assert.equal((await req('POST', `${ADMISSION}/validatingadmissionpolicybindings`, binding)).status, 201);
    // Once the policy is in force, an old bundle is refused by its second rule (the global matches); nothing else is.
    const old: Json = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: {
        name: 'olds.gateway.networking.k8s.io',
        annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api/pull/3328', 'gateway.networking.k8s.io/bundle-version': 'v1.2.0', 'gateway.networking.k8s.io/channel': 'standard' },
      },
      spec: { group: 'gateway.networking.k8s.io', scope: 'Namespaced', names: { plural: 'olds', singular: 'old', kind: 'Old', listKind: 'OldList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    const refused = await eventually(async () => {
      const r = await req('POST', CRDS, old);
      if (r.status === 201) await req('DELETE', `${CRDS}/${old.metadata.name}`);
      return r.status === 201 ? undefined : r;
    }, 10_000, 'the policy in force');
    assertStatus(refused, 422, 'Invalid', /^customresourcedefinitions\.apiextensions\.k8s\.io "olds\.gateway\.networking\.k8s\.io" is forbidden: ValidatingAdmissionPolicy 'safe-upgrades\.gateway\.networking\.k8s\.io' with binding 'safe-upgrades\.gateway\.networking\.k8s\.io' denied request: Installing CRDs with version before v1\.5\.0 is prohibited by default/);

    for (const file of ['gateway.networking.k8s.io_httproutes.yaml', 'gateway.networking.k8s.io_grpcroutes.yaml']) await install(fixture(file)[0]!);
    const parentRefs = [{ name: 'gateway' }];
    const http = await req('POST', '/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes', {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web' },
      spec: { parentRefs, hostnames: ['example.com'], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ name: 'api', port: 8080 }] }] },
    });
    assert.equal(http.status, 201, http.text.slice(0, 800));
    const grpc = (name: string, service: string) => req('POST', '/apis/gateway.networking.k8s.io/v1/namespaces/default/grpcroutes', {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name },
      spec: { parentRefs, rules: [{ matches: [{ method: { service, method: 'SayHello' } }], backendRefs: [{ name: 'greeter', port: 50051 }] }] },
    });
    const ok = await grpc('greeter', 'Helloworld.Greeter');
    assert.equal(ok.status, 201, ok.text.slice(0, 800));
    const bad = assertStatus(await grpc('bad', 'hello-world'), 422, 'Invalid');
    assert.match(bad.message, /spec\.rules\[0\]\.matches\[0\]\.method: Invalid value: service must only contain valid characters \(matching /);
  });

  it("Kueue: the Workload CRD installs, a Workload is created, and its rules hold", async () => {
    await install(fixture('kueue.x-k8s.io_workloads.yaml')[0]!);
    const path = '/apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads';
    const created = await req('POST', path, {
      apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'Workload', metadata: { name: 'job-a' },
      spec: { queueName: 'user-queue', podSets: [{ name: 'main', count: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1' } } }] } } }] },
    });
    assert.equal(created.status, 201, created.text.slice(0, 800));
    assert.equal((await req('GET', '/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads/job-a')).status, 200);
    // Quota reserved with no podSet assigned: the first rule refuses the status.
    const status = {
      conditions: [{ type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved', message: 'reserved', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      admission: { clusterQueue: 'cluster-queue', podSetAssignments: [] },
    };
    const refused = await req('PUT', `${path}/job-a/status`, { ...created.body, status });
    assertStatus(refused, 422, 'Invalid', /podSetAssignments must have the same number of podSets as the spec/);
    const assigned = { ...status, admission: { clusterQueue: 'cluster-queue', podSetAssignments: [{ name: 'main', count: 2, flavors: { cpu: 'default' } }] } };
    const admitted = await req('PUT', `${path}/job-a/status`, { ...created.body, status: assigned });
    assert.equal(admitted.status, 200, admitted.text.slice(0, 800));
  });
});
