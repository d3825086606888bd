// A container's shell as every session gets it (exec, attach, and the container's own command): its commands, its
// filesystem, its environment and working directory, over the budget the session runs with.
import type { ContainerInfo } from './container-info.js';
import { containerEnv } from './container-env.js';
import { containerFs, type WritableDirs } from './container-fs.js';
import { sessionShell, type CommandFn, type Shell, type ShellHost } from './shell/interp.js';
import type { SessionBudget } from './shell/budget.js';
import { coreCommands } from './commands/core.js';
import { fileCommands } from './commands/files.js';
import { textCommands } from './commands/text.js';
import { netCommands } from './commands/net.js';
import { gpuCommands } from './commands/gpu.js';
import { systemCommands } from './commands/system.js';

export interface ContainerShell {
  shell: Shell;
  commands: Map<string, CommandFn>;
}

/**
 * The shell of `info`'s container. `signal` is read at every step (an interactive session starts a new one for each
 * command); `overrides` (given the container's commands) replace or add some.
 */
export function containerShell(info: ContainerInfo, writable: WritableDirs, budget: SessionBudget, signal: () => AbortSignal, overrides: (commands: ReadonlyMap<string, CommandFn>) => Iterable<[string, CommandFn]> = () => []): ContainerShell {
  const { client, pod, container } = info;
  const commands = new Map<string, CommandFn>([...coreCommands(info), ...fileCommands(), ...textCommands(), ...netCommands(info), ...gpuCommands(info), ...systemCommands(info)]);
  for (const [name, fn] of [...overrides(commands)]) commands.set(name, fn);
  const fs = containerFs(client, pod, container, writable, commands.keys(), info.nowMs());
  const host: ShellHost = { fs, nowMs: info.nowMs, commands, tty: info.tty, get signal() { return signal(); } };
  const vars = new Map<string, string>(containerEnv(client, pod, container));
  let cwd = container.workingDir && container.workingDir.startsWith('/') ? container.workingDir : '/';
  if (fs.lookup(cwd)?.type !== 'dir') fs.mkdirp(cwd);
  cwd = cwd.replace(/\/+$/, '') || '/';
  vars.set('PWD', cwd);
  return { shell: sessionShell(host, budget, vars, cwd), commands };
}
