// Workloads: Deployments, StatefulSets, DaemonSets, Jobs, CronJobs and the add-on kinds the server serves (JobSets,
// LeaderWorkerSets, Karpenter NodePools), each with rollout progress, conditions (in a fixed order) and its pods:
// a Deployment's through its ReplicaSets, side by side during a rollout; a Job's with restarts and failures; a
// JobSet's restarts with the failure-policy rule behind them and its failed Jobs' reasons.
import { useState } from 'preact/hooks';
import { mergePatch } from './api.js';
import { arr, label, rec, str, type ClusterState, type Obj, type PodView } from './model.js';
import { Failures, JobSetRestarts, PodChips, ReplicaSets, sortedConditions } from './ownership.js';
import { usePolled } from './collections.js';

export interface WorkloadKind {
  kind: string;
  /** List path, e.g. /apis/apps/v1/deployments. */
  path: string;
  scalable: boolean;
  /** A label its pods carry naming it, when pods are not found through a selector. */
  podLabel?: string;
}

const jobsPath = '/apis/batch/v1/jobs';

export const builtinKinds: WorkloadKind[] = [
  { kind: 'Deployment', path: '/apis/apps/v1/deployments', scalable: true },
  { kind: 'StatefulSet', path: '/apis/apps/v1/statefulsets', scalable: true },
  { kind: 'DaemonSet', path: '/apis/apps/v1/daemonsets', scalable: false },
  { kind: 'Job', path: jobsPath, scalable: false },
  { kind: 'CronJob', path: '/apis/batch/v1/cronjobs', scalable: false },
];

export const addonKinds: (WorkloadKind & { group: string; version: string; resource: string })[] = [
  { kind: 'JobSet', group: 'jobset.x-k8s.io', version: 'v1alpha2', resource: 'jobsets', path: '', scalable: false, podLabel: 'jobset.sigs.k8s.io/jobset-name' },
  { kind: 'LeaderWorkerSet', group: 'leaderworkerset.x-k8s.io', version: 'v1', resource: 'leaderworkersets', path: '', scalable: true, podLabel: 'leaderworkerset.sigs.k8s.io/name' },
  { kind: 'NodePool', group: 'karpenter.sh', version: 'v1', resource: 'nodepools', path: '', scalable: false },
];

function selects(sel: Obj, labels: Obj): boolean {
  const ml = rec(sel.matchLabels);
  const keys = Object.keys(ml);
  const exprs = arr(sel.matchExpressions).map(rec);
  if (!keys.length && !exprs.length) return false;
  for (const k of keys) if (label(labels, k) !== ml[k]) return false;
  for (const e of exprs) {
    const v = label(labels, str(e.key));
    const vals = arr(e.values).map(str);
    switch (e.operator) {
      case 'In': if (v === undefined || !vals.includes(v)) return false; break;
      case 'NotIn': if (v !== undefined && vals.includes(v)) return false; break;
      case 'Exists': if (v === undefined) return false; break;
      case 'DoesNotExist': if (v !== undefined) return false; break;
      default: return false;
    }
  }
  return true;
}

function podsOf(kind: WorkloadKind, o: Obj, state: ClusterState): PodView[] {
  const m = rec(o.metadata);
  const ns = str(m.namespace);
  const name = str(m.name);
  const out: PodView[] = [];
  if (kind.kind === 'CronJob') {
    const jobs = new Set(arr(rec(o.status).active).map((r) => str(rec(r).name)));
    for (const p of state.pods.values()) if (p.ns === ns && jobs.has(label(p.labels, 'job-name') ?? '')) out.push(p);
    return out;
  }
  const sel = rec(rec(o.spec).selector);
  for (const p of state.pods.values()) {
    if (p.ns !== ns) continue;
    if (kind.podLabel ? label(p.labels, kind.podLabel) === name : selects(sel, p.labels)) out.push(p);
  }
  return out;
}

function progress(kind: string, o: Obj): string {
  const spec = rec(o.spec);
  const st = rec(o.status);
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  switch (kind) {
    case 'Deployment': return `${n(st.readyReplicas)}/${n(spec.replicas ?? 1)} ready · ${n(st.updatedReplicas)} up-to-date · ${n(st.availableReplicas)} available`;
    case 'StatefulSet': return `${n(st.readyReplicas)}/${n(spec.replicas ?? 1)} ready · ${n(st.updatedReplicas)} updated`;
    case 'DaemonSet': return `${n(st.numberReady)}/${n(st.desiredNumberScheduled)} ready · ${n(st.updatedNumberScheduled)} updated`;
    case 'Job': return `${n(st.succeeded)}/${n(spec.completions ?? 1)} succeeded · ${n(st.active)} active · ${n(st.failed)} failed`;
    case 'CronJob': return `${str(spec.schedule)} · ${arr(st.active).length} active · last ${str(st.lastScheduleTime) || 'never'}`;
    case 'LeaderWorkerSet': return `${n(st.readyReplicas)}/${n(spec.replicas ?? 1)} groups ready`;
    case 'NodePool': return `${Object.entries(rec(st.resources)).map(([k, v]) => `${k} ${str(v)}`).join(', ') || 'no nodes'}`;
    default: return Object.entries(rec(st)).filter(([, v]) => typeof v === 'number').map(([k, v]) => `${k} ${String(v)}`).join(' · ');
  }
}

const replicaSetsPath = '/apis/apps/v1/replicasets';
/** JobSets' events: which failure-policy rule restarted them. */
const jobSetEventsPath = `/api/v1/events?fieldSelector=${encodeURIComponent('involvedObject.kind=JobSet')}`;

/** Other objects a workload's view reads: ReplicaSets for Deployments, Jobs and events for JobSets. */
interface Related {
  replicaSets: Obj[];
  jobs: Obj[];
  jobSetEvents: Obj[];
}

function Workload(props: { kind: WorkloadKind; o: Obj; state: ClusterState; readOnly: boolean; related: Related }) {
  const { kind, o } = props;
  const m = rec(o.metadata);
  const [msg, setMsg] = useState('');
  const [replicas, setReplicas] = useState(String(rec(o.spec).replicas ?? ''));
  const pods = podsOf(kind, o, props.state);
  const conds = sortedConditions(o);
  const owned = kind.kind === 'Deployment' ? <ReplicaSets deployment={o} replicaSets={props.related.replicaSets} state={props.state} /> : null;
  const scale = () => {
    const n = Number(replicas);
    if (!Number.isInteger(n) || n < 0) return setMsg('replicas must be a whole number');
    const base = kind.path.replace(/\/[^/]+$/, '');
    setMsg('scaling…');
    mergePatch(`${base}/namespaces/${encodeURIComponent(str(m.namespace))}/${kind.path.split('/').pop()!}/${encodeURIComponent(str(m.name))}/scale`, { spec: { replicas: n } })
      .then(() => setMsg(`scaled to ${n}`), (e: unknown) => setMsg(e instanceof Error ? e.message : String(e)));
  };
  return (
    <div class="workload" data-workload={`${kind.kind}/${str(m.namespace)}/${str(m.name)}`}>
      <div><b>{kind.kind}</b> {str(m.namespace)}/{str(m.name)} <span class="muted">{progress(kind.kind, o)}</span></div>
      <div class="conds">{conds.map((c) => <span class={c.status === 'True' ? 'cond ok' : 'cond'} title={str(c.message)}>{str(c.type)}={str(c.status)}{c.reason ? ` (${str(c.reason)})` : ''}</span>)}</div>
      {owned ?? <PodChips pods={pods} />}
      {kind.kind === 'Job' || kind.kind === 'JobSet' ? <Failures o={o} pods={pods} /> : null}
      {kind.kind === 'JobSet' ? <JobSetRestarts o={o} jobs={props.related.jobs} events={props.related.jobSetEvents} /> : null}
      {kind.scalable && !props.readOnly ? (
        <div class="actions">
          <input class="replicas" size={4} value={replicas} onInput={(e) => setReplicas((e.target as HTMLInputElement).value)} />
          <button data-action="scale" onClick={scale}>Scale</button> {msg}
        </div>
      ) : null}
    </div>
  );
}

export function Workloads(props: { kinds: WorkloadKind[]; state: ClusterState; version: number; filter: string; onFilter(text: string): void }) {
  const { filter } = props;
  const jobSets = props.kinds.some((k) => k.kind === 'JobSet');
  const collections = usePolled([...props.kinds.map((k) => k.path), replicaSetsPath, ...(jobSets ? [jobSetEventsPath] : [])]);
  const items = (path: string) => [...(collections.get(path)?.items.values() ?? [])];
  const related: Related = { replicaSets: items(replicaSetsPath), jobs: jobSets ? items(jobsPath) : [], jobSetEvents: jobSets ? items(jobSetEventsPath) : [] };
  const sections = props.kinds.map((k) => {
    const c = collections.get(k.path);
    const items = c ? [...c.items.values()].filter((o) => !filter || `${keyOf2(o)}`.includes(filter)) : [];
    return { k, items };
  });
  return (
    <div class="workloads">
      <input placeholder="filter by name" value={filter} onInput={(e) => props.onFilter((e.target as HTMLInputElement).value)} />
      {sections.map(({ k, items }) => (
        <section>
          <h3>{k.kind}s ({items.length})</h3>
          {items.slice(0, 300).map((o) => <Workload key={keyOf2(o)} kind={k} o={o} state={props.state} readOnly={false} related={related} />)}
        </section>
      ))}
    </div>
  );
}

const keyOf2 = (o: Obj) => `${str(rec(o.metadata).namespace)}/${str(rec(o.metadata).name)}`;
