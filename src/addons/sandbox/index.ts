// The Agent Sandbox add-on (kubernetes-sigs/agent-sandbox): Sandbox, SandboxTemplate, SandboxClaim and SandboxWarmPool.
import type { Addon } from '../types.js';

const dir = 'src/addons/sandbox/crds';

export const sandboxAddon: Addon = {
  name: 'sandbox',
  crds: [
    `${dir}/agents.x-k8s.io_sandboxes.yaml`,
    `${dir}/extensions.agents.x-k8s.io_sandboxtemplates.yaml`,
    `${dir}/extensions.agents.x-k8s.io_sandboxclaims.yaml`,
    `${dir}/extensions.agents.x-k8s.io_sandboxwarmpools.yaml`,
  ],
  start() {
    return { stop() {} };
  },
};
