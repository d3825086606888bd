// The side panel: the selected node with its taints and what they evict, and its controls (stop/start its kubelet,
// cordon/uncordon), or the selected pod with its scheduling explanation. Every control is an ordinary API request made as the browser's user.
import { useState } from 'preact/hooks';
import { mergePatch } from './api.js';
import { SchedulingExplained } from './scheduling.js';
import { NodeDevices } from './node-devices.js';
import { fmtCpu, fmtGi } from './quantity.js';
import { Taints } from './taint-effects.js';
import type { ClusterState } from './model.js';

function useAction(): [string, (what: string, f: () => Promise<unknown>) => void] {
  const [msg, setMsg] = useState('');
  const run = (what: string, f: () => Promise<unknown>) => {
    setMsg(`${what}…`);
    f().then(() => setMsg(`${what}: done`), (e: unknown) => setMsg(`${what}: ${e instanceof Error ? e.message : String(e)}`));
  };
  return [msg, run];
}

const nodePath = (name: string) => `/api/v1/nodes/${encodeURIComponent(name)}`;

/** What to say of an object the shown state lacks: at a past revision, whether it came later or had gone. */
function absent(what: string, now: boolean, revision: number | undefined): string {
  if (revision === undefined) return `${what} is gone`;
  return now ? `${what} did not exist yet at revision ${revision}` : `${what} does not exist at revision ${revision}`;
}

export function NodeDetails(props: { state: ClusterState; live: ClusterState; name: string; revision?: number }) {
  const n = props.state.nodes.get(props.name);
  const [msg, run] = useAction();
  const readOnly = props.revision !== undefined;
  if (!n) return <div class="details" data-absent>{absent(`node ${props.name}`, props.live.nodes.has(props.name), props.revision)}</div>;
  const pods = props.state.podsOn(n.name);
  return (
    <div class="details" data-details-node={n.name}>
      <h3>{n.name}</h3>
      <p>Ready: <b data-node-ready>{n.ready}</b>{n.stopped ? ' · kubelet stopped' : ''}{n.cordoned ? ' · cordoned' : ''}</p>
      <p>Allocatable: {fmtCpu(n.alloc.cpu)} CPU, {fmtGi(n.alloc.mem)} Gi memory, {n.alloc.pods} pods{n.alloc.gpu ? `, ${n.alloc.gpu} GPU` : ''}</p>
      <Taints taints={n.taints} pods={pods} live={!readOnly} />
      {n.problems.length ? <p>Conditions: {n.problems.join(', ')}</p> : null}
      <p>{pods.length} pods</p>
      <NodeDevices node={n.name} pods={pods} state={props.state} version={props.state.version} />
      {readOnly ? <p class="muted">time travel: controls are off</p> : (
        <div class="actions">
          <button data-action="stop-node" onClick={() => run(n.stopped ? 'start' : 'stop', () => mergePatch(nodePath(n.name), { metadata: { annotations: { 'bonsai.dev/stopped': n.stopped ? null : 'true' } } }))}>
            {n.stopped ? 'Start node' : 'Stop node'}
          </button>
          <button data-action="cordon-node" onClick={() => run(n.cordoned ? 'uncordon' : 'cordon', () => mergePatch(nodePath(n.name), { spec: { unschedulable: n.cordoned ? null : true } }))}>
            {n.cordoned ? 'Uncordon' : 'Cordon'}
          </button>
        </div>
      )}
      {msg ? <p class="msg">{msg}</p> : null}
    </div>
  );
}

export function PodDetails(props: { state: ClusterState; live: ClusterState; podKey: string; revision?: number }) {
  const p = props.state.pods.get(props.podKey);
  if (!p) return <div class="details" data-absent>{absent(`pod ${props.podKey}`, props.live.pods.has(props.podKey), props.revision)}</div>;
  return (
    <div class="details" data-details-pod={p.key}>
      <h3>{p.name}</h3>
      <p>{p.ns} · {p.phase}{p.ready ? ' · Ready' : ''}{p.reason ? ` · ${p.reason}` : ''}{p.deleting ? ' · terminating' : ''}</p>
      <p>Node: {p.node || <i>not scheduled</i>}{p.owner ? ` · owner ${p.owner}` : ''}</p>
      <p>Requests: {fmtCpu(p.req.cpu)} CPU, {fmtGi(p.req.mem)} Gi memory{p.req.gpu ? `, ${p.req.gpu} GPU` : ''}</p>
      {p.restarts || p.ended ? <p>Restarts: {p.restarts}{p.ended ? ` · last ended: ${p.ended}` : ''}</p> : null}
      {props.revision === undefined ? <SchedulingExplained ns={p.ns} name={p.name} refresh={`${p.node}|${p.reason}`} /> : null}
    </div>
  );
}
