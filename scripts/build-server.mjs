// Bundles the server's command line (dist/src/cli/cli.js, the tsc output) into dist/bundle/cli.js plus chunks, so
// start-up parses one file instead of ~300 modules (src/cli/bin.ts runs the bundle when it is current).
// Run by `npm run build` after tsc. Code loaded with `import()` stays in its own chunk (splitting), loaded on use.
// Kept external, loaded from node_modules: the native module, the heavy packages the server loads only on demand, and
// packages loaded through createRequire. Worker threads start from the tsc output (src/util/paths.ts).
import { build } from 'esbuild';
import { rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bundle');
const entry = join(root, 'dist', 'src', 'cli', 'cli.js');
statSync(entry); // tsc first
rmSync(out, { recursive: true, force: true });
const started = Date.now();
await build({
  entryPoints: { cli: entry },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [
    'better-sqlite3', // native
    'protobufjs', '@bufbuild/*', 'ajv', 'ajv/*', 'ajv-formats', 'ajv-formats/*', // heavy, on demand
    'yaml', 'cron-parser', // createRequire'd on demand
    // Imported on demand: bundling gains nothing at start, and a bundled CommonJS package's namespace differs from
    // Node's own (@peculiar/x509's cryptoProvider was missing from it).
    '@peculiar/*', 'reflect-metadata', 'jose', 'prom-client', 'ws',
    '@kubernetes/client-node', // optional peer
  ],
  // Bundled CommonJS packages (fastify, pino, commander...) require Node's built-ins.
  banner: { js: "import { createRequire as __bonsaiCreateRequire } from 'node:module'; const require = __bonsaiCreateRequire(import.meta.url);" },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
process.stdout.write(`server bundle written to dist/bundle in ${Date.now() - started} ms\n`);
