// Bundles the dashboard (ui/src, TypeScript + Preact) into dist/ui: index.html, app.js, app.css.
// Run by `npm run build` after tsc; esbuild is a dev dependency, the bundle ships in the package.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'ui');
mkdirSync(out, { recursive: true });
const started = Date.now();
await build({
  entryPoints: { app: join(root, 'ui', 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  loader: { '.css': 'css' },
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(root, 'ui', 'index.html'), join(out, 'index.html'));
process.stdout.write(`ui bundle written to dist/ui in ${Date.now() - started} ms\n`);
