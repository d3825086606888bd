// A small stand-in for the simulated container runtime (src/exec), for the streaming protocol tests: echo, exit
// codes, cat of stdin, a prompt with a tty, and a port whose HTTP answer names the pod and port.
import type { ContainerRuntime, Outcome, Session } from '../../src/exec/types.js';
import type { Bonsai } from '../../src/main.js';
import { clientFor } from '../../src/client/client.js';

async function readAll(input: AsyncIterable<Buffer> | undefined, limit = 1 << 20): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const c of input ?? []) {
    size += c.length;
    if (size > limit) break;
    parts.push(c);
  }
  return Buffer.concat(parts);
}

async function run(s: Session, argv: string[]): Promise<Outcome> {
  const [cmd, ...args] = argv;
  if (cmd === 'sh' && args[0] === '-c') return run(s, (args[1] ?? '').trim().split(/\s+/));
  switch (cmd) {
    case 'echo':
      s.stdout.write(`${args.join(' ')}\n`);
      return { exitCode: 0 };
    case 'exit':
      return { exitCode: Number(args[0] ?? 0) || 0 };
    case 'cat':
      s.stdout.write(await readAll(s.stdin));
      return { exitCode: 0 };
    case 'hostname':
      s.stdout.write(`${s.pod}\n`);
      return { exitCode: 0 };
    case 'big':
      s.stdout.write(Buffer.alloc(Number(args[0] ?? 0), 0x61));
      return { exitCode: 0 };
    case 'fail':
      s.stderr.write('oops\n');
      return { exitCode: 2 };
    default:
      s.stderr.write(`sh: ${cmd}: not found\n`);
      return { exitCode: 127 };
  }
}

export const standInRuntime: ContainerRuntime = {
  exec: (s) => run(s, s.command),
  async attach(s) {
    s.stdout.write(`attached to ${s.pod}/${s.container}\n`);
    await readAll(s.stdin);
    return { exitCode: 0 };
  },
  async portForward(c) {
    let head = '';
    for await (const chunk of c.input) {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n') || head.length > 16384) break;
    }
    const body = `pod ${c.pod} port ${c.port}\n`;
    c.output.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  },
};

/** Creates pod `web` (one nginx container) in `default` and waits until its container runs. */
export async function runningWebPod(b: Bonsai): Promise<void> {
  const c = clientFor(b.registry);
  c.create('v1/pods', 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } as never);
  for (let i = 0; i < 400; i++) {
    const p = c.get('v1/pods', 'default', 'web') as unknown as { status?: { containerStatuses?: Array<{ state?: { running?: unknown } }> } } | undefined;
    if (p?.status?.containerStatuses?.[0]?.state?.running) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('pod web did not start');
}
