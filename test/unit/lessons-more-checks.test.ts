// The step checks and manifests of the probes, jobset-failure-policy and gpus-with-dra lessons, on hand-made objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { brokenLiveness, manifests, probeFixed, readyEndpoints, restartedPod, runningNotReady } from '../../src/lessons/probes.js';
import { badConfigJobSet, restarted, restartingReason, terminal, trainJobSet } from '../../src/lessons/jobset-failure-policy.js';
import { allocatedDevices, applyItems, claimNameOf, migNode, migTemplate, tooBig, unschedulable } from '../../src/lessons/gpus-with-dra.js';

type Json = Record<string, any>;
const pod = (name: string, phase: string, ready: boolean, extra: Json = {}): Json => ({
  metadata: { name }, status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], ...extra },
});
const slice = (...eps: Array<[string, boolean]>) => ({ endpoints: eps.map(([ip, ready]) => ({ addresses: [ip], conditions: { ready } })) });

describe('probes lesson checks', () => {
  it('the readiness probe asks a port nginx does not serve; the liveness patch keeps the whole container', () => {
    const { deployment } = manifests() as { deployment: Json };
    const c = deployment.spec.template.spec.containers[0];
    assert.equal(c.readinessProbe.httpGet.port, 8080);
    assert.equal(probeFixed(deployment, 'readinessProbe'), false);
    assert.equal(probeFixed(deployment, 'livenessProbe'), true, 'no liveness probe yet');
    const patched = (brokenLiveness(deployment) as Json).spec.template.spec.containers[0];
    assert.equal(patched.image, 'nginx:1.27');
    assert.deepEqual(patched.livenessProbe.tcpSocket, { port: 8080 });
    c.readinessProbe.httpGet.port = 80;
    assert.equal(probeFixed(deployment, 'readinessProbe'), true);
  });

  it('runningNotReady wants every pod Running, none Ready and no ready endpoint', () => {
    const pods = [pod('a', 'Running', false), pod('b', 'Running', false)];
    assert.equal(runningNotReady(pods, []).done, true);
    assert.equal(runningNotReady([pods[0]], []).done, false, 'one pod short');
    assert.equal(runningNotReady([pods[0], pod('b', 'Pending', false)], []).done, false);
    assert.equal(runningNotReady(pods, ['10.0.0.1']).done, false);
    assert.deepEqual(readyEndpoints([slice(['10.0.0.1', true], ['10.0.0.2', false]), slice(['10.0.0.3', true])]), ['10.0.0.1', '10.0.0.3']);
  });

  it('restartedPod finds a container killed (137) and restarted', () => {
    const killed = pod('a', 'Running', true, { containerStatuses: [{ restartCount: 2, lastState: { terminated: { exitCode: 137 } }, state: { running: {} } }] });
    assert.equal(restartedPod([pod('b', 'Running', true)]).done, false);
    assert.match(restartedPod([killed]).detail!, /^a restarted 2 time\(s\), last exit 137/);
  });
});

describe('jobset-failure-policy lesson checks', () => {
  it('the JobSets: named rules, pods failing by exit code, train-bad pasteable', () => {
    const js = trainJobSet() as Json;
    assert.deepEqual(js.spec.failurePolicy.rules.map((r: Json) => r.name), ['restartOnOOM', 'failOnBadConfig']);
    const job = js.spec.replicatedJobs[0].template.spec;
    assert.deepEqual(job.podFailurePolicy.rules.map((r: Json) => [r.name, r.onExitCodes.values[0]]), [['oom', 137], ['bad-config', 2]]);
    assert.equal(job.template.spec.restartPolicy, 'Never');
    assert.doesNotMatch(JSON.stringify(badConfigJobSet()), /'/, 'no single quote: it is pasted inside one');
  });

  it('restarted, restartingReason and terminal read the status', () => {
    const status = (s: Json) => ({ status: s });
    assert.equal(restarted(status({}), undefined).done, false);
    assert.deepEqual(restarted(status({ restarts: 1 }), 'FailurePolicy_restartOnOOM'), { done: true, detail: 'status.restarts is 1, RestartingJobSet reason FailurePolicy_restartOnOOM' });
    assert.equal(restartingReason(status({ conditions: [{ type: 'RestartingJobSet', status: 'True', reason: 'FailurePolicy_restartOnOOM' }] })), 'FailurePolicy_restartOnOOM');
    assert.equal(restartingReason(status({ conditions: [{ type: 'RestartingJobSet', status: 'False', reason: 'JobsReady' }] })), undefined);
    assert.equal(terminal(status({ conditions: [{ type: 'Completed', status: 'False' }] })), undefined);
    assert.deepEqual(terminal(status({ conditions: [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction', message: 'm' }] })), { state: 'Failed', reason: 'FailJobSetFailurePolicyAction', message: 'm' });
  });
});

describe('gpus-with-dra lesson checks', () => {
  it('the manifests: a CEL selector on memory, a MIG class and profile, a node labelled for MIG; the apply lines paste', () => {
    assert.match(JSON.stringify((tooBig() as Json).spec.spec.devices.requests[0].exactly.selectors), /memory\.compareTo\(quantity\(\\"96Gi\\"\)\) >= 0/);
    assert.equal((migTemplate() as Json).spec.spec.devices.requests[0].exactly.deviceClassName, 'mig.gpu.bonsai.dev');
    assert.equal((migNode() as Json).metadata.labels['bonsai.dev/gpu-mig'], 'true');
    const line = applyItems([tooBig(), migNode(), migTemplate()]);
    assert.match(line, /^echo '\{"apiVersion":"v1","kind":"List","items":\[.*\]\}' \| kubectl apply -f -$/);
    assert.equal(line.split("'").length, 3, 'the JSON holds no single quote');
  });

  it('reads scheduling messages, claim names and allocated devices', () => {
    assert.equal(unschedulable({ status: { conditions: [{ type: 'PodScheduled', status: 'False', message: '0/5 nodes are available: 5 cannot allocate all claims.' }] } }), '0/5 nodes are available: 5 cannot allocate all claims.');
    assert.equal(unschedulable({ status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } }), undefined);
    assert.equal(claimNameOf({ status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'trainer-gpu-abcde' }] } }), 'trainer-gpu-abcde');
    assert.equal(claimNameOf({ spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'shared-gpu' }] } }), 'shared-gpu');
    assert.deepEqual(allocatedDevices({ status: { allocation: { devices: { results: [{ pool: 'bonsai-gpu-1', device: 'gpu-3' }] } } } }), ['bonsai-gpu-1/gpu-3']);
    assert.deepEqual(allocatedDevices({ status: {} }), []);
  });
});
