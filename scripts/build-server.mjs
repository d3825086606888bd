// Bundles the server's command line (dist/src/cli/cli.js, the tsc output) into dist/bundle/cli.js plus chunks, so
// start-up parses one file instead of ~300 modules (src/cli/bin.ts runs the bundle when it is current).
// Run by `npm run build` after tsc. Code loaded with `import()` stays in its own chunk (splitting), loaded on use.
// Kept external, loaded from node_modules: the native module, the heavy packages the server loads only on demand, and
// packages loaded through createRequire. Worker threads start from the tsc output (src/util/paths.ts).
import { build } from 'esbuild';
import { rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bundle');
const entry = join(root, 'dist', 'src', 'cli', 'cli.js');
statSync(entry); // tsc first
rmSync(out, { recursive: true, force: true });
const started = Date.now();

/** Resolves the dynamic `import('ajv')` (the CRD schema engine's, loaded on first use) to the package's file, bundled. */
const ajvForSchemas = {
  name: 'ajv-for-schemas',
  setup(b) {
    b.onResolve({ filter: /^ajv$/ }, (args) => (args.kind === 'dynamic-import' ? { path: createRequire(import.meta.url).resolve('ajv') } : undefined));
  },
};
const result = await build({
  entryPoints: { cli: entry },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [ajvForSchemas],
  external: [
    'better-sqlite3', // native
    // Heavy, on demand. @bufbuild's packages (CEL, RE2, protobuf-es) are bundled: they are ESM, imported only by code
    // that is itself imported on demand (so they land in chunks of their own), and their ~150 files cost about 150 ms
    // to resolve and load from node_modules at a server's first CEL rule, against about 50 ms as one chunk. Fastify's
    // require of ajv stays external (bundled, it would sit in a chunk start-up parses); the schema engine's own
    // import() of ajv is bundled into a chunk of its own (ajvForSchemas below).
    'protobufjs', 'ajv', 'ajv/*', 'ajv-formats', 'ajv-formats/*',
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
  metafile: true,
});

// The packages bundled for on-demand use must stay out of what start-up loads: the chunks the entry imports statically.
const outputs = result.metafile.outputs;
const startChunks = new Set();
const toVisit = Object.keys(outputs).filter((k) => outputs[k].entryPoint?.endsWith('cli/cli.js'));
while (toVisit.length) {
  const k = toVisit.pop();
  if (startChunks.has(k)) continue;
  startChunks.add(k);
  for (const i of outputs[k].imports) if (i.kind === 'import-statement' && outputs[i.path]) toVisit.push(i.path);
}
const onDemandOnly = /node_modules\/(@bufbuild|ajv)\//;
const atStart = [...startChunks].flatMap((k) => Object.keys(outputs[k].inputs).filter((i) => onDemandOnly.test(i)));
if (atStart.length) throw new Error(`start-up would load ${atStart[0]} (and ${atStart.length - 1} more): import it on demand`);
process.stdout.write(`server bundle written to dist/bundle in ${Date.now() - started} ms\n`);
