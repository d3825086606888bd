// The Agent Sandbox add-on (kubernetes-sigs/agent-sandbox): Sandbox, SandboxTemplate, SandboxClaim and SandboxWarmPool.
import type { Addon } from '../types.js';
import { SandboxController } from './sandbox-controller.js';

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
    return { stop: () => sandboxes.stop() };
  },
};
