// Hostile objects for the add-ons' controllers: their CRDs' schemas let through shapes (maps of strings, free
// quantities, references to any kind) that only the controllers interpret. Every add-on kind gets keys named
// __proto__/constructor/prototype, wrong kinds, absurd numbers and huge strings; KEDA's metrics-api trigger reads
// from endpoints that answer too much, nonsense, deeply nested JSON or never, and is pointed at cloud metadata
// addresses. The server must answer every write without a 5xx, the controllers must reach a sentinel created after
// them (so they processed the hostile ones first), the prototypes stay clean and what the controllers wrote fits
// their CRDs' schemas.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';
import { unknownFields } from '../helpers/addon-fields.js';
import { clientFor } from '../../src/client/client.js';

const NS = 'default';
const evil = '"__proto__":{"polluted":"yes","x":1},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"x":1}';
const evilMap = '"__proto__":"1","constructor":"2","prototype":"3","toString":"4","hasOwnProperty":"5"';
const huge = 'x'.repeat(200_000);

function prototypeSnapshot(): string {
  const protos = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype];
  return JSON.stringify(protos.map((p) => Reflect.ownKeys(p).map(String).sort()));
}

/** An endpoint for metrics-api triggers that misbehaves in the way its path names. */
function hostileEndpoint(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    switch (req.url) {
      case '/huge':
        res.end(`{"value":1,"pad":"${'y'.repeat(4 * 2 ** 20)}"}`);
        return;
      case '/deep':
        res.end(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
        return;
      case '/nonsense':
        res.end('{"value": nope');
        return;
      case '/many':
        res.end('{"value": 1e9}');
        return;
      case '/hang':
        return; // never answers
      default:
        res.end('{"value":"constructor"}');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    resolve({ url: `http://127.0.0.1:${port}`, close: () => server.closeAllConnections?.() ?? server.close() });
  }));
}

describe('hostile objects for the add-ons', () => {
  const { env, req } = useBonsai({ addons: ['karpenter', 'keda', 'vpa'], cluster: { nodes: 1 }, clockSpeed: 60 });
  let endpoint: { url: string; close(): void };
  let before0 = '';

  before(async () => {
    before0 = prototypeSnapshot();
    endpoint = await hostileEndpoint();
    await env.b.addonsReady;
    const r = await req('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } } },
    });
    assert.equal(r.status, 201, r.text);
  });
  after(() => endpoint?.close());

  const post = async (path: string, raw: string): Promise<string | undefined> => {
    const r = await req('POST', path, undefined, { raw });
    if (r.status >= 500) return `${path}: ${r.status} ${r.text.slice(0, 300)}`;
    return undefined;
  };

  it('KEDA: ScaledObjects, ScaledJobs and TriggerAuthentications with hostile shapes', async () => {
    const so = `/apis/keda.sh/v1alpha1/namespaces/${NS}/scaledobjects`;
    const sj = `/apis/keda.sh/v1alpha1/namespaces/${NS}/scaledjobs`;
    const ta = `/apis/keda.sh/v1alpha1/namespaces/${NS}/triggerauthentications`;
    const obj = (kind: string, name: string, spec: string) => `{"apiVersion":"keda.sh/v1alpha1","kind":"${kind}",${evil},"metadata":{"name":"${name}",${evil}},"spec":${spec}}`;
    const target = '{"name":"web"}';
    const trig = (type: string, meta: string, extra = '') => `{"type":"${type}","metadata":{${meta}}${extra}}`;
    const api = (path: string) => trig('metrics-api', `"url":"${endpoint.url}${path}","valueLocation":"value","targetValue":"1"`);
    const bodies: Array<[string, string]> = [
      [so, obj('ScaledObject', 'so-evil', `{${evil},"scaleTargetRef":{"name":"web",${evil}},"minReplicaCount":0,"triggers":[${trig('kubernetes-workload', `${evilMap},"podSelector":"app=web","value":"1"`)}]}`)],
      [so, obj('ScaledObject', 'so-kind', '{"scaleTargetRef":{"name":"constructor","kind":"__proto__","apiVersion":"prototype/v1"},"triggers":[{"type":"cron","metadata":{"timezone":"../../../etc/passwd","start":"* * * * * * * *","end":"","desiredReplicas":"1e400"}}]}')],
      [so, obj('ScaledObject', 'so-numbers', `{"scaleTargetRef":${target},"minReplicaCount":2147483647,"maxReplicaCount":-5,"pollingInterval":0,"cooldownPeriod":2147483647,"idleReplicaCount":-1,"fallback":{"failureThreshold":-1,"replicas":2147483647},"triggers":[${trig('kubernetes-workload', '"podSelector":"!!!,,=","value":"NaN","activationValue":"-0x10"')}]}`)],
      [so, obj('ScaledObject', 'so-huge', `{"scaleTargetRef":${target},"triggers":[${trig('metrics-api', `"url":"${huge}","valueLocation":"${'a.'.repeat(5000)}b","targetValue":"1"`)}]}`)],
      [so, obj('ScaledObject', 'so-advanced', `{"scaleTargetRef":${target},"advanced":{"restoreToOriginalReplicaCount":true,"horizontalPodAutoscalerConfig":{"name":"__proto__","behavior":{"scaleUp":{"policies":[{"type":"Pods","value":-1,"periodSeconds":0}],"selectPolicy":"constructor"}}}},"triggers":[${trig('cpu', '"value":"50"', ',"metricType":"Utilization"')}]}`)],
      ...['huge', 'deep', 'nonsense', 'hang', 'other'].map((p): [string, string] => [so, obj('ScaledObject', `so-api-${p}`, `{"scaleTargetRef":${target},"pollingInterval":1,"triggers":[${api(`/${p}`)}]}`)]),
      // Link-local and cloud metadata targets (refused by the scalers' outbound guard, never connected to).
      ...['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://metadata.google.internal/computeMetadata/v1/', 'http://[::ffff:a9fe:a9fe]/'].map((url, i): [string, string] => [so, obj('ScaledObject', `so-metadata-${i}`, `{"scaleTargetRef":${target},"pollingInterval":1,"triggers":[${trig('metrics-api', `"url":"${url}","valueLocation":"value","targetValue":"1"`)}]}`)]),
      [sj, obj('ScaledJob', 'sj-many', `{${evil},"maxReplicaCount":2147483647,"pollingInterval":60,"jobTargetRef":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}},"scalingStrategy":{"strategy":"custom","customScalingQueueLengthDeduction":-2147483647,"customScalingRunningJobPercentage":"1e400"},"triggers":[${api('/many')}]}`)],
      [ta, obj('TriggerAuthentication', 'ta-evil', `{${evil},"secretTargetRef":[{"parameter":"__proto__","name":"constructor","key":"prototype"}],"env":[{"parameter":"constructor","name":"__proto__"}]}`)],
      [so, obj('ScaledObject', 'so-auth', `{"scaleTargetRef":${target},"triggers":[${trig('metrics-api', `"url":"${endpoint.url}/other","valueLocation":"value","targetValue":"1","authMode":"__proto__"`, ',"authenticationRef":{"name":"ta-evil"}')}]}`)],
    ];
    const problems: string[] = [];
    for (const [path, raw] of bodies) {
      const p = await post(path, raw);
      if (p) problems.push(p);
    }
    assert.deepEqual(problems, []);
    // A sentinel written after them: once its Ready condition is set, the controller has been through the others. It
    // scales a workload of its own (KEDA's webhook refuses a second ScaledObject for one the others already scale).
    assert.equal(await post(so, obj('ScaledObject', 'so-sentinel', `{"scaleTargetRef":{"name":"sentinel"},"triggers":[${trig('no-such-scaler', '"a":"b"')}]}`)), undefined);
    await eventually(async () => {
      const r = await req('GET', `${so}/so-sentinel`);
      return (r.body?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'False');
    }, 20_000, 'the sentinel ScaledObject is Ready=False');
    // Polls of the misbehaving endpoints have run (pollingInterval 1 s) without harm. The ScaledJob asks for 2^31 Jobs:
    // it gets them a bounded batch per poll, and the API keeps answering meanwhile.
    const jobs = await req('GET', `/apis/batch/v1/namespaces/${NS}/jobs?labelSelector=scaledjob.keda.sh/name%3Dsj-many&limit=1`);
    assert.equal(jobs.status, 200);
    assert.equal((await req('DELETE', `${sj}/sj-many`)).status, 200);
  });

  it('VPA: hostile targets, policies and numbers', async () => {
    const vpas = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`;
    const vpa = (name: string, spec: string) => `{"apiVersion":"autoscaling.k8s.io/v1","kind":"VerticalPodAutoscaler",${evil},"metadata":{"name":"${name}",${evil}},"spec":${spec}}`;
    const bodies = [
      vpa('vpa-evil', `{${evil},"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web",${evil}},"updatePolicy":{"updateMode":"InPlaceOrRecreate","minReplicas":-5,${evil}}}`),
      vpa('vpa-kind', '{"targetRef":{"apiVersion":"prototype/v1","kind":"__proto__","name":"constructor"},"updatePolicy":{"updateMode":"Recreate"}}'),
      vpa('vpa-policy', `{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"resourcePolicy":{"containerPolicies":[{"containerName":"__proto__","minAllowed":{${evilMap}},"maxAllowed":{"cpu":"1e400","memory":"-1"},"controlledResources":["constructor","cpu"],"controlledValues":"RequestsAndLimits"},{"containerName":"*","mode":"Off"}]}}`),
      vpa('vpa-huge', `{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"${huge.slice(0, 60_000)}"},"recommenders":[{"name":"${huge.slice(0, 10_000)}"}]}`),
    ];
    const problems: string[] = [];
    for (const raw of bodies) {
      const p = await post(vpas, raw);
      if (p) problems.push(p);
    }
    assert.deepEqual(problems, []);
    assert.equal(await post(vpas, vpa('vpa-sentinel', '{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"missing"}}')), undefined);
    await eventually(async () => {
      const r = await req('GET', `${vpas}/vpa-sentinel`);
      return (r.body?.status?.conditions ?? []).some((c: { type: string }) => c.type === 'ConfigUnsupported');
    }, 20_000, 'the sentinel VPA reports ConfigUnsupported');
  });

  it('Karpenter: NodePools, NodeClaims and node classes with hostile requirements, limits and budgets', async () => {
    const pools = '/apis/karpenter.sh/v1/nodepools';
    const claims = '/apis/karpenter.sh/v1/nodeclaims';
    const classes = '/apis/karpenter.kwok.sh/v1alpha1/kwoknodeclasses';
    const ref = '"nodeClassRef":{"group":"karpenter.kwok.sh","kind":"KWOKNodeClass","name":"default"}';
    const pool = (name: string, spec: string) => `{"apiVersion":"karpenter.sh/v1","kind":"NodePool",${evil},"metadata":{"name":"${name}",${evil}},"spec":${spec}}`;
    const tmpl = (extra: string) => `{"template":{"metadata":{"labels":{${evilMap}}},"spec":{${ref},${extra}}}`;
    const many = JSON.stringify(Array.from({ length: 2000 }, (_, i) => `v${i}`));
    const bodies: Array<[string, string]> = [
      [classes, `{"apiVersion":"karpenter.kwok.sh/v1alpha1","kind":"KWOKNodeClass",${evil},"metadata":{"name":"default",${evil}}}`],
      [pools, pool('np-evil', `${tmpl(`"requirements":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":${many}},{"key":"karpenter.kwok.sh/instance-cpu","operator":"Gt","values":["99999999999999999999999"]},{"key":"kubernetes.io/arch","operator":"Exists","minValues":50}]`)},${evil.replace('"prototype":{"x":1}', '"limits":{"cpu":"1e400","memory":"-1","nvidia.com/gpu":"0"}')}}`)],
      [pools, pool('np-budgets', `${tmpl('"requirements":[]')},"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"0s","budgets":[{"nodes":"100%","schedule":"* * * * * * *","duration":"1000000h"},{"nodes":"0","reasons":["Drifted"]},{"nodes":"2147483647"}]},"weight":100}`)],
      [pools, pool('np-expire', `${tmpl('"requirements":[],"expireAfter":"1s","terminationGracePeriod":"0s","taints":[{"key":"example.com/__proto__","effect":"NoSchedule"}],"startupTaints":[{"key":"example.com/constructor","effect":"NoExecute"}]')}}`)],
      [claims, `{"apiVersion":"karpenter.sh/v1","kind":"NodeClaim",${evil},"metadata":{"name":"nc-evil","labels":{"karpenter.sh/nodepool":"np-budgets"},${evil}},"spec":{${ref},"requirements":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["constructor"]}],"resources":{"requests":{${evilMap}}}}}`],
    ];
    const problems: string[] = [];
    for (const [path, raw] of bodies) {
      const p = await post(path, raw);
      if (p) problems.push(p);
    }
    assert.deepEqual(problems, []);
    // Pending pods make the provisioner simulate against those pools.
    const pod = (name: string, requests: string) => `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}"},"spec":{"nodeSelector":{"karpenter.sh/nodepool":"np-evil"},"containers":[{"name":"c","image":"x","resources":{"requests":${requests}}}]}}`;
    assert.equal(await post(`/api/v1/namespaces/${NS}/pods`, pod('wants-evil', '{"cpu":"1"}')), undefined);
    assert.equal(await post(`/api/v1/namespaces/${NS}/pods`, pod('wants-much', '{"cpu":"100000","memory":"1000Ti","example.com/__proto__":"1"}')), undefined);
    assert.equal(await post(pools, pool('np-sentinel', `${tmpl('"requirements":[]')}}`)), undefined);
    await eventually(async () => {
      const r = await req('GET', `${pools}/np-sentinel`);
      return (r.body?.status?.conditions ?? []).some((c: { type: string }) => c.type === 'Ready');
    }, 20_000, `the sentinel NodePool has a Ready condition: ${JSON.stringify((await req('GET', pools)).body?.items?.map((p: { metadata: { name: string }; status?: unknown }) => [p.metadata.name, p.status]))}`);
  });

  it('leaves the prototypes clean and the API answering', async () => {
    // What the KEDA, VPA and Karpenter controllers wrote fits their CRDs' storage versions.
    assert.deepEqual(unknownFields(clientFor(env.b.registry)), []);
    assert.equal(prototypeSnapshot(), before0);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const r = await req('GET', '/api/v1/namespaces');
    assert.equal(r.status, 200);
  });
});
