// The cluster's certificates, generated once into the key store (kubeadm's names under `<data>/pki`): the CA,
// the API server's serving certificate and the admin's client certificate. Once they exist (and still fit the
// configured names), start-up only reads them: nothing heavy is loaded.
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { ClusterCa, generateCaOffThread, issuedBy } from './cluster-ca.js';
import type { KeyStore } from './key-store.js';
import { adminUser, groups } from '../types.js';

export interface TlsMaterial {
  ca: ClusterCa;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
}

/**
 * The names the serving certificate must carry: loopback, the in-cluster service names, the host (for a wildcard
 * host, this machine's name and addresses) and the extra names.
 */
export function servingNames(host: string, extra: string[]): { dns: string[]; ips: string[] } {
  const dns = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const ips = ['127.0.0.1', '::1', '10.96.0.1'];
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  const machine = wildcard ? [hostname(), ...Object.values(networkInterfaces()).flat().filter((i) => i && !i.internal).map((i) => i!.address.split('%')[0])] : [];
  for (const raw of [host, ...machine, ...extra]) {
    const name = raw.trim().replace(/^\[(.*)\]$/, '$1');
    if (!name || name === '0.0.0.0' || name === '::') continue;
    const list = isIP(name) ? ips : dns;
    if (!list.includes(name)) list.push(name);
  }
  return { dns, ips };
}

export class Pki {
  private caPromise?: Promise<ClusterCa>;
  private loaded?: ClusterCa;

  constructor(private readonly store: KeyStore) {}

  /** The CA if it exists already (no generation, nothing loaded). */
  existingCa(): ClusterCa | undefined {
    if (this.loaded) return this.loaded;
    const cert = this.store.read('ca.crt');
    const key = this.store.read('ca.key');
    if (!cert || !key) return undefined;
    this.loaded = new ClusterCa(cert, key);
    return this.loaded;
  }

  /** The CA, generated on first need. */
  ca(): Promise<ClusterCa> {
    this.caPromise ??= (async () => {
      const have = this.existingCa();
      if (have) return have;
      const { certPem, keyPem } = await generateCaOffThread();
      this.store.write('ca.key', keyPem);
      this.store.write('ca.crt', certPem);
      this.loaded = new ClusterCa(certPem, keyPem);
      return this.loaded;
    })();
    return this.caPromise;
  }

  /** The serving and admin material for `--tls`, generated or renewed only when missing, stale or lacking a name. */
  async tls(names: { dns: string[]; ips: string[] }): Promise<TlsMaterial> {
    const ca = await this.ca();
    let servingCert = this.store.read('apiserver.crt');
    let servingKey = this.store.read('apiserver.key');
    const serving = issuedBy(servingCert, ca, 30);
    const fits = serving && names.dns.every((n) => serving.checkHost(n, { wildcards: false }) !== undefined) && names.ips.every((ip) => serving.checkIP(ip) !== undefined);
    if (!fits || !servingKey) {
      const pair = await ca.issueKeyPair('server', [{ CN: ['kube-apiserver'] }], 365, names);
      this.store.write('apiserver.key', pair.keyPem);
      this.store.write('apiserver.crt', pair.certPem);
      ({ certPem: servingCert, keyPem: servingKey } = pair);
    }
    let adminCert = this.store.read('admin.crt');
    let adminKey = this.store.read('admin.key');
    if (!issuedBy(adminCert, ca, 30) || !adminKey) {
      const pair = await ca.issueKeyPair('client', [{ O: [groups.masters] }, { CN: [adminUser.username] }], 365);
      this.store.write('admin.key', pair.keyPem);
      this.store.write('admin.crt', pair.certPem);
      ({ certPem: adminCert, keyPem: adminKey } = pair);
    }
    return { ca, servingCert: servingCert!, servingKey: servingKey!, adminCert: adminCert!, adminKey: adminKey! };
  }
}
