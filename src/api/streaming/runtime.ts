// Where the protocol layer finds the container runtime: the simulated one in src/exec (loaded on first use), or one
// a test installs for a registry.
import type { ContainerRuntime } from '../../exec/types.js';
import type { Registry } from '../../registry/registry.js';

const installed = new WeakMap<object, ContainerRuntime>();
let simulated: Promise<ContainerRuntime> | undefined;

/** Serves this registry's exec, attach and port-forward with `runtime` (tests use a stand-in). */
export function installContainerRuntime(reg: Registry, runtime: ContainerRuntime): void {
  installed.set(reg, runtime);
}

export function runtimeFor(reg: Registry): Promise<ContainerRuntime> {
  // Request views inherit from the root registry: walk up (one or two levels).
  let r: object | null = reg;
  for (let depth = 0; r && depth < 4; depth++, r = Object.getPrototypeOf(r) as object | null) {
    const rt = installed.get(r);
    if (rt) return Promise.resolve(rt);
  }
  simulated ??= loadSimulated().catch((e: unknown) => {
    simulated = undefined;
    throw e;
  });
  return simulated;
}

export async function loadSimulated(): Promise<ContainerRuntime> {
  const { loadRuntime } = await import('../../exec/index.js');
  return loadRuntime();
}
