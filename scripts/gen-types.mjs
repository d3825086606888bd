// Generates TypeScript types for every built-in kind from the 1.35 OpenAPI the project ships (openapi/swagger.json):
// src/generated/k8s/<group>/<version>.ts (one type per definition, one module per group version) and
// src/generated/k8s/resources.ts (what a client's resource reference, e.g. 'apps/v1/deployments', reads as).
// Run by `npm run build` before tsc; files are rewritten only when their text changes. Not committed (.gitignore).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src', 'generated', 'k8s');
const spec = JSON.parse(readFileSync(join(root, 'openapi', 'swagger.json'), 'utf8'));
const defs = spec.definitions;

/** Definition name prefixes and the module path their rest maps to (dots become folders; the last part is the type). */
const prefixes = [
  ['io.k8s.api.', ''],
  ['io.k8s.apimachinery.pkg.apis.', ''],
  ['io.k8s.apimachinery.pkg.', ''],
  ['io.k8s.apiextensions-apiserver.pkg.apis.', ''],
  ['io.k8s.kube-aggregator.pkg.apis.', ''],
];

/** Where a definition goes: its module path (e.g. core/v1) and type name. */
function place(name) {
  for (const [p] of prefixes) {
    if (!name.startsWith(p)) continue;
    const parts = name.slice(p.length).split('.');
    return { module: parts.slice(0, -1).join('/'), type: parts[parts.length - 1] };
  }
  throw new Error(`no module for definition ${name}`);
}

const identifier = /^[A-Za-z_$][\w$]*$/;
const key = (k) => (identifier.test(k) ? k : JSON.stringify(k));

/** The first sentence of a description, as a one-line JSDoc comment (nothing when there is none). */
function doc(text, indent) {
  if (!text) return '';
  let first = text.split('\n')[0];
  const dot = first.search(/\.\s/);
  if (dot > 0) first = first.slice(0, dot + 1);
  if (first.length > 200) first = `${first.slice(0, 197)}...`;
  return `${indent}/** ${first.replaceAll('*/', '*\\/')} */\n`;
}

const modules = new Map(); // module -> { imports: Map<module, Set<type>>, body: string[] }
function moduleOf(m) {
  let mod = modules.get(m);
  if (!mod) modules.set(m, (mod = { imports: new Map(), body: [] }));
  return mod;
}

/** The TypeScript type of a schema, importing what it refers to into `mod` (of module path `at`). */
function typeOf(schema, mod, at) {
  if (schema.$ref) {
    const target = schema.$ref.replace('#/definitions/', '');
    const { module, type } = place(target);
    if (module !== at) {
      if (!mod.imports.has(module)) mod.imports.set(module, new Set());
      mod.imports.get(module).add(type);
    }
    return type;
  }
  if (schema.format === 'int-or-string') return 'number | string';
  switch (schema.type) {
    case 'string': return 'string';
    case 'integer':
    case 'number': return 'number';
    case 'boolean': return 'boolean';
    case 'array': return `Array<${typeOf(schema.items ?? {}, mod, at)}>`;
    case 'object':
      if (schema.properties) return objectType(schema, mod, at, false, '  ');
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return `{ [key: string]: ${typeOf(schema.additionalProperties, mod, at)} }`;
      return '{ [key: string]: unknown }';
    default: return 'unknown';
  }
}

function objectType(schema, mod, at, topLevel, indent) {
  const required = new Set(schema.required ?? []);
  // A stored object of a kind always has its metadata (the registry sets it): required, unlike on the wire.
  if (topLevel && schema.properties?.metadata) required.add('metadata');
  const lines = Object.keys(schema.properties ?? {}).sort().map((k) => {
    const p = schema.properties[k];
    return `${doc(p.description, `${indent}  `)}${indent}  ${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(p, mod, at)};`;
  });
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : '{ [key: string]: unknown }';
}

for (const name of Object.keys(defs).sort()) {
  const schema = defs[name];
  const { module, type } = place(name);
  const mod = moduleOf(module);
  const gvk = schema['x-kubernetes-group-version-kind'];
  const isKind = !!gvk && !!schema.properties?.metadata && !!schema.properties?.kind;
  const body = schema.type === 'object' || schema.properties ? objectType(schema, mod, module, isKind, '') : typeOf(schema, mod, module);
  mod.body.push(`${doc(schema.description, '')}export type ${type} = ${body};\n`);
}

/** The resource references a client takes ('v1/pods', 'apps/v1/deployments') and the kind each reads as. */
const resources = [];
for (const [path, item] of Object.entries(spec.paths)) {
  const get = item.get;
  if (!get || get['x-kubernetes-action'] !== 'get') continue;
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(?:namespaces\/\{namespace\}\/)?([^/{]+)\/\{name\}$/.exec(path);
  const ref = get.responses?.['200']?.schema?.$ref;
  if (!m || !ref) continue;
  const gv = m[1] ? 'v1' : `${m[2]}/${m[3]}`;
  resources.push([`${gv}/${m[4]}`, place(ref.replace('#/definitions/', ''))]);
}
resources.sort((a, b) => (a[0] < b[0] ? -1 : 1));

let written = 0;
function write(file, text) {
  const full = join(out, file);
  if (existsSync(full) && readFileSync(full, 'utf8') === text) return;
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  written++;
}
const banner = '// Generated by scripts/gen-types.mjs from openapi/swagger.json (Kubernetes 1.35). Do not edit.\n';
const importPath = (from, to) => {
  const r = relative(dirname(join(out, `${from}.ts`)), join(out, `${to}.js`));
  return r.startsWith('.') ? r : `./${r}`;
};
for (const [m, mod] of modules) {
  const imports = [...mod.imports].sort().map(([other, types]) => `import type { ${[...types].sort().join(', ')} } from '${importPath(m, other)}';\n`).join('');
  write(`${m}.ts`, `${banner}${imports}${imports ? '\n' : ''}${mod.body.join('\n')}`);
}
const resImports = new Map();
for (const [, p] of resources) {
  if (!resImports.has(p.module)) resImports.set(p.module, new Set());
  resImports.get(p.module).add(p.type);
}
// Types are imported under their module's name (core/v1 Pod as core_v1_Pod): versions of a group share names.
const alias = (p) => `${p.module.replaceAll(/[^\w]/g, '_')}_${p.type}`;
const resText = `${banner}${[...resImports].sort().map(([m, types]) => `import type { ${[...types].sort().map((t) => `${t} as ${alias({ module: m, type: t })}`).join(', ')} } from './${m}.js';\n`).join('')}
/** What each built-in resource reference (group/version/plural; 'v1/...' for the core group) reads as. */
export interface BuiltinResources {
${resources.map(([r, p]) => `  ${JSON.stringify(r)}: ${alias(p)};`).join('\n')}
}

/** The references of BuiltinResources, for code that checks them at run time. */
export const builtinResourceRefs: ReadonlyArray<keyof BuiltinResources> = [
${resources.map(([r]) => `  ${JSON.stringify(r)},`).join('\n')}
];
`;
write('resources.ts', resText);
process.stdout.write(`types generated in src/generated/k8s (${modules.size} modules, ${resources.length} resources, ${written} files written)\n`);
