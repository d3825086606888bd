// NamesAccepted, as upstream's naming controller decides it: a CRD's names must not collide with the names another
// CRD of the same group has already been given (plural, singular, short names, kind, list kind).
import type { Crd, CrdNames } from './crd-types.js';

export interface NamesVerdict {
  accepted: boolean;
  reason: string;
  message: string;
}

const namesOf = (n: CrdNames | undefined) => n ? [n.plural, n.singular ?? '', ...(n.shortNames ?? [])].filter(Boolean) : [];
const kindsOf = (n: CrdNames | undefined) => n ? [n.kind, n.listKind ?? ''].filter(Boolean) : [];

/** Whether `crd`'s requested names are free among `others` (the group's other CRDs, with their accepted names). */
export function judgeNames(crd: Crd, others: Crd[]): NamesVerdict {
  const want = crd.spec.names;
  const taken = new Set<string>();
  const takenKinds = new Set<string>();
  for (const o of others) {
    if (o.metadata.name === crd.metadata.name || o.spec.group !== crd.spec.group) continue;
    for (const n of namesOf(o.status?.acceptedNames)) taken.add(n);
    for (const k of kindsOf(o.status?.acceptedNames)) takenKinds.add(k);
  }
  if (taken.has(want.plural)) return { accepted: false, reason: 'PluralConflict', message: `"${want.plural}" is already in use` };
  if (want.singular && taken.has(want.singular)) return { accepted: false, reason: 'SingularConflict', message: `"${want.singular}" is already in use` };
  for (const s of want.shortNames ?? []) {
    if (taken.has(s)) return { accepted: false, reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
  }
  if (takenKinds.has(want.kind)) return { accepted: false, reason: 'KindConflict', message: `"${want.kind}" is already in use` };
  if (want.listKind && takenKinds.has(want.listKind)) return { accepted: false, reason: 'ListKindConflict', message: `"${want.listKind}" is already in use` };
  return { accepted: true, reason: 'NoConflicts', message: 'no conflicts found' };
}
