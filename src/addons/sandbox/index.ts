// The Agent Sandbox add-on (kubernetes-sigs/agent-sandbox): Sandbox, SandboxTemplate, SandboxClaim and SandboxWarmPool.
import type { Addon } from '../types.js';
import { SandboxController } from './sandbox-controller.js';
import { ClaimController } from './claim-controller.js';
import { WarmPoolController } from './warm-pool-controller.js';

const dir = 'src/addons/sandbox/crds';

export const sandboxAddon: Addon = {
  name: 'sandbox',
  crds: [
    `${dir}/agents.x-k8s.io_sandboxes.yaml`,
    `${dir}/extensions.agents.x-k8s.io_sandboxtemplates.yaml`,
    `${dir}/extensions.agents.x-k8s.io_sandboxclaims.yaml`,
    `${dir}/extensions.agents.x-k8s.io_sandboxwarmpools.yaml`,
  ],
  start({ client, clock, log }) {
    const sandboxes = new SandboxController(client, clock, log.child({ controller: 'sandbox' }));
    const claims = new ClaimController(client, clock, log.child({ controller: 'sandboxclaim' }));
    const pools = new WarmPoolController(client, clock, log.child({ controller: 'sandboxwarmpool' }));
    return { stop: () => { pools.stop(); claims.stop(); sandboxes.stop(); } };
  },
};
