// Kubernetes' version order (as discovery lists a group's versions): GA before beta before alpha, higher numbers first,
// then anything else alphabetically.
const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(v: string): [number, number, number] | undefined {
  const m = kubeVersion.exec(v);
  if (!m) return undefined;
  const level = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return [level, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}

/** Negative when `a` sorts before `b`. */
export function compareKubeVersions(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    if (ra[0] !== rb[0]) return rb[0] - ra[0];
    if (ra[1] !== rb[1]) return rb[1] - ra[1];
    return rb[2] - ra[2];
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
