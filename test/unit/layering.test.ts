// Layering: controllers, the scheduler, the kubelets, the simulated cluster and the add-ons reach objects only
// through the in-process client (src/client/): none imports registry/, storage/ or api/, uses the store or its
// watch hub. The folders below the server import only their own lower layers (LAYERS), and no module takes part in
// an import cycle, at run time or through type-only imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { projectRoot, sourceFiles } from '../helpers/source-files.js';

const root = projectRoot();
const src = join(root, 'src');

interface Import {
  /** The importing file and the imported one, relative to src/ (`controllers/gc.ts`). */
  from: string;
  to: string;
  /** `import type`, `export type`, or only `type` names: erased at run time. */
  typeOnly: boolean;
  line: number;
}

// `import … from './x.js'` and `export … from './x.js'` (one clause: braces may span lines), side-effect imports and
// dynamic `import('./x.js')`. Only relative specifiers: packages are outside the layering.
const staticImport = /(^|\n)[ \t]*(import|export)\s+(type\s+)?(\{[^}]*\}|[^'";\n]*?)\s*from\s+['"](\.\.?\/[^'"]+)['"]/g;
const bareImport = /(^|\n)[ \t]*import\s+['"](\.\.?\/[^'"]+)['"]/g;
const dynamicImport = /import\s*\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/g;

/** Every relative import of a file, resolved to a .ts path relative to src/. */
function importsOf(file: string, text = readFileSync(file, 'utf8')): Import[] {
  const from = relative(src, file);
  const resolve = (spec: string) => relative(src, join(dirname(file), spec.replace(/\.js$/, '.ts')));
  const lineAt = (i: number) => text.slice(0, i).split('\n').length;
  const out: Import[] = [];
  for (const m of text.matchAll(staticImport)) {
    const clause = m[4].trim();
    const names = clause.startsWith('{') ? clause.slice(1, -1).split(',').map((n) => n.trim()).filter(Boolean) : [];
    const typeOnly = !!m[3] || (names.length > 0 && names.every((n) => n.startsWith('type ')));
    out.push({ from, to: resolve(m[5]), typeOnly, line: lineAt(m.index + m[1].length) });
  }
  for (const m of text.matchAll(bareImport)) out.push({ from, to: resolve(m[2]), typeOnly: false, line: lineAt(m.index + m[1].length) });
  for (const m of text.matchAll(dynamicImport)) out.push({ from, to: resolve(m[1]), typeOnly: false, line: lineAt(m.index) });
  return out;
}

const files = sourceFiles(src);
const imports = files.flatMap((f) => importsOf(f));
/** The top-level folder (or root file) of a path relative to src/: `registry`, `main.ts`. */
const topOf = (p: string) => p.split('/')[0];
const show = (i: Import) => `${i.from}:${i.line} -> ${i.to}${i.typeOnly ? ' (type)' : ''}`;

/** The components: clients of the server like any other, through the in-process client. */
const components = ['controllers', 'scheduler', 'kubelet', 'cluster', 'addons'];

test('the import parser reads what the checks rely on', () => {
  const f = join(src, 'controllers', 'x.ts');
  const got = importsOf(f, [
    `import type { Change } from '../storage/watch-hub.js';`,
    `import { a, type B } from '../registry/registry.js';`,
    `import {\n  type C,\n  type D,\n} from './c.js';`,
    `export { e } from '../api/e.js';`,
    `import './side.js';`,
    `const m = await import('../machinery/m.js');`,
    `import type { FastifyInstance } from 'fastify';`,
  ].join('\n'));
  assert.deepEqual(got.map((i) => [i.to, i.typeOnly, i.line]), [
    ['storage/watch-hub.ts', true, 1], ['registry/registry.ts', false, 2], ['controllers/c.ts', true, 3],
    ['api/e.ts', false, 7], ['controllers/side.ts', false, 8], ['machinery/m.ts', false, 9],
  ]);
  assert.ok(files.length > 400, `found the sources (${files.length} files)`);
});

/**
 * The imports of registry/, storage/ and api/ components still make: may only shrink (an entry no longer made must
 * be removed, a new one fails). The add-ons' admission checks use registry/validation's pure field rules, as
 * upstream webhooks use apimachinery's validation.
 */
const componentAllowList = [
  'addons/jobset/webhook-policies.ts -> registry/validation/common.ts',
  'addons/jobset/webhook-policies.ts -> registry/validation/pod-failure-policy.ts',
  'addons/jobset/webhook.ts -> registry/validation/common.ts',
];

test('components import neither registry/, storage/ nor api/ (but the shrinking allow-list)', () => {
  const made = new Set<string>();
  const offences: string[] = [];
  for (const i of imports) {
    if (!components.includes(topOf(i.from)) || !['registry', 'storage', 'api'].includes(topOf(i.to))) continue;
    const key = `${i.from} -> ${i.to}${i.typeOnly ? ' (type)' : ''}`;
    made.add(key);
    if (!componentAllowList.includes(key)) offences.push(show(i));
  }
  assert.deepEqual(offences, []);
  assert.deepEqual(componentAllowList.filter((k) => !made.has(k)), [], 'allow-list entries no longer needed: remove them');
});

test('components use neither the store nor its watch hub (the client is the one seam that does)', () => {
  const offences: string[] = [];
  for (const folder of components) {
    for (const file of sourceFiles(join(src, folder))) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (/\.(store|hub)\b/.test(line)) offences.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(offences, []);
  assert.deepEqual(imports.filter((i) => topOf(i.from) === 'client' && topOf(i.to) === 'api').map(show), [], 'the client does not import api/ internals');
  assert.ok(/\.(store|hub)\b/.test('reg.store.hub.subscribe(') && !/\.(store|hub)\b/.test('client.storedResourceFiles(); const hubs = 1;'));
});

/**
 * What each layered folder may import besides itself (type-only imports included). The foundation (machinery,
 * util) and storage sit below everything; the client is the seam components go through. The server's own folders
 * (registry, api, admission, auth, audit, apiextensions, flowcontrol, openapi, metrics-apis) and the composition
 * (main.ts, cli, fixture, lessons, exec) are not layered yet, but take part in no import cycle either (below).
 */
const LAYERS: Record<string, string[]> = {
  // The types generated from the OpenAPI (scripts/gen-types.mjs) import nothing but each other; every layer may use them.
  generated: [],
  machinery: ['generated', 'util'],
  util: ['generated', 'machinery'],
  storage: ['generated', 'machinery', 'util'],
  cel: ['generated', 'machinery', 'util'],
  client: ['admission', 'auth', 'generated', 'kubelet', 'machinery', 'metrics-apis', 'registry', 'storage', 'util'],
  leader: ['client', 'generated', 'machinery', 'util'],
  // scheduler -> cel: DRA device selectors (scheduler/dra/cel-device.ts, loaded on first use).
  scheduler: ['auth', 'cel', 'client', 'generated', 'machinery', 'util'],
  // kubelet -> controllers: gatekeeper-effects.ts reads an error's status code with the workload controllers' helper.
  kubelet: ['auth', 'client', 'controllers', 'generated', 'machinery', 'util'],
  // controllers -> leader: the controller runtime's manager runs its controllers while holding a Lease.
  controllers: ['auth', 'client', 'generated', 'kubelet', 'leader', 'machinery', 'metrics-apis', 'util'],
  cluster: ['client', 'generated', 'kubelet', 'machinery', 'util'],
  addons: ['admission', 'auth', 'client', 'controllers', 'generated', 'machinery', 'metrics-apis', 'registry', 'scheduler', 'util'],
};

test('each layered folder imports only itself and its lower layers', () => {
  const offences = imports.filter((i) => {
    const layer = LAYERS[topOf(i.from)];
    return layer && topOf(i.to) !== topOf(i.from) && !layer.includes(topOf(i.to));
  });
  assert.deepEqual(offences.map(show), []);
  // Below the registry nothing reaches up: no layer under it names it or anything above it.
  for (const low of ['machinery', 'util', 'storage', 'cel']) {
    for (const high of ['registry', 'api', 'admission', 'auth', 'client', 'controllers', 'apiextensions']) assert.ok(!LAYERS[low].includes(high), `${low} may not import ${high}`);
  }
});

test('an add-on is one folder: it imports no other add-on', () => {
  const offences = imports.filter((i) => {
    const from = i.from.split('/');
    const to = i.to.split('/');
    // addons/index.ts lists the add-ons; a file inside one add-on's folder reaches no other.
    return from[0] === 'addons' && from.length > 2 && to[0] === 'addons' && to.length > 2 && to[1] !== from[1];
  });
  assert.deepEqual(offences.map(show), []);
});

/** Strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm, iterative. */
function cycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ v: string; i: number }> = [{ v: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const succ = edges.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1].v, Math.min(low.get(work[work.length - 1].v)!, low.get(top.v)!));
      if (low.get(top.v) !== index.get(top.v)) continue;
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== top.v);
      if (comp.length > 1 || succ.includes(top.v)) out.push(comp.sort());
    }
  }
  return out;
}

function graph(withTypes: boolean): Map<string, string[]> {
  const known = new Set(files.map((f) => relative(src, f)));
  const edges = new Map<string, string[]>([...known].map((f) => [f, []]));
  for (const i of imports) if ((withTypes || !i.typeOnly) && known.has(i.to)) edges.get(i.from)!.push(i.to);
  return edges;
}

test('the cycle finder finds cycles', () => {
  const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['d']], ['e', ['a']]]);
  assert.deepEqual(cycles(g), [['a', 'b', 'c'], ['d']]);
});

test('no import cycle at run time', () => {
  assert.deepEqual(cycles(graph(false)), []);
});

test('no import cycle through type-only imports either', () => {
  assert.deepEqual(cycles(graph(true)), []);
});
