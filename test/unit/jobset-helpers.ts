// An in-process Bonsai (in memory, the default simulated cluster) with the JobSet CRD installed through the client and
// the JobSet controller running: what the add-on framework does at start, without it.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { jobSetController, jobSetCrd } from '../../src/addons/jobset/index.js';
import { Manager } from '../../src/controllers/runtime/index.js';
import { waitDeadline } from '../helpers/wait.js';

export interface JobSetEnv {
  b: Bonsai;
  client: Client;
  controller: Manager;
  close(): Promise<void>;
}

export async function startJobSetEnv(clockSpeed = 10): Promise<JobSetEnv> {
  const b = await startBonsai({ port: 0, data: ':memory:', logLevel: process.env.JOBSET_LOG ?? 'silent', clockSpeed });
  const client = clientFor(b.registry);
  await client.resource('apiextensions.k8s.io/v1/customresourcedefinitions')?.load?.(); // ajv and CEL, as the HTTP handler loads them
  await client.create('apiextensions.k8s.io/v1/customresourcedefinitions', '', parse(readFileSync(jobSetCrd, 'utf8')) as KObject);
  await until(() => !!client.resource('jobset.x-k8s.io/v1alpha2/jobsets'), 10_000, 'the JobSet CRD established');
  const controller = new Manager({ client, clock: b.clock, log: b.log }).add(jobSetController).start();
  return { b, client, controller, async close() { controller.stop(); await b.close(); } };
}

/** Polls `f` every 20 ms (real time) until it returns a truthy value; fails with `what` after `ms`. */
export async function until<T>(f: () => T | undefined | false, ms: number, what: string): Promise<T> {
  const end = Date.now() + waitDeadline(ms);
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
