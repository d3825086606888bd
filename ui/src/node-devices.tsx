// The devices of the selected node (its ResourceSlices, read when the panel opens and whenever its pods change):
// a row per GPU with its model and memory, who holds it (the claim and its pods, a pod through the nvidia.com/gpu
// capacity) or free, and the MIG slices held, under their GPU.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { nodeDevices, type DeviceRow } from './devices.js';
import { arr, rec, type Obj, type PodView } from './model.js';

const slicesPath = (node: string) => `/apis/resource.k8s.io/v1/resourceslices?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`;
const claimsPath = '/apis/resource.k8s.io/v1/resourceclaims';
const short = (key: string) => key.replace(/^default\//, '');

function holder(r: DeviceRow) {
  if (r.state === 'free') return <span class="muted">free</span>;
  if (r.state === 'partitioned') return <span>MIG slices in use</span>;
  if (r.state === 'capacity') return <span>{short(r.pods[0] ?? '')} <span class="muted">(nvidia.com/gpu)</span></span>;
  return <span>{r.pods.length ? r.pods.map(short).join(', ') : <i>no pod</i>} <span class="muted">claim {short(r.claim)}</span></span>;
}

export function NodeDevices(props: { node: string; pods: PodView[] }) {
  const [rows, setRows] = useState<DeviceRow[] | undefined>();
  const [error, setError] = useState('');
  const refresh = props.pods.map((p) => `${p.key}:${p.phase}:${p.deleting}`).join('|');
  useEffect(() => {
    let live = true;
    const load = async () => {
      const slices = arr(rec(await getJson<Obj>(slicesPath(props.node))).items).map(rec);
      const withDevices = slices.some((s) => arr(rec(s.spec).devices).length > 0);
      const claims = withDevices ? arr(rec(await getJson<Obj>(claimsPath)).items).map(rec) : [];
      if (live) setRows(nodeDevices(slices, claims, props.pods));
    };
    const run = () => void load().then(() => live && setError(''), (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    run();
    // Claims change without the node's pods changing (an allocation written before the binding): read again now and then.
    const timer = setInterval(run, 3000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [props.node, refresh]);
  if (error) return <p class="muted">devices: {error}</p>;
  if (!rows?.length) return null;
  return (
    <div class="devices" data-node-devices={props.node}>
      <b>Devices</b>
      <table class="explain-table">
        <thead><tr><th>Device</th><th>Model</th><th>Held by</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-device={r.name} data-device-state={r.state} class={r.parent ? 'mig' : ''}>
              <td>{r.parent ? `↳ ${r.profile}` : r.name}</td>
              <td>{r.parent ? r.name : `${r.model}${r.memory ? ` · ${r.memory}` : ''}`}</td>
              <td>{holder(r)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
