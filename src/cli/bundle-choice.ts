// Whether `bonsai` runs the server bundle (dist/bundle/cli.js) or the compiled modules (dist/src/cli/cli.js).
import { statSync } from 'node:fs';

/**
 * The bundle is run when it exists and is not older than the compiled CLI it was built from: a plain `tsc` after the
 * last `npm run build` rewrites the compiled tree, and that newer code runs rather than the stale bundle.
 * `npm pack` gives every file one mtime, so equal counts as current. BONSAI_BUNDLE=0 always runs the compiled modules.
 */
export function bundleIsCurrent(bundle: URL | string, compiled: URL | string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.BONSAI_BUNDLE === '0') return false;
  try {
    return statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
}
