// The devices of the selected node, from the ResourceSlices and ResourceClaims the dashboard keeps (live, or as of
// the revision time travel shows): a row per GPU with its model and memory, who holds it (the claim and its pods, a
// pod through the nvidia.com/gpu capacity) or free, and the MIG slices held, under their GPU.
import { useMemo } from 'preact/hooks';
import { nodeDevices, type DeviceRow } from './devices.js';
import type { ClusterState, PodView } from './model.js';

const short = (key: string) => key.replace(/^default\//, '');

function holder(r: DeviceRow) {
  if (r.state === 'free') return <span class="muted">free</span>;
  if (r.state === 'partitioned') return <span>MIG slices in use</span>;
  if (r.state === 'capacity') return <span>{short(r.pods[0] ?? '')} <span class="muted">(nvidia.com/gpu)</span></span>;
  return <span>{r.pods.length ? r.pods.map(short).join(', ') : <i>no pod</i>} <span class="muted">claim {short(r.claim)}</span></span>;
}

export function NodeDevices(props: { node: string; pods: PodView[]; state: ClusterState; version: number }) {
  const { state, node, pods } = props;
  const rows = useMemo(() => nodeDevices(state.dra.slicesOn(node), state.dra.claimList(), pods), [state, props.version, node, pods]);
  if (!rows.length) return null;
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
