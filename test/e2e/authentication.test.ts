// Authentication against `bonsai serve --tls`, through the real kubectl: the generated kubeconfig (client
// certificate and CA), bad tokens, ServiceAccount tokens from `kubectl create token`, TokenReview, the static token
// file, and client certificates issued through CertificateSigningRequests and `kubectl certificate approve`.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { runBonsai } from '../helpers/server.js';
import { eventually, Kubectl } from '../helpers/kubectl.js';
import { csrManifest, httpsRequest, makeCsr, writeKubeconfigFor } from '../helpers/tls.js';

const scratch = mkdtempSync(join(tmpdir(), 'bonsai-authn-'));
const tokenFile = join(scratch, 'tokens.csv');
writeFileSync(tokenFile, 'alice-token,alice,1001,"dev,ops"\n,ignored,1\nbob-token,bob,1002\n');

describe('authentication over TLS (kubectl)', () => {
  const env = useKubectlServer({ args: [...noAddons, '--tls', '--token-auth-file', tokenFile, '--nodes', '0'] });
  let ca = '';
  /** kubectl as the holder of `token` (no client certificate). */
  const asToken = (name: string, token: string) => new Kubectl(writeKubeconfigFor(join(scratch, `${name}.kubeconfig`), env.server.url, { ca, token }));

  before(() => {
    ca = readFileSync(join(env.server.dataDir, 'pki', 'ca.crt'), 'utf8');
  });

  it('serves https with a kubeconfig that verifies the server and authenticates with a client certificate', async () => {
    assert.match(env.server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const doc = parse(readFileSync(env.server.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: Record<string, unknown> }>; users: Array<{ user: Record<string, unknown> }> };
    assert.equal(Buffer.from(String(doc.clusters[0].cluster['certificate-authority-data']), 'base64').toString(), ca);
    assert.equal(doc.clusters[0].cluster['insecure-skip-tls-verify'], undefined);
    assert.ok(doc.users[0].user['client-certificate-data'] && doc.users[0].user['client-key-data']);
    assert.match(await env.k.ok(['get', 'ns']), /^default\s+Active/m);
    const who = await env.k.ok(['auth', 'whoami']);
    assert.match(who, /Username\s+bonsai-admin/);
    assert.match(who, /Groups\s+\[system:masters system:authenticated\]/);
    assert.match(who, /credential-id\s+\[X509SHA256=[0-9a-f]{64}\]/);
  });

  it('answers a bogus token with 401 as kube-apiserver does', async () => {
    const bogus = asToken('bogus', 'not-a-real-token');
    assert.match(await bogus.fails(['auth', 'whoami']), /^error: You must be logged in to the server \(Unauthorized\)$/m);
    // Commands that start with discovery report what client-go's discovery says of a 401, as against kube-apiserver.
    assert.match(await bogus.fails(['get', 'ns']), /^error: You must be logged in to the server \(the server has asked for the client to provide credentials\)$/m);
    const r = await httpsRequest(env.server.url, 'GET', '/api/v1/namespaces', { ca, headers: { authorization: 'Bearer not-a-real-token' } });
    assert.equal(r.status, 401);
    assert.equal(r.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n');
  });

  it('authenticates a token from `kubectl create token` as its ServiceAccount', async () => {
    const token = (await env.k.ok(['create', 'token', 'default'])).trim();
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>);
    assert.equal(header.alg, 'RS256');
    assert.equal(payload.iss, 'https://kubernetes.default.svc.cluster.local');
    assert.deepEqual(payload.aud, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(Number(payload.exp) - Number(payload.iat), 3600);
    const who = await asToken('sa', token).ok(['auth', 'whoami']);
    assert.match(who, /Username\s+system:serviceaccount:default:default/);
    assert.match(who, /Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]/);
    assert.match(who, /credential-id\s+\[JTI=[0-9a-f-]{36}\]/);
    // A token for another audience is not good for the API server.
    const other = (await env.k.ok(['create', 'token', 'default', '--audience', 'vault'])).trim();
    assert.match(await asToken('vault', other).fails(['auth', 'whoami']), /You must be logged in to the server \(Unauthorized\)/);
    // The ServiceAccount goes, and so does its token.
    await env.k.ok(['create', 'serviceaccount', 'short-lived']);
    const gone = (await env.k.ok(['create', 'token', 'short-lived'])).trim();
    assert.match(await asToken('gone', gone).ok(['auth', 'whoami']), /system:serviceaccount:default:short-lived/);
    await env.k.ok(['delete', 'serviceaccount', 'short-lived']);
    assert.match(await asToken('gone', gone).fails(['auth', 'whoami']), /Unauthorized/);
  });

  it('reviews tokens with TokenReview (kubectl create -f)', async () => {
    const token = (await env.k.ok(['create', 'token', 'default', '--audience', 'vault'])).trim();
    // `create --raw`: kubectl's client-side schema check of `create -f` needs the CRD API, which Bonsai does not serve.
    const review = (t: string, audiences?: string[]) => env.k.ok(['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: t, ...(audiences ? { audiences } : {}) } }),
    }).then((out) => JSON.parse(out) as { status: Record<string, unknown> & { user?: Record<string, unknown> } });
    const ok = await review(token, ['vault']);
    assert.equal(ok.status.authenticated, true);
    assert.equal(ok.status.user?.username, 'system:serviceaccount:default:default');
    assert.deepEqual(ok.status.audiences, ['vault']);
    const wrongAudience = await review(token);
    assert.equal(wrongAudience.status.authenticated, undefined);
    assert.equal(wrongAudience.status.error, 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
    const bogus = await review('garbage');
    assert.deepEqual(bogus.status, { user: {}, error: 'invalid bearer token' });
    const alice = await review('alice-token');
    assert.deepEqual(alice.status.user, { username: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] });
    assert.deepEqual(alice.status.audiences, ['https://kubernetes.default.svc.cluster.local']);
    assert.match(await env.k.fails(['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'], { input: '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}' }), /Error from server \(BadRequest\): token is required for TokenReview in authentication/);
  });

  it('authenticates the users of --token-auth-file', async () => {
    const who = await asToken('alice', 'alice-token').ok(['auth', 'whoami']);
    assert.match(who, /Username\s+alice/);
    assert.match(who, /UID\s+1001/);
    assert.match(who, /Groups\s+\[dev ops system:authenticated\]/);
    assert.match(await asToken('bob', 'bob-token').ok(['auth', 'whoami']), /Username\s+bob/);
    // The record with an empty token is skipped; its user name is no token.
    assert.match(await asToken('ignored', 'ignored').fails(['get', 'ns']), /You must be logged in to the server/);
  });

  it('issues client certificates through CertificateSigningRequests that kubectl approves', async () => {
    const { csrPem, keyPem } = await makeCsr('jane', ['dev', 'qa']);
    await env.k.ok(['create', '-f', '-'], { input: csrManifest('jane', csrPem, 'kubernetes.io/kube-apiserver-client', '\n  expirationSeconds: 7200') });
    const pending = await env.k.ok(['get', 'csr']);
    assert.match(pending, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/m);
    assert.match(pending, /^jane\s+\d+s\s+kubernetes\.io\/kube-apiserver-client\s+bonsai-admin\s+120m\s+Pending$/m);
    const spec = JSON.parse(await env.k.ok(['get', 'csr', 'jane', '-o', 'json'])) as { spec: { username: string; groups: string[] } };
    assert.equal(spec.spec.username, 'bonsai-admin');
    assert.deepEqual(spec.spec.groups, ['system:masters', 'system:authenticated']);
    assert.match(await env.k.ok(['certificate', 'approve', 'jane']), /certificatesigningrequest\.certificates\.k8s\.io\/jane approved/);
    const issued = await eventually(async () => {
      const out = await env.k.ok(['get', 'csr', 'jane']);
      return /Approved,Issued/.test(out) && out;
    }, 15_000, 'an issued certificate');
    assert.match(issued, /^jane\s.*\s120m\s+Approved,Issued$/m);
    const csr = JSON.parse(await env.k.ok(['get', 'csr', 'jane', '-o', 'json'])) as { status: { certificate: string; conditions: Array<Record<string, string>> } };
    assert.equal(csr.status.conditions[0].type, 'Approved');
    assert.equal(csr.status.conditions[0].reason, 'KubectlApprove');
    assert.equal(csr.status.conditions[0].message, 'This CSR was approved by kubectl certificate approve.');
    const cert = Buffer.from(csr.status.certificate, 'base64').toString();
    const jane = new Kubectl(writeKubeconfigFor(join(scratch, 'jane.kubeconfig'), env.server.url, { ca, clientCert: cert, clientKey: keyPem }));
    const who = await jane.ok(['auth', 'whoami']);
    assert.match(who, /Username\s+jane/);
    assert.match(who, /Groups\s+\[dev qa system:authenticated\]/);

    // Denied requests get no certificate, and stay denied.
    const other = await makeCsr('mallory', []);
    await env.k.ok(['create', '-f', '-'], { input: csrManifest('mallory', other.csrPem) });
    await env.k.ok(['certificate', 'deny', 'mallory']);
    assert.match(await env.k.ok(['get', 'csr', 'mallory']), /^mallory\s.*\s<none>\s+Denied$/m);
    assert.match(await env.k.fails(['certificate', 'approve', 'mallory']), /certificate signing request "mallory" is already Denied/);
  });

  it('fails requests a signer refuses and rejects malformed ones', async () => {
    const node = await makeCsr('not-a-node', ['dev']);
    await env.k.ok(['create', '-f', '-'], { input: csrManifest('kubelet-ish', node.csrPem, 'kubernetes.io/kube-apiserver-client-kubelet') });
    await env.k.ok(['certificate', 'approve', 'kubelet-ish']);
    const failed = await eventually(async () => {
      const out = await env.k.ok(['get', 'csr', 'kubelet-ish', '-o', 'json']);
      return /SignerValidationFailure/.test(out) && JSON.parse(out) as { status: { conditions: Array<Record<string, string>>; certificate?: string } };
    }, 15_000, 'a Failed condition');
    const cond = failed.status.conditions.find((c) => c.type === 'Failed');
    assert.equal(cond?.message, 'subject organization is not system:nodes');
    assert.equal(failed.status.certificate, undefined);
    assert.match(await env.k.ok(['get', 'csr', 'kubelet-ish']), /Approved,Failed$/m);

    const bad = await env.k.fails(['create', '-f', '-'], { input: csrManifest('garbage', 'not a pem', 'example.com/x').replace('usages: [client auth]', 'usages: [client auth, client auth, flying]') });
    assert.match(bad, /The CertificateSigningRequest "garbage" is invalid/);
    assert.match(bad, /spec\.request: Invalid value: \[\]byte\{0x6e, 0x6f, 0x74, .*\}: PEM block type must be CERTIFICATE REQUEST/);
    assert.match(bad, /spec\.usages\[1\]: Duplicate value: "client auth"/);
    assert.match(bad, /spec\.usages\[2\]: Unsupported value: "flying": supported values: "any", "cert sign"/);
    const legacy = await makeCsr('x', []);
    assert.match(await env.k.fails(['create', '-f', '-'], { input: csrManifest('legacy', legacy.csrPem, 'kubernetes.io/legacy-unknown') }), /spec\.signerName: Invalid value: "kubernetes\.io\/legacy-unknown": the legacy signerName is not allowed via this API version/);
  });
});

describe('anonymous requests', () => {
  const env = useKubectlServer({ args: [...noAddons, '--tls', '--anonymous-auth=false', '--nodes', '1'] });

  it('with --anonymous-auth=false, a request without credentials is a 401 and the kubeconfig still works', async () => {
    const ca = readFileSync(join(env.server.dataDir, 'pki', 'ca.crt'), 'utf8');
    const r = await httpsRequest(env.server.url, 'GET', '/api/v1/namespaces', { ca });
    assert.equal(r.status, 401);
    assert.equal(r.body.reason, 'Unauthorized');
    assert.equal((await httpsRequest(env.server.url, 'GET', '/healthz', { ca })).status, 401);
    assert.match(await env.k.ok(['auth', 'whoami']), /bonsai-admin/);
    // A certificate the CA signed for serving, not for client auth, is an invalid credential, not an anonymous one.
    const pki = (f: string) => readFileSync(join(env.server.dataDir, 'pki', f), 'utf8');
    const wrong = await httpsRequest(env.server.url, 'GET', '/api', { ca, cert: pki('apiserver.crt'), key: pki('apiserver.key') });
    assert.equal(wrong.status, 401, 'a server certificate is not a client certificate');
    // Plain HTTP and garbage on the TLS port end that connection only.
    await assert.rejects(fetch(env.server.url.replace('https:', 'http:') + '/api'));
    const { connect } = await import('node:net');
    await new Promise<void>((resolve) => {
      const s = connect(Number(new URL(env.server.url).port), '127.0.0.1', () => s.end(Buffer.alloc(4096, 0x16)));
      s.on('error', () => resolve());
      s.on('close', () => resolve());
    });
    assert.match(await env.k.ok(['get', 'ns', 'default']), /Active/);
  });

  it('`bonsai node stop|start` authenticates with the kubeconfig\'s client certificate', async () => {
    const stop = await runBonsai(['node', 'stop', 'bonsai-worker-1', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(stop.stdout, 'node/bonsai-worker-1 stopped\n', stop.stderr);
    assert.match(await env.k.ok(['get', 'node', 'bonsai-worker-1', '-o', 'jsonpath={.metadata.annotations}']), /"bonsai\.dev\/stopped":"true"/);
    const start = await runBonsai(['node', 'start', 'bonsai-worker-1', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(start.stdout, 'node/bonsai-worker-1 started\n', start.stderr);
    const anonymous = await runBonsai(['node', 'stop', 'bonsai-worker-1', '--server', env.server.url]);
    assert.equal(anonymous.code, 1);
  });
});
