// What the commands of a session know about the container they run in.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import type { Network } from './network.js';

export interface ContainerInfo {
  client: Client;
  pod: Pod;
  container: Container;
  hostname: string;
  /** busybox-like images (busybox, alpine) print as busybox does; others as Debian's tools. */
  busybox: boolean;
  network: Network;
  /** The container's main process, for ps. */
  mainProcess: string;
  tty: boolean;
  nowMs(): number;
  /** Waits `ms` of cluster time; rejects when the session ends. */
  sleep(ms: number): Promise<void>;
}

/** Whether an image is busybox-like (its shell prompt is `/ # `). */
export function isBusyboxLike(image: string): boolean {
  const repo = image.replace(/@.*$/, '').replace(/:[^/:]*$/, '').split('/').pop() ?? '';
  return ['busybox', 'alpine', 'curl', 'netshoot', 'dnsutils', 'nicolaka'].some((n) => repo === n || repo.startsWith(`${n}-`));
}

/** What an image runs when the pod gives no command (for ps). */
export function defaultProcess(c: Container): string {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  if (argv.length) return argv.join(' ');
  const repo = (c.image ?? '').replace(/@.*$/, '').replace(/:[^/:]*$/, '').split('/').pop() ?? '';
  if (repo === 'nginx') return 'nginx: master process nginx -g daemon off;';
  if (repo === 'redis') return 'redis-server *:6379';
  if (repo === 'kubernetes-bootcamp') return 'node server.js';
  if (repo === 'pause') return '/pause';
  return 'sh';
}
