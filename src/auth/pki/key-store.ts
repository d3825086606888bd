// Where keys, certificates and tokens live: files in `<data>/pki` (0600, folder 0700), or memory for `:memory:`
// runs (new material every run).
import { join } from 'node:path';
import { readIfExists, writePrivateFile } from '../../util/private-files.js';

export interface KeyStore {
  read(name: string): string | undefined;
  write(name: string, data: string): void;
}

export class DirKeyStore implements KeyStore {
  constructor(readonly dir: string) {}
  read(name: string): string | undefined {
    return readIfExists(join(this.dir, name));
  }
  write(name: string, data: string): void {
    writePrivateFile(join(this.dir, name), data);
  }
}

export class MemoryKeyStore implements KeyStore {
  private readonly files = new Map<string, string>();
  read(name: string): string | undefined {
    return this.files.get(name);
  }
  write(name: string, data: string): void {
    this.files.set(name, data);
  }
}

/** The store for a data directory (`:memory:` keeps everything in memory). */
export function keyStoreFor(data: string): KeyStore {
  return data === ':memory:' ? new MemoryKeyStore() : new DirKeyStore(join(data, 'pki'));
}
