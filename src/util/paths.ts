// Locates the project's data folders (openapi/, proto/, migrations/) from compiled or source code.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'openapi'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('bonsai: cannot locate the project root (openapi/ folder)');
    dir = up;
  }
}

export const projectRoot = findRoot();
export const openapiDir = join(projectRoot, 'openapi');
export const protoDir = join(projectRoot, 'proto');
export const migrationsDir = join(projectRoot, 'migrations');
