// Light entry point for CRD validation rules: importing this file loads nothing heavy; the first
// `await loadCelRules()` loads @bufbuild/cel and the rule compiler (about 100 ms), later calls are free.
export type CelRulesModule = typeof import('./cel-rules.js');

let loading: Promise<CelRulesModule> | undefined;

export function loadCelRules(): Promise<CelRulesModule> {
  loading ??= import('./cel-rules.js');
  return loading;
}
