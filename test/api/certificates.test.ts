// CertificateSigningRequests at the HTTP level: the requester recorded from the authenticated user, the spec
// frozen, approval only through /approval and the certificate only through /status, the signer's certificate
// (lifetime, subject, CA), and hostile requests: every failure a 4xx Status, no prototype touched.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { assertStatus, useBonsai, type Resp } from './http.js';
import { makeCsr } from '../helpers/tls.js';
import { eventually } from '../helpers/kubectl.js';
import { securityOf } from '../../src/auth/security.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

function csrBody(name: string, request: unknown, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...more } };
}

function notServerError(r: Resp, what: string): void {
  assert.ok(r.status < 500, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  if (r.status >= 400) assert.equal(r.body?.kind, 'Status', `${what}: ${r.text.slice(0, 300)}`);
}

describe('CertificateSigningRequests (HTTP)', () => {
  const { env, req } = useBonsai();
  const admin = () => ({ headers: { authorization: `Bearer ${env.b.credentials.token}` } });

  it('records the requester, keeps the spec and gates approval and the certificate behind their subresources', async () => {
    const { csrPem } = await makeCsr('jane', ['dev']);
    const created = await req('POST', CSRS, {
      ...csrBody('jane', b64(csrPem), { expirationSeconds: 3600, username: 'evil', groups: ['system:masters'], extra: { a: ['b'] } }),
      status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64('x') },
    }, admin());
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.spec, {
      request: b64(csrPem), signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 3600, usages: ['client auth'],
      username: 'bonsai-admin', groups: ['system:masters', 'system:authenticated'],
    });
    assert.deepEqual(created.body.status, {});
    const anon = await req('POST', CSRS, csrBody('anon', b64(csrPem)), { anonymous: true });
    assert.equal(anon.body.spec.username, 'system:anonymous');
    assert.deepEqual(anon.body.spec.groups, ['system:unauthenticated']);

    const cur = (await req('GET', `${CSRS}/jane`)).body;
    const edited = await req('PUT', `${CSRS}/jane`, { ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } }, spec: { ...cur.spec, usages: ['server auth'] }, status: { certificate: b64('x') } });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(edited.body.spec, cur.spec);
    assert.deepEqual(edited.body.metadata.labels, { a: 'b' });
    assert.deepEqual(edited.body.status, {});

    const approved = { type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' };
    assertStatus(await req('PUT', `${CSRS}/jane/status`, { ...edited.body, status: { conditions: [approved] } }), 422, 'Invalid', /status\.conditions: Forbidden: updates may not add a condition of type "Approved"/);
    const ok = await req('PUT', `${CSRS}/jane/approval`, { ...edited.body, spec: { ...cur.spec, usages: ['server auth'] }, status: { conditions: [approved], certificate: b64('x') } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.spec, cur.spec);
    const [cond] = ok.body.status.conditions;
    assert.deepEqual(Object.keys(cond), ['type', 'status', 'reason', 'message', 'lastUpdateTime', 'lastTransitionTime']);
    assert.equal(ok.body.status.certificate, undefined);

    const issued = await eventually(async () => {
      const r = await req('GET', `${CSRS}/jane`);
      return r.body.status.certificate ? r.body : undefined;
    }, 15_000, 'the signer');
    const cert = new X509Certificate(Buffer.from(issued.status.certificate, 'base64'));
    const ca = securityOf(env.b.registry).pki.existingCa()!;
    assert.ok(cert.verify(ca.cert.publicKey) && cert.checkIssued(ca.cert));
    assert.match(cert.subject, /O=dev\nCN=jane/);
    assert.equal((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 1000, 3600 + 300, 'short certificates keep the full TTL after a 5 minute backdate');
    assert.equal(cert.keyUsage?.join(), '1.3.6.1.5.5.7.3.2');

    assertStatus(await req('PUT', `${CSRS}/jane/approval`, { ...issued, status: { conditions: [] } }), 422, 'Invalid', /updates may not remove a condition of type "Approved"/);
    assertStatus(await req('PUT', `${CSRS}/jane/status`, { ...issued, status: { ...issued.status, certificate: b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') } }), 422, 'Invalid', /status\.certificate/);
    const denied = { type: 'Denied', status: 'True', reason: 'KubectlDeny', message: 'no' };
    assertStatus(await req('PUT', `${CSRS}/jane/approval`, { ...issued, status: { conditions: [...issued.status.conditions, denied] } }), 422, 'Invalid', /Approved and Denied conditions are mutually exclusive/);

    const table = await req('GET', CSRS, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    const row = table.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'jane');
    assert.deepEqual(row.cells.slice(2), ['kubernetes.io/kube-apiserver-client', 'bonsai-admin', '60m', 'Approved,Issued']);
    const bySigner = await req('GET', `${CSRS}?fieldSelector=spec.signerName=example.com/none`);
    assert.deepEqual(bySigner.body.items, []);
  });

  /** The PEM with one base64 character near its end (in the signature) changed: always a different character. */
  const corruptSignature = (pem: string) => {
    let i = pem.indexOf('\n-----END') - 1;
    while (pem[i] === '=') i--;
    for (let n = 0; n < 8 || pem[i] === '\n'; n++) i--;
    return pem.slice(0, i) + (pem[i] === 'A' ? 'B' : 'A') + pem.slice(i + 1);
  };

  it('answers hostile requests with 4xx Status objects and touches no prototype', async () => {
    const { csrPem } = await makeCsr('x', []);
    const good = b64(csrPem);
    const pem = (body: string, type = 'CERTIFICATE REQUEST') => b64(`-----BEGIN ${type}-----\n${body}\n-----END ${type}-----\n`);
    const requests: unknown[] = [
      b64('garbage'), '!!!not base64!!!', 42, null, '', pem('AAAA'), pem(b64(Buffer.alloc(64, 7))), pem(good, 'CERTIFICATE'),
      pem(b64(Buffer.from([...Array(400)].flatMap(() => [0x30, 0x80])))), b64('-----BEGIN A-----\n'.repeat(20_000)),
      b64(Buffer.alloc(1_000_000, 0x41)), b64(corruptSignature(csrPem)),
    ];
    let i = 0;
    for (const request of requests) {
      const r = await req('POST', CSRS, csrBody(`bad-${i++}`, request), admin());
      notServerError(r, `request ${String(request).slice(0, 40)}`);
      assert.ok(r.status === 400 || r.status === 422, `${r.status} ${r.text.slice(0, 200)}`);
    }
    const specs: Array<Record<string, unknown>> = [
      { usages: null }, { usages: [null] }, { usages: 'client auth' }, { usages: [] }, { signerName: '' }, { signerName: 'a/b/c' }, { signerName: 'nodots/x' },
      { signerName: 'UPPER.example.com/x' }, { signerName: 42 }, { expirationSeconds: 10 }, { expirationSeconds: 'x' }, { expirationSeconds: -1 },
    ];
    for (const spec of specs) {
      const r = await req('POST', CSRS, csrBody(`spec-${i++}`, good, spec), admin());
      notServerError(r, JSON.stringify(spec));
      assert.notEqual(r.status, 201, JSON.stringify(spec));
    }
    const protoSpec = await req('POST', CSRS, csrBody('proto-spec', good, JSON.parse('{"__proto__":{"finalizers":["p"]},"usages":["client auth"]}') as Record<string, unknown>), admin());
    assert.equal(protoSpec.status, 201, protoSpec.text);
    const proto = await req('POST', CSRS, JSON.parse(`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"proto","__proto__":{"polluted":1}},"spec":{"request":"${good}","signerName":"example.com/x","usages":["client auth"],"constructor":{"prototype":{"polluted":1}}},"status":{"__proto__":{"finalizers":["p"]}}}`), admin());
    notServerError(proto, 'prototype keys');
    const cur = (await req('GET', `${CSRS}/proto`)).body;
    for (const conditions of [[null], [5], [{ type: 'Approved', status: 'Maybe' }], [{ type: '' , status: 'True' }], [{ type: 'X', status: 'True' }, { type: 'X', status: 'True' }], 'nope', JSON.parse('[{"type":"Approved","status":"True","__proto__":{"finalizers":["p"]}}]')]) {
      const r = await req('PUT', `${CSRS}/proto/approval`, { ...cur, status: { conditions } });
      notServerError(r, JSON.stringify(conditions));
    }
    assert.equal(({} as Record<string, unknown>).finalizers, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((await req('GET', '/healthz')).status, 200);
  });
});
