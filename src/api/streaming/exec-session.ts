// One exec or attach, whatever the protocol: the decoded streams become the runtime's Session, and the outcome
// (exit code, or an error before the command ran) comes back for the error channel.
import type { Client } from '../../client/client.js';
import type { ContainerRuntime, Outcome, Session, Sink } from '../../exec/types.js';
import { ResizeReader } from './exec-status.js';

export interface ExecRequest {
  kind: 'exec' | 'attach';
  client: Client;
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface ExecEndpoints {
  stdin?: AsyncIterable<Buffer>;
  stdout?: Sink;
  stderr?: Sink;
  resize?: AsyncIterable<Buffer>;
  signal: AbortSignal;
}

const nowhere: Sink = { write: () => undefined };

export async function runExec(runtime: ContainerRuntime, req: ExecRequest, ep: ExecEndpoints): Promise<Outcome> {
  const listeners: Array<(size: { width: number; height: number }) => void> = [];
  let last: { width: number; height: number } | undefined;
  if (ep.resize) {
    const sizes = ep.resize;
    void (async () => {
      const reader = new ResizeReader();
      for await (const chunk of sizes) {
        for (const size of reader.push(chunk)) {
          last = size;
          for (const l of listeners) l(size);
        }
      }
    })().catch(() => undefined);
  }
  const stdout = ep.stdout ?? nowhere;
  const session: Session = {
    client: req.client, namespace: req.namespace, pod: req.pod, container: req.container, command: req.command, tty: req.tty,
    stdin: ep.stdin, stdout, stderr: req.tty ? stdout : ep.stderr ?? nowhere,
    onResize(listener) {
      if (listeners.length >= 16) return;
      listeners.push(listener);
      if (last) listener(last);
    },
    signal: ep.signal,
  };
  try {
    return await (req.kind === 'exec' ? runtime.exec(session) : runtime.attach(session));
  } catch (e) {
    return { exitCode: 1, error: e instanceof Error ? e.message : String(e) };
  }
}
