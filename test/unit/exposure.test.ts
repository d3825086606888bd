// Which start-up options expose the cluster (src/auth/exposure.ts): a non-loopback address needs TLS and requests
// that must authenticate; an authorization mode list that lets anonymous requests do anything counts as none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exposureProblem } from '../../src/auth/exposure.js';

const open = (authorizationMode: string | undefined, anonymousAuth = true, tls = true) => exposureProblem({ host: '0.0.0.0', tls, anonymousAuth, authorizationMode });

test('a mode list containing AlwaysAllow is open to anonymous requests wherever AlwaysAllow stands', () => {
  for (const modes of ['AlwaysAllow', 'RBAC,AlwaysAllow', 'AlwaysAllow,RBAC', 'AlwaysDeny,AlwaysAllow', 'RBAC, AlwaysAllow', undefined]) {
    const p = open(modes);
    assert.ok(p, String(modes));
    assert.match(p, /^refusing to serve on non-loopback address 0\.0\.0\.0 without .*\(pass --insecure to serve anyway\)$/);
  }
  assert.match(open('RBAC,AlwaysAllow') ?? '', /without an authorization mode list that denies by default \(--authorization-mode RBAC,AlwaysAllow lets anonymous requests do anything: drop AlwaysAllow, or pass --anonymous-auth=false\)/);
  assert.match(open('RBAC,AlwaysAllow', true, false) ?? '', /without --tls and an authorization mode list/);
});

test('RBAC alone, or no anonymous requests, with TLS may serve anywhere; loopback always may', () => {
  assert.equal(open('RBAC'), undefined);
  assert.equal(open('AlwaysDeny,RBAC'), undefined);
  assert.equal(open('RBAC,AlwaysAllow', false), undefined, 'every request authenticates');
  assert.equal(open('AlwaysAllow', false), undefined);
  assert.match(open('RBAC', true, false) ?? '', /without --tls;/);
  for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) {
    assert.equal(exposureProblem({ host, tls: false, anonymousAuth: true, authorizationMode: 'RBAC,AlwaysAllow' }), undefined, host);
  }
});
