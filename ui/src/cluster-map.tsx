// The cluster map: a box per node with request bars (CPU in cores, memory in Gi, pods, GPU against allocatable),
// its pods coloured by phase and readiness (labelled with a short name, or small squares on a crowded node), and
// the pending pods' queue. Node boxes are memoized on their
// NodeView and pod list, which the state replaces only when they change; clicks are delegated through data-*
// attributes so ten thousand pods need no handler each.
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fmtCpu, fmtGi } from './quantity.js';
import { label, taintText, usage, type ClusterState, type NodeView, type PodView } from './model.js';
import { Legend } from './legend.js';

export function podClass(p: PodView): string {
  if (p.deleting) return 'pod terminating';
  if (p.phase === 'Running') return p.ready ? 'pod running' : 'pod unready';
  if (p.phase === 'Pending') return p.reason && /BackOff|Err|Invalid/.test(p.reason) ? 'pod failing' : 'pod pending';
  return `pod ${p.phase.toLowerCase()}`;
}

/** Pods drawn in a box (its height is fixed so that only the boxes in view need rendering); more show as +N. */
const maxPodsShown = 80;
/** Up to this many pods on a node are drawn with their names; more, as squares (each names itself on hover). */
const maxLabelled = 12;
/** Box size and gap, as app.css sets them. */
const boxMinWidth = 220;
const rowHeight = 210;
const gap = 6;

/** A pod's name without its ReplicaSet's template hash: `web-7d9f8c5b4-x2x7k` reads `web-x2x7k`. */
export function shortName(p: PodView): string {
  const hash = label(p.labels, 'pod-template-hash');
  return hash ? p.name.replace(`-${hash}-`, '-') : p.name;
}

const podTitle = (p: PodView) => `${p.key} ${p.phase}${p.reason ? ` (${p.reason})` : ''}${p.restarts ? ` · ${p.restarts} restarts` : ''}`;

function Bar(props: { label: string; used: number; total: number; fmt: (n: number) => string; unit?: string }) {
  const { used, total } = props;
  if (!total && !used) return null;
  const pct = total ? Math.min(100, (used / total) * 100) : 100;
  return (
    <div class="bar" title={`${props.label}: ${props.fmt(used)}${props.unit ?? ''} requested of ${props.fmt(total)}${props.unit ?? ''} allocatable`}>
      <span class="bar-label">{props.label}</span>
      <span class="bar-track"><span class={pct >= 90 ? 'bar-fill hot' : 'bar-fill'} style={{ width: `${pct}%` }} /></span>
      <span class="bar-text">{props.fmt(used)}/{props.fmt(total)}{props.unit ?? ''}</span>
    </div>
  );
}

const count = (n: number) => `${Math.round(n)}`;

export const NodeBox = memo(function NodeBox(props: { node: NodeView; pods: PodView[]; claimGpus: number; selected: boolean; selectedPod: string }) {
  const { node, pods } = props;
  const u = usage(pods);
  u.gpu += props.claimGpus;
  const flags = [];
  if (node.stopped) flags.push(<span class="flag stopped">stopped</span>);
  if (node.cordoned) flags.push(<span class="flag cordoned">cordoned</span>);
  if (node.ready !== 'True') flags.push(<span class="flag notready">NotReady</span>);
  const shown = pods.length > maxPodsShown ? pods.slice(0, maxPodsShown) : pods;
  const labelled = pods.length <= maxLabelled;
  return (
    <div class={`node${node.ready === 'True' ? '' : ' down'}${node.cordoned ? ' cordoned' : ''}${props.selected ? ' selected' : ''}`}
      data-node={node.name} data-ready={node.ready} data-stopped={String(node.stopped)} data-cordoned={String(node.cordoned)}>
      <div class="node-head"><b class="node-name">{node.name}</b> <span class="zone">{node.zone}</span> {node.roles.map((r) => <span class="role" data-role={r}>{r}</span>)} {flags}</div>
      <Bar label="CPU" used={u.cpu} total={node.alloc.cpu} fmt={fmtCpu} />
      <Bar label="Mem" used={u.mem} total={node.alloc.mem} fmt={fmtGi} unit=" Gi" />
      <Bar label="Pods" used={u.pods} total={node.alloc.pods} fmt={count} />
      {node.alloc.gpu || u.gpu ? <Bar label="GPU" used={u.gpu} total={node.alloc.gpu} fmt={count} /> : null}
      {node.problems.length || node.taints.length ? (
        <div class="node-notes">
          {node.problems.map((c) => <span class="cond">{c}</span>)}
          {node.taints.map(taintText).map((t) => <span class="taint" title={`taint ${t}`}>{t}</span>)}
        </div>
      ) : null}
      <div class={labelled ? 'pods labelled' : 'pods'}>
        {shown.map((p) => {
          const cls = p.key === props.selectedPod ? `${podClass(p)} sel` : podClass(p);
          return labelled
            ? <span key={p.key} class={cls} data-pod={p.key} title={podTitle(p)}>{shortName(p)}</span>
            : <i key={p.key} class={cls} data-pod={p.key} title={podTitle(p)} />;
        })}
        {pods.length > shown.length ? <span class="more">+{pods.length - shown.length}</span> : null}
      </div>
    </div>
  );
});

export function ClusterMap(props: { state: ClusterState; version: number; selectedNode: string; selectedPod: string; onNode(name: string): void; onPod(key: string): void }) {
  const { state } = props;
  const onClick = (e: MouseEvent) => {
    const el = e.target instanceof Element ? e.target : null;
    const pod = el?.closest('[data-pod]')?.getAttribute('data-pod');
    if (pod) return props.onPod(pod);
    const node = el?.closest('[data-node]')?.getAttribute('data-node');
    if (node) props.onNode(node);
  };
  const nodes = [...state.nodes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const win = useWindow(props.selectedNode, nodes.length);
  const pending = state.pending;
  const selPodNode = state.pods.get(props.selectedPod)?.node ?? "";
  return (
    <div class="map" onClick={onClick} data-version={props.version}>
      <Legend />
      <div class="pending" data-pending={pending.length}>
        <b>Pending ({pending.length})</b>
        <Gangs pending={pending} pods={state.pods} selectedPod={props.selectedPod} />
        <div class="pods">
          {pending.filter((p) => !p.gang).slice(0, 500).map((p) => <PendingPod key={p.key} pod={p} selected={p.key === props.selectedPod} />)}
          {pending.length > 500 ? <span class="more">+{pending.length - 500}</span> : null}
        </div>
      </div>
      <div class="nodes" ref={win.ref} data-nodes={nodes.length} data-pods={state.pods.size} style={{ paddingTop: `${win.top}px`, paddingBottom: `${win.bottom(nodes.length)}px` }}>
        {nodes.slice(win.from, win.to).map((n) => <NodeBox key={n.name} node={n} pods={state.podsOn(n.name)} claimGpus={state.claimGpus.get(n.name) ?? 0} selected={n.name === props.selectedNode} selectedPod={n.name === selPodNode ? props.selectedPod : ""} />)}
      </div>
    </div>
  );
}

function PendingPod(props: { pod: PodView; selected: boolean }) {
  const p = props.pod;
  return <span class={props.selected ? 'pending-pod sel' : 'pending-pod'} data-pod={p.key} title={p.reason}>{p.name}</span>;
}

/**
 * Pending pods of a gang together: a gang is placed whole or not at all, so the line says how many of its members
 * a node holds (none while it waits) and why they wait.
 */
function Gangs(props: { pending: readonly PodView[]; pods: ReadonlyMap<string, PodView>; selectedPod: string }) {
  const waiting = new Map<string, PodView[]>();
  for (const p of props.pending) if (p.gang) waiting.set(p.gang, [...(waiting.get(p.gang) ?? []), p]);
  if (!waiting.size) return null;
  // One pass over the pods for every waiting gang's members and how many of them are on a node.
  const count = new Map<string, { all: number; placed: number }>();
  for (const g of waiting.keys()) count.set(g, { all: 0, placed: 0 });
  for (const p of props.pods.values()) {
    const c = p.gang && !p.deleting ? count.get(p.gang) : undefined;
    if (!c) continue;
    c.all++;
    if (p.node) c.placed++;
  }
  return (
    <div class="gangs">
      {[...waiting].slice(0, 50).map(([gang, pods]) => {
        const { all, placed } = count.get(gang) ?? { all: 0, placed: 0 };
        const [, workload, group] = gang.split('/');
        return (
          <div class="gang" key={gang} data-gang={gang} data-placed={placed} data-members={all}>
            <span class="gang-title" title={pods[0]?.reason}>gang {workload}/{group}: {placed} of {all} placed, waiting to be placed whole</span>
            {pods.slice(0, 100).map((p) => <PendingPod key={p.key} pod={p} selected={p.key === props.selectedPod} />)}
          </div>
        );
      })}
    </div>
  );
}

/**
 * Which node boxes are in (or near) the viewport: boxes have a fixed height in a grid of equal columns, so the map
 * renders only those rows and pads the rest, whatever the number of nodes.
 */
function useWindow(_sel: string, count: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [, setTick] = useState(0);
  useEffect(() => {
    let queued = false;
    const on = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        setTick((t) => t + 1);
      });
    };
    window.addEventListener('scroll', on, { passive: true });
    window.addEventListener('resize', on);
    on();
    return () => {
      window.removeEventListener('scroll', on);
      window.removeEventListener('resize', on);
    };
  }, []);
  const el = ref.current;
  const width = el?.clientWidth || window.innerWidth - 460;
  const cols = Math.max(1, Math.floor((width + gap) / (boxMinWidth + gap)));
  const rows = Math.ceil(count / cols);
  const offset = el ? el.getBoundingClientRect().top + window.scrollY : 0;
  const firstRow = Math.max(0, Math.floor((window.scrollY - offset) / (rowHeight + gap)) - 2);
  const lastRow = Math.min(rows, firstRow + Math.ceil(window.innerHeight / (rowHeight + gap)) + 4);
  return {
    ref,
    from: firstRow * cols,
    to: Math.min(count, lastRow * cols),
    top: firstRow * (rowHeight + gap),
    bottom: (n: number) => Math.max(0, Math.ceil(n / cols) - lastRow) * (rowHeight + gap),
  };
}
