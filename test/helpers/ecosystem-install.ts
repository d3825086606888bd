// Shared steps of the real-install tests (issue 23): the ecosystem manifests, what `kubectl apply` printed for each
// object, and the check that a second apply leaves everything `unchanged` but for the objects upstream's
// kube-apiserver (with the same kubectl) reports otherwise too, each with its reason.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './server.js';

export const ecosystemFixture = (project: string, file: string) => join(projectRoot, 'test', 'fixtures', 'ecosystem', project, file);

/** How many objects a multi-document manifest holds (documents with a top-level `kind:`). */
export function documentCount(path: string): number {
  return readFileSync(path, 'utf8').split(/^---\s*$/m).filter((d) => /^kind:/m.test(d)).length;
}

/** `kind.group/name verb` lines of an apply, as a map from object to verb. */
export function applyVerbs(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of out.trim().split('\n')) {
    const [obj, verb] = line.split(' ');
    m.set(obj, verb);
  }
  return m;
}

/** The first apply of `path` created every object it holds. */
export function assertAllCreated(path: string, out: string): Map<string, string> {
  const first = applyVerbs(out);
  assert.equal(first.size, documentCount(path), [...first.keys()].join('\n'));
  for (const [obj, verb] of first) assert.equal(verb, 'created', obj);
  return first;
}

/**
 * A second apply printed `unchanged` for every object but those in `upstreamToo` (object to the verb kube-apiserver's
 * kubectl prints as well, and why), in the first apply's order.
 */
export function assertReapplied(first: Map<string, string>, out: string, upstreamToo: Record<string, { verb: string; why: string }>): void {
  const second = applyVerbs(out);
  assert.deepEqual([...second.keys()], [...first.keys()]);
  const drifted = [...second].filter(([obj, verb]) => verb !== (upstreamToo[obj]?.verb ?? 'unchanged'));
  assert.deepEqual(drifted, []);
}

/**
 * Why re-applying a webhook configuration prints `configured` against kube-apiserver as well: it defaults each
 * rule's `scope` to "*", and `rules` is an atomic list, so kubectl's three-way patch carries the manifest's rules
 * (without scope) every time.
 */
export const ruleScopeDefault = 'kube-apiserver defaults rules[].scope to "*" and rules is atomic: kubectl patches the rules back every time';

/** The simulated webhook's `Warning:` line for `webhook`, as kubectl prints it. */
export const simulatedWarning = (webhook: string) => new RegExp(`^Warning: webhook "${webhook.replace(/\./g, '\\.')}" is served by simulated pods`, 'm');

/** cert-manager's "verifying the installation" resources (a self-signed Issuer and a Certificate). */
export const certManagerTestResources = `apiVersion: v1
kind: Namespace
metadata:
  name: cert-manager-test
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: test-selfsigned
  namespace: cert-manager-test
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: selfsigned-cert
  namespace: cert-manager-test
spec:
  dnsNames:
    - example.com
  secretName: selfsigned-cert-tls
  issuerRef:
    name: test-selfsigned
`;
