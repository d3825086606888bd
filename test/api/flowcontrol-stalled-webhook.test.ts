// Issue 22, item 5: a validating webhook scoped to namespace `slow` (failurePolicy Ignore, timeoutSeconds 30) points
// at a listener that accepts connections and never answers. 250 anonymous creates into `slow` wait on it; creates into
// `default` meanwhile succeed, whether they come from the same (anonymous) user or from another one, and the slow
// creates succeed once the webhook times out. With max-in-flight alone the slow creates held all 200 mutating slots.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai, type Resp } from './http.js';
import { eventually } from '../helpers/kubectl.js';
import { silentListener } from '../helpers/silent-listener.js';

const slowCreates = 250;
const anon = { anonymous: true };
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('a stalled webhook in one namespace', { timeout: 180_000 }, () => {
  const { req } = useBonsai();

  it('leaves creates in other namespaces unaffected, for the same user and for another', async () => {
    const listener = await silentListener();
    try {
      assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'slow', labels: { 'apf-test': 'slow' } } })).status, 201);
      const hook = await req('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'stalled' },
        webhooks: [{
          name: 'stalled.example.com', clientConfig: { url: `https://127.0.0.1:${listener.port}/validate` },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          namespaceSelector: { matchLabels: { 'apf-test': 'slow' } },
          failurePolicy: 'Ignore', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 30,
        }],
      });
      assert.equal(hook.status, 201, hook.text.slice(0, 300));
      const slow: Array<Promise<Resp>> = [];
      for (let i = 0; i < slowCreates; i++) slow.push(req('POST', '/api/v1/namespaces/slow/configmaps', configMap(`slow-${i}`), anon));
      // Every slow create is waiting on the webhook (none can finish before it times out).
      await eventually(() => listener.accepted() >= slowCreates, 120_000, `${slowCreates} webhook calls (${listener.accepted()} so far)`);
      const sameUser = await Promise.all(Array.from({ length: 20 }, (_, i) => req('POST', '/api/v1/namespaces/default/configmaps', configMap(`anon-${i}`), anon)));
      const otherUser = await Promise.all(Array.from({ length: 20 }, (_, i) => req('POST', '/api/v1/namespaces/default/configmaps', configMap(`bob-${i}`), { headers: { 'Impersonate-User': 'bob' } })));
      for (const r of [...sameUser, ...otherUser]) assert.equal(r.status, 201, `${r.status} ${r.text.slice(0, 300)}`);
      // Reads in `default` too.
      assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps', undefined, anon)).status, 200);
      // Once the webhook times out, failurePolicy Ignore lets every slow create through.
      const done = await Promise.all(slow);
      const failed = done.filter((r) => r.status !== 201);
      assert.equal(failed.length, 0, failed.slice(0, 3).map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('; '));
    } finally {
      await listener.close();
    }
  });
});
