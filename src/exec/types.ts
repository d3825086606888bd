// The contract between the streaming protocols (exec, attach and port-forward over WebSocket or SPDY, in
// src/api/streaming/) and the simulated container runtime (the shell, its filesystem and the HTTP responder, in
// src/exec/): the protocol layer decodes frames into these streams and calls the runtime; the runtime never sees
// a socket.
import type { Client } from '../client/client.js';
import type { CommandRequest, ScriptResult } from '../kubelet/command-runner.js';

/** Bytes the runtime writes to the client (stdout or stderr). */
export interface Sink {
  write(data: Buffer | string): void;
}

/** What the protocol layer hands the runtime for one exec or attach session. */
export interface Session {
  /** The client acting for the user who asked (reads the pod, its ConfigMaps, Secrets, Services). */
  client: Client;
  namespace: string;
  pod: string;
  /** The container (defaulted by the protocol layer as kubectl's `kubectl.kubernetes.io/default-container` / first). */
  container: string;
  /** exec: the command as sent (`command=` query parameters); attach: empty. */
  command: string[];
  tty: boolean;
  /** Input from the client, in chunks, ending when the client closes stdin; undefined without `stdin=true`. */
  stdin?: AsyncIterable<Buffer>;
  stdout: Sink;
  /** Without a TTY; with one, stderr goes to stdout as a terminal merges them. */
  stderr: Sink;
  /** Terminal size changes (the resize channel), the first one the initial size. */
  onResize(listener: (size: { width: number; height: number }) => void): void;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** How a session ended: the exit code goes back to kubectl in the error channel's Status. */
export interface Outcome {
  exitCode: number;
  /** A failure before the command ran (no such container, container not running): a Status message. */
  error?: string;
}

export interface ContainerRuntime {
  exec(session: Session): Promise<Outcome>;
  attach(session: Session): Promise<Outcome>;
  /**
   * A port-forward connection to `port` of the pod: the runtime answers HTTP/1.1 requests read from `input` with
   * its simulated responder, writing to `output`; resolves when the connection is done.
   */
  /** A container's own command, run for the kubelet (see container-command.ts); only the simulated runtime has it. */
  runCommand?(req: CommandRequest): Promise<ScriptResult | undefined>;
  portForward(conn: { client: Client; namespace: string; pod: string; port: number; input: AsyncIterable<Buffer>; output: Sink; signal: AbortSignal }): Promise<void>;
}
