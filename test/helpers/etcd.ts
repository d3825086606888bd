// One etcd for a test file, and the stores its tests open on it (the process itself: etcd-process.ts).
import { after, before } from 'node:test';
import { EtcdStore, parseEtcdUrl, type EtcdStoreOptions } from '../../src/storage/etcd/etcd-store.js';
import { startEtcd, type EtcdHandle } from './etcd-process.js';

export { etcdBinary, etcdTestMode, sqliteOnly, startEtcd, type EtcdHandle } from './etcd-process.js';

/**
 * One etcd for a test file (started before its tests, stopped after them) and the stores the tests open on it,
 * closed before etcd stops. Call at the top level of the file.
 */
export function useEtcd(): { open(opts: Omit<EtcdStoreOptions, 'endpoints' | 'log'>): Promise<EtcdStore> } {
  let etcd: EtcdHandle | undefined;
  const stores: EtcdStore[] = [];
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const s of stores) s.close();
    await etcd?.stop();
  });
  return {
    async open(opts) {
      const s = await EtcdStore.open({ endpoints: parseEtcdUrl(etcd!.storage), log: () => {}, ...opts });
      stores.push(s);
      return s;
    },
  };
}
