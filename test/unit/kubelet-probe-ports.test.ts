// Probes on a port the container does not listen on fail: known for well-known server images (nginx on 80), unless
// the container declares the port; other images and probes without a port are left to the annotations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from '../../src/generated/k8s/core/v1.js';
import { probeFailure } from '../../src/kubelet/probes.js';
import { probePort, probeRefused } from '../../src/kubelet/probe-ports.js';

const nginx = (extra: Partial<Container> = {}): Container => ({ name: 'web', image: 'nginx:1.27', ...extra });

describe('probes on ports nothing listens on', () => {
  it('resolves the probe port, by number, numeric string or the container port\'s name', () => {
    assert.equal(probePort(nginx(), { httpGet: { port: 8080 } }), 8080);
    assert.equal(probePort(nginx(), { tcpSocket: { port: '81' } }), 81);
    assert.equal(probePort(nginx({ ports: [{ name: 'http', containerPort: 80 }] }), { httpGet: { port: 'http' } }), 80);
    assert.equal(probePort(nginx(), { httpGet: { port: 'nope' } }), undefined);
    assert.equal(probePort(nginx(), { exec: { command: ['true'] } }), undefined);
    assert.equal(probePort(nginx(), undefined), undefined);
  });

  it('refuses a well-known image\'s probe on another port it does not declare', () => {
    assert.equal(probeRefused(nginx(), { httpGet: { path: '/', port: 8080 } }), true);
    assert.equal(probeRefused(nginx(), { tcpSocket: { port: 8080 } }), true);
    assert.equal(probeRefused(nginx(), { httpGet: { path: '/', port: 80 } }), false);
    assert.equal(probeRefused(nginx({ ports: [{ containerPort: 8080 }] }), { httpGet: { port: 8080 } }), false, 'a declared port counts as listening');
    assert.equal(probeRefused(nginx({ ports: [{ name: 'http', containerPort: 80 }] }), { httpGet: { port: 'http' } }), false);
    assert.equal(probeRefused({ name: 'app', image: 'example.com/team/app:v1' }, { httpGet: { port: 8080 } }), false, 'an unknown image may listen anywhere');
    assert.equal(probeRefused(nginx(), { exec: { command: ['cat', '/tmp/ready'] } }), false);
  });

  it('says connection refused as the kubelet does', () => {
    assert.equal(probeFailure({ httpGet: { path: '/healthz', port: 8080 } }, '10.244.1.5', false, true), 'Get "http://10.244.1.5:8080/healthz": dial tcp 10.244.1.5:8080: connect: connection refused');
    assert.equal(probeFailure({ tcpSocket: { port: 8080 } }, '10.244.1.5', true, true), 'dial tcp 10.244.1.5:8080: connect: connection refused');
    assert.equal(probeFailure({ httpGet: { path: '/', port: 80 } }, '10.244.1.5', false), 'HTTP probe failed with statuscode: 503');
  });
});
