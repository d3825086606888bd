// What custom resource documents borrow from the static upstream documents: the metav1 (and autoscaling/v1
// Scale, from apps/v1) definitions their $refs point at, the TypeMeta property schemas and metadata descriptions, and the
// option parameters' texts. Read once, on first use.
import { staticV3Document } from './documents.js';
import type { OpenApiDocument, OpenApiSchema } from './schema-types.js';
import { OPTION_PARAMETER_NAMES, type V3Parameter } from './custom-operations.js';
import type { MetaTexts } from './custom-schema.js';

let texts: MetaTexts | undefined;
let params: Map<string, V3Parameter> | undefined;

function batch(): OpenApiDocument {
  const d = staticV3Document('apis/batch/v1');
  if (!d) throw new Error('bonsai: openapi/v3 batch/v1 document missing');
  return d;
}

/** apiVersion/kind property schemas and the ObjectMeta/ListMeta descriptions, as built-in kinds have them. */
export function metaTexts(): MetaTexts {
  if (texts) return texts;
  const schemas = batch().components?.schemas ?? {};
  const job = schemas['io.k8s.api.batch.v1.Job']?.properties ?? {};
  const list = schemas['io.k8s.api.batch.v1.JobList']?.properties ?? {};
  texts = {
    apiVersion: { description: job.apiVersion?.description, type: 'string' },
    kind: { description: job.kind?.description, type: 'string' },
    objectMeta: job.metadata?.description ?? '',
    listMeta: list.metadata?.description ?? '',
  };
  return texts;
}

/** An option query parameter (dryRun, fieldValidation, limit, ...) worded as upstream words it. */
export function optionParameter(name: string): V3Parameter | undefined {
  if (!params) {
    params = new Map();
    const paths = batch().paths;
    const ops = [
      paths['/apis/batch/v1/namespaces/{namespace}/jobs']?.get,
      paths['/apis/batch/v1/namespaces/{namespace}/jobs']?.post,
      paths['/apis/batch/v1/namespaces/{namespace}/jobs/{name}']?.delete,
      paths['/apis/batch/v1/namespaces/{namespace}/jobs/{name}']?.put,
    ] as Array<{ parameters?: V3Parameter[] } | undefined>;
    for (const op of ops) for (const p of op?.parameters ?? []) if (OPTION_PARAMETER_NAMES.includes(p.name) && !params.has(p.name)) params.set(p.name, p);
  }
  return params.get(name);
}

const REF = /^#\/components\/schemas\/(.+)$/;

function collectRefs(v: unknown, out: string[], depth = 0): void {
  if (depth > 64 || typeof v !== 'object' || v === null) return;
  if (Array.isArray(v)) {
    for (const x of v) collectRefs(x, out, depth + 1);
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    if (k === '$ref' && typeof x === 'string') {
      const m = REF.exec(x);
      if (m) out.push(m[1]);
    } else collectRefs(x, out, depth + 1);
  }
}

/** `roots` and every static definition they reach through $ref (v3 form), by name. */
export function staticClosure(roots: string[]): Map<string, OpenApiSchema> {
  const out = new Map<string, OpenApiSchema>();
  const todo = [...roots];
  while (todo.length && out.size < 500) {
    const name = todo.pop()!;
    if (out.has(name)) continue;
    // metav1 types are in every group's document; autoscaling/v1 Scale is in apps/v1's (read only when needed).
    const s = batch().components?.schemas?.[name] ?? staticV3Document('apis/apps/v1')?.components?.schemas?.[name];
    if (!s) continue;
    out.set(name, s);
    const refs: string[] = [];
    collectRefs(s, refs);
    todo.push(...refs);
  }
  return out;
}
