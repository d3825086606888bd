#!/usr/bin/env node
// The `bonsai` command. It runs the CLI (./cli.ts) from the server bundle, dist/bundle/cli.js, written by
// scripts/build-server.mjs at `npm run build`: one file and a few lazy chunks parse far faster at start than the
// ~300 compiled modules. When there is no bundle, or it is older than the compiled CLI (a plain `tsc` since the last
// bundle), or BONSAI_BUNDLE=0, it runs the compiled modules instead, so a stale bundle never runs newer code's tests.
import { statSync } from 'node:fs';

const bundle = new URL('../../bundle/cli.js', import.meta.url);
const compiled = new URL('./cli.js', import.meta.url);

function bundleIsCurrent(): boolean {
  if (process.env.BONSAI_BUNDLE === '0') return false;
  try {
    // `npm pack` gives every file one mtime: equal counts as current.
    return statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
}

await import(bundleIsCurrent() ? bundle.href : compiled.href);
