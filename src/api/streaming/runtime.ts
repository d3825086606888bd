// Where the protocol layer finds a server's container runtime: its own simulated one (src/exec, loaded on first
// use; it keeps the server's emptyDir contents and Service round-robin positions), or one a test installs.
import type { ContainerRuntime } from '../../exec/types.js';
import type { BudgetLimits } from '../../exec/shell/budget.js';
import type { Registry } from '../../registry/registry.js';
import { ServerSlot } from '../../util/server-slot.js';
import { setCommandRunner } from '../../kubelet/command-runner.js';

interface Held {
  installed?: ContainerRuntime;
  simulated?: Promise<ContainerRuntime>;
  /** The limits of the simulated runtime's exec sessions (`--exec-cpu-budget`, `--exec-memory-budget`). */
  execBudget?: Partial<BudgetLimits>;
}
const runtimes = new ServerSlot<Held>('container runtime', () => ({}));

/** Sets the limits of the server's exec and attach sessions (at start-up, before the runtime is made). */
export function setExecBudget(reg: Registry, limits: Partial<BudgetLimits>): void {
  reg.state(runtimes).execBudget = limits;
}

/** Serves this registry's server's exec, attach and port-forward with `runtime` (tests use a stand-in). */
export function installContainerRuntime(reg: Registry, runtime: ContainerRuntime): void {
  reg.state(runtimes).installed = runtime;
}

export function runtimeFor(reg: Registry): Promise<ContainerRuntime> {
  const held = reg.state(runtimes);
  return held.installed ? Promise.resolve(held.installed) : simulatedRuntimeFor(reg);
}

/** The server's simulated runtime (made on first use; the service proxy answers through it). */
export function simulatedRuntimeFor(reg: Registry): Promise<ContainerRuntime> {
  const held = reg.state(runtimes);
  held.simulated ??= loadSimulated().then((m) => m.newRuntime(held.execBudget)).catch((e: unknown) => {
    held.simulated = undefined;
    throw e;
  });
  return held.simulated;
}

/** Loads the simulated runtime's code (start-up preloads it, see preloadStreaming). */
export function loadSimulated(): Promise<typeof import('../../exec/index.js')> {
  return import('../../exec/index.js');
}

/** The server's kubelets run containers' own commands in its simulated runtime's shell (the one exec runs). */
export function installCommandRunner(reg: Registry): void {
  setCommandRunner(reg, async (req) => (await simulatedRuntimeFor(reg)).runCommand?.(req));
}
