// API objects as the dashboard reads them: JSON of any shape, read through these narrowing helpers, keyed by
// namespace and name, and the watch events that carry them.
export type Obj = Record<string, unknown>;

export const rec = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function keyOf(o: Obj): string {
  const m = rec(o.metadata);
  return m.namespace ? `${str(m.namespace)}/${str(m.name)}` : str(m.name);
}

export interface WatchEvent {
  type: string;
  object: Obj;
}
