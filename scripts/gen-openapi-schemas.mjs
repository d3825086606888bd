// Writes dist/openapi-schemas/<group-version file>.json: each static OpenAPI v3 document of openapi/v3 reduced to its
// component schemas without their descriptions. The write pipeline walks a kind's schema (managedFields, patches,
// unknown fields) and needs no paths or prose: api/v1's 2 MB document becomes about 120 KB, parsed at a server's first
// write of a kind in that group-version (src/openapi/documents.ts falls back to the whole document without it).
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'openapi', 'v3');
const to = join(root, 'dist', 'openapi-schemas');

/** A schema without `description`; `props` marks a properties map, whose keys are field names, not keywords. */
function strip(v, props = false) {
  if (Array.isArray(v)) return v.map((x) => strip(x));
  if (!v || typeof v !== 'object') return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    if (!props && k === 'description' && typeof x === 'string') continue;
    out[k] = strip(x, !props && (k === 'properties' || k === 'schemas'));
  }
  return out;
}

rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
let n = 0;
for (const f of readdirSync(from).filter((x) => x.endsWith('_openapi.json'))) {
  const doc = JSON.parse(readFileSync(join(from, f), 'utf8'));
  writeFileSync(join(to, f), JSON.stringify({ openapi: doc.openapi, paths: {}, components: { schemas: strip(doc.components?.schemas ?? {}, true) } }));
  n++;
}
process.stdout.write(`component schemas of ${n} OpenAPI documents written to dist/openapi-schemas\n`);
