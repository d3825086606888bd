// The manager (controller-runtime's): starts its controllers, in the order they were added, over one set of shared
// informers, and stops them. It can start again after a stop (fresh caches and queues), so a leader election can run
// it while leading: `electManager`.
import type { Client } from '../../client/client.js';
import type { LeaderElector } from '../../leader/elector.js';
import { whileLeading, type LeaderGateConfig } from '../../leader/while-leading.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { RunningController, type ControllerDef } from './controller.js';
import { SharedInformers } from './informers.js';

export interface Stoppable {
  stop(): void;
}

export interface ManagerOptions {
  /** Reads the shared informers and, unless `clientFor` says otherwise, acts for every controller. */
  client: Client;
  clock: Clock;
  log: Logger;
  /** The client a controller acts as (its identity). */
  clientFor?: (name: string) => Client;
  /** A controller's logger (default: `log` with `{ controller: name }`). */
  logFor?: (name: string) => Logger;
}

/** Something the manager starts beside controllers (controller-runtime's Runnable): no built-in one is left. */
export interface Runnable {
  name: string;
  start(): Stoppable;
}

type Entry = { kind: 'controller'; def: ControllerDef } | { kind: 'runnable'; runnable: Runnable };

export class Manager {
  private readonly entries: Entry[] = [];
  private running: Array<{ name: string; handle: Stoppable }> | undefined;
  private shared: SharedInformers | undefined;

  constructor(private readonly opts: ManagerOptions) {}

  /** Adds a controller (started with the others, or at once if the manager runs). */
  add(def: ControllerDef): this {
    return this.push({ kind: 'controller', def });
  }

  /** Adds something else to start and stop with the controllers. */
  addRunnable(runnable: Runnable): this {
    return this.push({ kind: 'runnable', runnable });
  }

  /** Starts every controller and runnable, in the order added (a second call does nothing). */
  start(): this {
    if (this.running) return this;
    this.shared = new SharedInformers(this.opts.client);
    this.running = [];
    for (const e of this.entries) this.startEntry(e);
    return this;
  }

  /** Stops them in the reverse order, then the informers. */
  stop(): void {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    for (const r of running.reverse()) r.handle.stop();
    this.shared?.stop();
    this.shared = undefined;
  }

  isRunning(): boolean {
    return this.running !== undefined;
  }

  /** The shared informers while running. */
  get informers(): SharedInformers | undefined {
    return this.shared;
  }

  /** A running controller by name (tests, status). */
  controller(name: string): RunningController | undefined {
    const r = this.running?.find((x) => x.name === name)?.handle;
    return r instanceof RunningController ? r : undefined;
  }

  private push(e: Entry): this {
    this.entries.push(e);
    if (this.running) this.startEntry(e);
    return this;
  }

  private startEntry(e: Entry): void {
    const { client, clock, log, clientFor, logFor } = this.opts;
    const name = e.kind === 'controller' ? e.def.name : e.runnable.name;
    const as = (e.kind === 'controller' && e.def.identity) || name;
    const handle = e.kind === 'controller'
      ? new RunningController(e.def, clientFor?.(as) ?? client, clock, logFor?.(as) ?? log.child({ controller: as }), this.shared!)
      : e.runnable.start();
    this.running!.push({ name, handle });
  }
}

/** An elector that runs `manager` while this process holds the Lease (call `start()` on it to campaign). */
export function electManager(client: Client, config: LeaderGateConfig, manager: Manager): LeaderElector {
  return whileLeading(client, config, () => manager.start());
}
