// Files only the owner may read: the database, keys, certificates and tokens are created 0600 in 0700 folders.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const privateFileMode = 0o600;
const privateDirMode = 0o700;

/** Creates the folder (and missing parents) 0700; an existing folder keeps its mode (it may be the user's own). */
export function ensurePrivateDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: privateDirMode });
}

/** Writes a file 0600 (atomically, through a temporary file in the same folder). */
export function writePrivateFile(path: string, data: string | Buffer): void {
  ensurePrivateDir(dirname(path));
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: privateFileMode });
  chmodSync(tmp, privateFileMode);
  renameSync(tmp, path);
}

export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Makes sure the SQLite database at `db` is private before SQLite opens it: its folder is 0700, the database file
 * is created 0600 (SQLite gives its -wal and -shm files the database file's mode), and files left by an older run
 * are narrowed.
 */
export function preparePrivateDatabase(db: string): void {
  ensurePrivateDir(dirname(db));
  closeSync(openSync(db, 'a', privateFileMode));
  for (const f of [db, `${db}-wal`, `${db}-shm`]) {
    try {
      if (existsSync(f)) chmodSync(f, privateFileMode);
    } catch {
      /* not ours to change (another owner): SQLite reports what it cannot open */
    }
  }
}
