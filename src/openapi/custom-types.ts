// What a published custom resource looks like to the OpenAPI builders, and the defensive copy every client
// supplied schema goes through before a builder sees it (own keys only, bounded depth and size).
import type { OpenApiSchema } from './schema-types.js';
import { setOwn } from '../util/own.js';

export interface CustomResourceVersion {
  name: string;
  served: boolean;
  /** The version's openAPIV3Schema, already converted for publication (as served at /openapi/v3). */
  schema?: unknown;
  /** The same schema converted for /openapi/v2; derived from `schema` when absent. */
  schemaV2?: unknown;
}

export interface CustomResourceSpec {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  versions: CustomResourceVersion[];
  subresources: { status?: unknown; scale?: unknown };
  /** spec.preserveUnknownFields of a v1beta1-era definition: v2 publishes a bare object schema. */
  preserveUnknownFields?: boolean;
}

/** JSON nesting a published schema may reach; deeper subtrees are cut to `{}` (any value). */
export const maxSchemaDepth = 256;
/** Values (objects, arrays, scalars) one published schema may hold; past it the rest is cut to `{}`. */
export const maxSchemaNodes = 400_000;

/** A JSON-only deep copy of `v` with own keys only, depth and size bounded. */
export function cloneJson(v: unknown, depth = 0, budget = { left: maxSchemaNodes }): unknown {
  budget.left--;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'object') return undefined;
  if (depth >= maxSchemaDepth || budget.left <= 0) return Array.isArray(v) ? [] : {};
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      if (budget.left <= 0) break;
      const c = cloneJson(item, depth + 1, budget);
      out.push(c === undefined ? null : c);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (budget.left <= 0) break;
    const c = cloneJson((v as Record<string, unknown>)[k], depth + 1, budget);
    if (c !== undefined) setOwn(out, k, c);
  }
  return out;
}

/** The copy of a schema the builders work on: an object, else undefined (no schema). */
export function cloneSchema(v: unknown): OpenApiSchema | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  return cloneJson(v) as OpenApiSchema;
}

const DNS_LABELS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

/** Names reach URLs, JSON pointers and operation ids: refuse anything a valid definition could not hold. */
export function checkSpec(spec: CustomResourceSpec): string | undefined {
  if (typeof spec.group !== 'string' || !DNS_LABELS.test(spec.group) || spec.group.length > 253) return 'group';
  if (typeof spec.kind !== 'string' || !KIND.test(spec.kind) || spec.kind.length > 253) return 'kind';
  if (typeof spec.listKind !== 'string' || !KIND.test(spec.listKind) || spec.listKind.length > 253) return 'listKind';
  if (typeof spec.plural !== 'string' || !DNS_LABELS.test(spec.plural) || spec.plural.includes('.')) return 'plural';
  if (!Array.isArray(spec.versions) || spec.versions.length > 100) return 'versions';
  for (const v of spec.versions) if (typeof v?.name !== 'string' || !DNS_LABELS.test(v.name) || v.name.includes('.')) return 'versions';
  return undefined;
}

/** kube-openapi's definition name: `jobset.x-k8s.io/v1alpha2.JobSet` → `io.x-k8s.jobset.v1alpha2.JobSet`. */
export function definitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}
