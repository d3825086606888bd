// A server-side apply that changes nothing writes nothing, as on kube-apiserver (whose field manager ignores a change
// of managedFields timestamps alone): also when the applied configuration leaves out what the server defaults inside
// an atomic list (a webhook's or a policy's `rules` without `scope`), so the merged object differs from the stored one
// until it is defaulted again. Issue 23: re-applying Kueue's and Gateway API's manifests bumped every webhook
// configuration's and policy's resourceVersion and managedFields time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai } from './http.js';

type Json = Record<string, any>;

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const apply = { contentType: 'application/apply-patch+yaml' };

const webhooks: Json = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'stamp' },
  webhooks: [{
    name: 'stamp.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail',
    clientConfig: { service: { namespace: 'hooks', name: 'webhook', path: '/mutate' } },
    rules: [{ apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['jobs'] }],
  }],
};

const policy: Json = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'guard' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
    validations: [{ expression: 'object.spec.replicas < 100' }],
  },
};

describe('a server-side apply that changes nothing', () => {
  const { env, req } = useBonsai({ clock: 'virtual' });

  for (const [what, path, obj] of [
    ['a MutatingWebhookConfiguration', `${ADMISSION}/mutatingwebhookconfigurations/stamp`, webhooks],
    ['a ValidatingAdmissionPolicy', `${ADMISSION}/validatingadmissionpolicies/guard`, policy],
  ] as const) {
    it(`keeps ${what}'s resourceVersion and managedFields time when the applied rules leave defaults out`, async () => {
      const first = await req('PATCH', `${path}?fieldManager=kubectl`, obj, apply);
      assert.equal(first.status, 201, first.text);
      await env.b.clock.advance(5_000);
      // (A policy's status is written by its type checker meanwhile: compare with the object as it is now.)
      const stored = await req('GET', path);
      const again = await req('PATCH', `${path}?fieldManager=kubectl`, obj, apply);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.metadata.resourceVersion, stored.body.metadata.resourceVersion);
      assert.deepEqual(again.body.metadata.managedFields, stored.body.metadata.managedFields);

      // A real change is written, with the new time.
      const changed = structuredClone(obj) as Json;
      changed.metadata.labels = { tier: 'a' };
      await env.b.clock.advance(5_000);
      const third = await req('PATCH', `${path}?fieldManager=kubectl`, changed, apply);
      assert.equal(third.status, 200, third.text);
      assert.notEqual(third.body.metadata.resourceVersion, stored.body.metadata.resourceVersion);
      const mine = (o: Json) => (o.metadata.managedFields as Json[]).find((e) => e.manager === 'kubectl')!.time as string;
      assert.notEqual(mine(third.body), mine(first.body));
    });
  }
});
