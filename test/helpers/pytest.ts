// Runs pytest with Debian's python3 (or $PYTHON) from the project root, as the Python e2e tests do.
import { spawn, spawnSync } from 'node:child_process';
import { projectRoot } from './server.js';

export const python = process.env.PYTHON ?? '/usr/bin/python3';

/** false when python can import `modules`, else why not (a skip reason naming the packages to install). */
export function pythonSkip(modules: string, packages: string): false | string {
  const probe = spawnSync(python, ['-c', `import ${modules}`], { encoding: 'utf8' });
  return probe.status === 0 ? false : `${python} cannot import ${modules} (install ${packages}; .ci/run does): ${(probe.stderr ?? String(probe.error)).trim().split('\n').pop()}`;
}

/** `python -m pytest -q` on `target` with `env` added; the exit code and everything it printed. */
export async function runPytest(target: string, env: Record<string, string>, killAfterMs: number): Promise<{ code: number | null; out: string }> {
  const p = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', target], {
    cwd: projectRoot,
    env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // A bound for a wedged run only: the tests' own waits end as soon as their conditions hold.
  const timer = setTimeout(() => p.kill('SIGKILL'), killAfterMs);
  const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
  clearTimeout(timer);
  return { code, out };
}
