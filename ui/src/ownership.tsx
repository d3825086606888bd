// What a workload owns, as a class learns it: a Deployment's ReplicaSets side by side (old and new during a
// rollout: revision, ready count, pods), a Job's or JobSet's restarts and why its pods or it failed, and which
// failure-policy rule restarted a JobSet after which of its Jobs failed, and why.
import { arr, rec, str, type ClusterState, type Obj, type PodView } from './model.js';
import { podClass, shortName } from './cluster-map.js';

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Conditions in one order for every object (the API's order varies with which came first). */
const conditionOrder = ['Available', 'Progressing', 'ReplicaFailure', 'Ready', 'Complete', 'SuccessCriteriaMet', 'Failed', 'FailureTarget', 'Suspended', 'StartupPolicyCompleted'];

export function sortedConditions(o: Obj): Obj[] {
  const rank = (c: Obj) => {
    const i = conditionOrder.indexOf(str(c.type));
    return i < 0 ? conditionOrder.length : i;
  };
  return arr(rec(o.status).conditions).map(rec).sort((a, b) => rank(a) - rank(b) || (str(a.type) < str(b.type) ? -1 : str(a.type) > str(b.type) ? 1 : 0));
}

export function PodChips(props: { pods: PodView[]; max?: number }) {
  const max = props.max ?? 200;
  return (
    <div class="pods labelled">
      {props.pods.slice(0, max).map((p) => <span class={podClass(p)} data-pod={p.key} title={`${p.key} ${p.phase} ${p.node}${p.restarts ? ` · ${p.restarts} restarts` : ''}`}>{shortName(p)}</span>)}
      {props.pods.length > max ? <span class="more">+{props.pods.length - max}</span> : null}
    </div>
  );
}

const revisionOf = (rs: Obj) => Number(str(rec(rec(rs.metadata).annotations)['deployment.kubernetes.io/revision'])) || 0;
const owns = (owner: Obj, o: Obj) => arr(rec(o.metadata).ownerReferences).some((r) => rec(r).uid === rec(owner.metadata).uid);

/** A Deployment's ReplicaSets that hold or want pods, and always the newest, oldest first: old beside new. */
export function ReplicaSets(props: { deployment: Obj; replicaSets: Obj[]; state: ClusterState }) {
  const mine = props.replicaSets.filter((rs) => owns(props.deployment, rs)).sort((a, b) => revisionOf(a) - revisionOf(b));
  if (!mine.length) return null;
  const newest = mine[mine.length - 1]!;
  const shown = mine.filter((rs) => rs === newest || num(rec(rs.spec).replicas) > 0 || num(rec(rs.status).replicas) > 0);
  const hidden = mine.length - shown.length;
  const ns = str(rec(props.deployment.metadata).namespace);
  return (
    <div class="replicasets" data-replicasets={shown.length}>
      {shown.map((rs) => {
        const m = rec(rs.metadata);
        const name = str(m.name);
        const pods = [...props.state.pods.values()].filter((p) => p.ns === ns && p.owner === `ReplicaSet/${name}`);
        const isNew = rs === newest;
        return (
          <div class={isNew ? 'rs new' : 'rs old'} data-replicaset={name} data-revision={revisionOf(rs)}>
            <div><b>{isNew ? 'new' : 'old'}</b> ReplicaSet {name}</div>
            <div class="muted">revision {revisionOf(rs) || '?'} · <span data-rs-ready>{num(rec(rs.status).readyReplicas)}/{num(rec(rs.spec).replicas)} ready</span></div>
            <PodChips pods={pods} max={60} />
          </div>
        );
      })}
      {hidden ? <div class="rs muted">{hidden} older ReplicaSet{hidden > 1 ? 's' : ''} at 0 (kept for rollback)</div> : null}
    </div>
  );
}

/** Restarts and failure reasons of a Job's or JobSet's pods, and the object's own failure. */
export function Failures(props: { o: Obj; pods: PodView[] }) {
  const st = rec(props.o.status);
  const restarts = props.pods.reduce((n, p) => n + p.restarts, 0);
  const failed = sortedConditions(props.o).find((c) => (c.type === 'Failed' || c.type === 'FailureTarget') && c.status === 'True');
  const ended = props.pods.filter((p) => p.ended);
  const reasons = new Map<string, number>();
  for (const p of ended) reasons.set(p.ended, (reasons.get(p.ended) ?? 0) + 1);
  const jobsetRestarts = typeof st.restarts === 'number' ? st.restarts : undefined;
  if (!restarts && !failed && !reasons.size && !jobsetRestarts) return null;
  return (
    <div class="failures" data-failures>
      {jobsetRestarts !== undefined ? <span>JobSet restarts: <b data-jobset-restarts>{jobsetRestarts}</b> · </span> : null}
      <span>container restarts: <b data-restarts>{restarts}</b></span>
      {[...reasons].map(([r, n]) => <span class="reason"> · {n} pod{n > 1 ? 's' : ''} ended: {r}</span>)}
      {failed ? <div class="error" data-failed-reason={str(failed.reason)}>Failed: {str(failed.reason)}{failed.message ? ` — ${str(failed.message)}` : ''}</div> : null}
    </div>
  );
}

const restartReason = (r: string) => r.startsWith('FailurePolicy_') || r === 'DefaultFailurePolicy';
const rv = (o: Obj) => Number(str(rec(o.metadata).resourceVersion)) || 0;

/**
 * Why a JobSet restarted: the failure-policy rule (the reason of its RestartingJobSet condition while it restarts,
 * of its newest `FailurePolicy_<rule>` event after), the rule's action and restarts counted against maxRestarts,
 * and the failed Jobs of the current attempt with their reasons (`PodFailurePolicy_<pod rule>`, `BackoffLimitExceeded`).
 */
export function JobSetRestarts(props: { o: Obj; jobs: Obj[]; events: Obj[] }) {
  const m = rec(props.o.metadata);
  const ns = str(m.namespace);
  const name = str(m.name);
  const policy = rec(rec(props.o.spec).failurePolicy);
  const st = rec(props.o.status);
  const restarting = sortedConditions(props.o).find((c) => c.type === 'RestartingJobSet' && c.status === 'True' && restartReason(str(c.reason)));
  const mine = (e: Obj) => {
    const io = rec(e.involvedObject);
    return io.kind === 'JobSet' && (io.uid ? io.uid === m.uid : io.namespace === ns && io.name === name);
  };
  const last = restarting ?? props.events.filter((e) => mine(e) && restartReason(str(e.reason))).sort((a, b) => rv(b) - rv(a))[0];
  const reason = last ? str(last.reason) : '';
  const rule = reason.startsWith('FailurePolicy_') ? reason.slice('FailurePolicy_'.length) : '';
  const action = str(arr(policy.rules).map(rec).find((r) => r.name === rule)?.action);
  const failedJobs = props.jobs
    .filter((j) => str(rec(j.metadata).namespace) === ns && str(rec(rec(j.metadata).labels)['jobset.sigs.k8s.io/jobset-name']) === name)
    .map((j) => ({ job: str(rec(j.metadata).name), failed: sortedConditions(j).find((c) => c.type === 'Failed' && c.status === 'True') }))
    .filter((j) => j.failed)
    .sort((a, b) => (a.job < b.job ? -1 : 1));
  if (!last && !failedJobs.length) return null;
  return (
    <div class="failures jobset-restarts">
      {typeof policy.maxRestarts === 'number' ? <div class="muted" data-toward-max>{num(st.restartsCountTowardsMax)} of maxRestarts {policy.maxRestarts} used</div> : null}
      {last ? (
        <div data-restart-rule={rule || reason}>
          {rule ? <>{restarting ? 'Restarting' : 'Last restart'}: failure-policy rule <b>{rule}</b>{action ? ` (${action})` : ''}</> : <>{restarting ? 'Restarting' : 'Last restart'}: the default failure policy (no rule matched)</>}
          <span class="muted"> — {str(last.message)}</span>
        </div>
      ) : null}
      {failedJobs.map((j) => (
        <div class="error" data-failed-job={j.job} data-job-reason={str(j.failed!.reason)}>Job {j.job} failed: {str(j.failed!.reason)}{j.failed!.message ? ` — ${str(j.failed!.message)}` : ''}</div>
      ))}
    </div>
  );
}
