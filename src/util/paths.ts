// Locates the project's data folders (openapi/, proto/, migrations/, dist/ui) and compiled worker entry points from
// any layout the code runs in: the tsc output (dist/src/...), the server bundle (dist/bundle/*.js, where
// `import.meta.url` names a chunk, not the module that was written) or an installed package. Every path that used to
// be relative to a module's own `import.meta.url` goes through here.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
/** The dashboard bundle written by scripts/build-ui.mjs. */
export const uiDistDir = join(projectRoot, 'dist', 'ui');

/**
 * A compiled module of the tsc output by its path under src/ (e.g. `storage/commit-worker.js`), as a URL for
 * `new Worker(...)`: worker threads start from the tsc output whichever layout the main thread runs from.
 */
export function compiledModuleUrl(pathUnderSrc: string): URL {
  return pathToFileURL(join(projectRoot, 'dist', 'src', ...pathUnderSrc.split('/')));
}
