// Shared building blocks for the table printers: column definitions, defensive accessors for
// objects that arrive as loosely-typed JSON, and the cell formats upstream printers share
// (ages, label sets, label selectors, container lists).
import { setOwn } from '../../util/own.js';
import type { KObject } from '../../machinery/types.js';
import { isRecord } from '../../machinery/types.js';
import type { LabelSelector } from '../../generated/k8s/meta/v1.js';
import type { Container } from '../../generated/k8s/core/v1.js';
import { humanDuration } from '../../util/duration.js';
import { CREATED, NAME } from './descriptions.js';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TablePrinter {
  columns: TableColumn[];
  cells(obj: KObject, now: Date): unknown[];
  /** The order a list's rows are printed in, when upstream's list printer sorts them (FlowSchemas); else storage order. */
  order?: (items: readonly KObject[]) => KObject[];
}

// ---- columns ----

export function col(name: string, type: string, description: string, priority = 0, format = ''): TableColumn {
  return { name, type, format, description, priority };
}

/** The Name column every printer starts with. */
export function nameCol(priority = 0): TableColumn {
  return col('Name', 'string', NAME, priority, 'name');
}

export function ageCol(): TableColumn {
  return col('Age', 'string', CREATED);
}

export const CONTAINERS_DESC = 'Names of each container in the template.';
export const IMAGES_DESC = 'Images referenced by each container in the template.';

/** Wide-only Containers and Images columns. */
export function containerCols(): TableColumn[] {
  return [col('Containers', 'string', CONTAINERS_DESC, 1), col('Images', 'string', IMAGES_DESC, 1)];
}

// ---- defensive accessors ----

export function rec(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}

export function list<T = unknown>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** A string field; numbers and booleans are stringified, anything else is empty. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return '';
}

/** An integer field, 0 when absent or not a number (Go's zero value). */
export function int(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
  return 0;
}

/** An optional integer field: undefined when absent. */
export function optInt(v: unknown): number | undefined {
  return v === undefined || v === null ? undefined : int(v);
}

/** A string-to-string map (labels, selectors, annotations); non-string values are dropped. */
export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(rec(v))) {
    if (typeof val === 'string') setOwn(out, k, val);
  }
  return out;
}

export function meta(obj: KObject): Record<string, unknown> {
  return rec(obj?.metadata);
}

export function nameOf(obj: KObject): string {
  return str(meta(obj).name);
}

/** metadata.deletionTimestamp is set (Go: a non-nil pointer). */
export function isDeleting(obj: KObject): boolean {
  const ts = meta(obj).deletionTimestamp;
  return ts !== undefined && ts !== null && ts !== '';
}

/** Go's `%d` on a quantity-like IntOrString: numbers as integers, strings verbatim. */
export function intOrString(v: unknown): string {
  if (typeof v === 'number') return String(Math.trunc(v));
  return str(v);
}

/** resource.Quantity's String(): a zero-valued quantity prints `0`. */
export function quantity(v: unknown): string {
  const s = str(v);
  return s === '' ? '0' : s;
}

/** A *resource.Quantity's String(): a nil pointer prints `<nil>`. */
export function quantityPtr(v: unknown): string {
  return v === undefined || v === null ? '<nil>' : quantity(v);
}

// ---- time ----

/** Go's zero time.Time (0001-01-01T00:00:00Z): metav1.Time treats it as unset. */
const ZERO_MS = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return d.getTime();
})();

/** Milliseconds since the epoch for an RFC3339 timestamp, or undefined for absent/invalid/zero times. */
export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms) || ms <= ZERO_MS) return undefined;
  return ms;
}

export function isZeroTime(v: unknown): boolean {
  return parseTime(v) === undefined;
}

/** Elapsed time since a timestamp, `<unknown>` when it is missing. */
export function since(ts: unknown, now: Date): string {
  const ms = parseTime(ts);
  if (ms === undefined) return '<unknown>';
  return humanDuration(now.getTime() - ms);
}

export function ageOf(obj: KObject, now: Date): string {
  return since(meta(obj).creationTimestamp, now);
}

/** A timestamp as Go's time.RFC3339 in UTC, the zero time when missing. */
export function rfc3339(ts: unknown): string {
  const ms = parseTime(ts);
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

// ---- labels and selectors ----

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
export function formatLabels(v: unknown): string {
  const pairs = Object.entries(strMap(v)).map(([k, val]) => `${k}=${val}`);
  pairs.sort(byCodeUnits);
  return pairs.length === 0 ? '<none>' : pairs.join(',');
}

const OPERATORS: Record<string, string> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key, `key=value`,
 * `key in (a,b)`, `key notin (a,b)`, `key`, `!key`. Returns undefined for an invalid selector;
 * '' for a nil or empty selector.
 */
export function labelSelectorString(sel: LabelSelector | undefined | null | unknown): string | undefined {
  if (!isRecord(sel)) return '';
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(rec(sel.matchLabels))) {
    if (typeof v !== 'string' || k === '') return undefined;
    reqs.push({ key: k, text: `${k}=${v}` });
  }
  for (const e of list(sel.matchExpressions)) {
    const expr = rec(e);
    const key = str(expr.key);
    const op = OPERATORS[str(expr.operator)];
    const values = list(expr.values).map(str);
    if (op === undefined || key === '') return undefined;
    if (op === 'in' || op === 'notin') {
      if (values.length === 0) return undefined;
      const sorted = [...values].sort(byCodeUnits);
      reqs.push({ key, text: `${key} ${op} (${sorted.join(',')})` });
    } else {
      if (values.length !== 0) return undefined;
      reqs.push({ key, text: op === '!' ? `!${key}` : key });
    }
  }
  reqs.sort((a, b) => byCodeUnits(a.key, b.key));
  return reqs.map((r) => r.text).join(',');
}

/** metav1.FormatLabelSelector: `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(sel: unknown): string {
  const s = labelSelectorString(sel);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

// ---- containers ----

/** Comma-joined container names and images. */
export function containerCells(containers: unknown): [string, string] {
  const cs = list<Container>(containers).map(rec);
  return [cs.map((c) => str(c.name)).join(','), cs.map((c) => str(c.image)).join(',')];
}

/** Container names and images of the pod template in a workload's spec (`spec.template.spec.containers`). */
export function templateContainers(spec: Record<string, unknown>): [string, string] {
  return containerCells(rec(rec(spec.template).spec).containers);
}

/** Joins up to `max` items, then `+ N more...`; `<unset>` when nothing was listed. */
export function listWithMore(items: string[], total: number, max: number): string {
  const ret = items.slice(0, max).join(',');
  if (total > max) return `${ret} + ${total - max} more...`;
  return ret === '' ? '<unset>' : ret;
}

/** Go's sets.NewString(...).List(): unique and sorted. */
export function sortedUnique(items: string[]): string[] {
  return [...new Set(items)].sort(byCodeUnits);
}

export function printBoolPtr(v: unknown): string {
  if (typeof v !== 'boolean') return '<unset>';
  return v ? 'True' : 'False';
}
