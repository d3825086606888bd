// `bonsai serve --output json`: the one line a program in another language reads to find the server. Printed once
// startBonsai has resolved (API served, controllers, scheduler and simulated nodes started), as a single JSON object.
import type { Bonsai } from '../main.js';

export interface ReadyLine {
  /** The API server's URL. */
  url: string;
  port: number;
  /** Absolute path of the kubeconfig written for this server (context `bonsai`). */
  kubeconfig: string;
  /** The admin's bearer token (over plain HTTP the kubeconfig uses it too). */
  token: string;
  /** PEM of the cluster CA, when serving TLS. */
  ca?: string;
  /** The server's process id: send it SIGTERM (or SIGINT) to stop it. */
  pid: number;
  /** The data folder, or ':memory:'. */
  data: string;
  /** The leader election identity (`<hostname>_<uuid>`) and the kube-system Leases it held when the line was written. */
  identity: string;
  leading: string[];
}

export function readyLine(b: Bonsai, data: string): string {
  const kubeconfig = b.kubeconfigPath;
  const line: ReadyLine = { url: b.url, port: b.port, kubeconfig, token: b.credentials.token, pid: process.pid, data, identity: b.election.identity, leading: b.election.leading() };
  if (b.credentials.ca) line.ca = b.credentials.ca;
  return JSON.stringify(line);
}
