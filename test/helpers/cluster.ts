// One `bonsai serve` per test suite, with a kubectl bound to it: started before the suite, stopped after.
import { after, before } from 'node:test';
import { Kubectl } from './kubectl.js';
import { startServer, type ServerHandle } from './server.js';

export interface KubectlEnv {
  server: ServerHandle;
  k: Kubectl;
}

/** Call at suite level; the fields are set once the suite's `before` has run. */
export function useKubectlServer(opts: { args?: string[] } = {}): KubectlEnv {
  const env = {} as KubectlEnv;
  before(async () => {
    env.server = await startServer(opts);
    env.k = new Kubectl(env.server.kubeconfig);
  });
  after(async () => {
    await env.server?.stop();
    env.server?.cleanup();
  });
  return env;
}

/**
 * `bonsai serve` arguments for a suite whose subject is not an add-on: no add-ons. Installing their CRDs costs
 * every server seconds of CPU in its first half minute and changes discovery under kubectl meanwhile; the
 * default cluster with its add-ons keeps its own suites (default-cluster, kubectl-basics, kubernetes-basics,
 * lessons, addons); a suite about one add-on starts only that one (`--addons lws`).
 */
export const noAddons: readonly string[] = ['--addons', ''];
