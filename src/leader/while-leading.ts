// Runs a component only while this process holds a Lease: started on leading, stopped on losing it or on stop().
import type { Client } from '../client/client.js';
import { LeaderElector, type LeaderElectionConfig } from './elector.js';

export interface Stoppable {
  stop(): void;
}

export type LeaderGateConfig = Omit<LeaderElectionConfig, 'onStartedLeading' | 'onStoppedLeading'>;

/**
 * An elector whose leadership runs `run()` (what it returns is stopped when leadership ends, before the Lease can
 * pass to anybody else). Call `start()` on it to campaign (a free or exclusive Lease is led before it returns).
 */
export function whileLeading<T extends Stoppable>(client: Client, config: LeaderGateConfig, run: () => T, onRunning?: (running: T | undefined) => void): LeaderElector {
  let running: T | undefined;
  return new LeaderElector(client, {
    ...config,
    onStartedLeading() {
      running = run();
      onRunning?.(running);
    },
    onStoppedLeading() {
      const r = running;
      running = undefined;
      onRunning?.(undefined);
      r?.stop();
    },
  });
}
