// Runs a container's command line as the kubelet does (through the simulated runtime's shell), for a pod named by
// HOSTNAME whose container has the other variables as its env.
import { clientFor } from '../../src/client/client.js';
import { newRuntime } from '../../src/exec/index.js';
import type { ScriptResult } from '../../src/kubelet/command-runner.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { Harness } from './kubelet-harness.js';

export async function interpret(command: string[] | undefined, args: string[] | undefined, at: { env: Record<string, string>; startMs: number }): Promise<ScriptResult | undefined> {
  const h = await Harness.start();
  try {
    const env = Object.entries(at.env).filter(([k]) => k !== 'HOSTNAME').map(([name, value]) => ({ name, value }));
    const container = { name: 'c', image: 'busybox', command, args, env };
    const pod: Pod = { metadata: { name: at.env.HOSTNAME ?? 'p', namespace: 'default', uid: 'u' }, spec: { nodeName: 'node-1', containers: [container] } };
    const argv = command?.length ? [...command, ...(args ?? [])] : [...(args ?? [])];
    return await newRuntime().runCommand({ client: clientFor(h.reg), pod, container, argv, startMs: at.startMs });
  } finally {
    h.close();
  }
}
