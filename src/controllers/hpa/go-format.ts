// metav1.LabelSelector as Go's `%+v` prints a pointer to it (the generated String method): the HPA puts it in
// its external metric names, so the events and conditions read as upstream's do.
import type { LabelSelector } from '../../generated/k8s/meta/v1.js';

export function goLabelSelector(sel: LabelSelector | undefined | null): string {
  if (!sel) return 'nil';
  const labels = Object.keys(sel.matchLabels ?? {}).sort().map((k) => `${k}: ${sel.matchLabels![k]},`).join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
