// The Agent Sandbox add-on (kubernetes-sigs/agent-sandbox): Sandbox, SandboxTemplate, SandboxClaim and SandboxWarmPool.
import type { Addon } from '../types.js';
import { Manager } from '../../controllers/runtime/index.js';
import { sandboxController } from './sandbox-controller.js';
import { claimController } from './claim-controller.js';
import { warmPoolController } from './warm-pool-controller.js';

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
    return new Manager({ client, clock, log }).add(sandboxController).add(claimController).add(warmPoolController).start();
  },
};
