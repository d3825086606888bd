// The map's colour legend: what each pod colour, node marking and chip means.
const pods: [string, string, string][] = [
  ['pod running', 'Running, ready', 'Running and passing its readiness checks'],
  ['pod unready', 'Running, not ready', 'Running, but not (yet) ready: no traffic from Services'],
  ['pod pending', 'Pending', 'Accepted, not running yet: scheduling, pulling images or starting'],
  ['pod failing', 'Failing to start', 'Waiting with an error: CrashLoopBackOff, ImagePullBackOff, …'],
  ['pod failed', 'Failed', 'Ended with a failure'],
  ['pod succeeded', 'Succeeded', 'Ended successfully (a Job’s pod)'],
  ['pod terminating', 'Terminating', 'Being deleted: within its grace period'],
];

export function Legend() {
  return (
    <div class="legend" data-legend>
      <b>Legend</b>
      {pods.map(([cls, text, title]) => <span class="legend-item" title={title} data-legend-item={cls.split(' ')[1]}><i class={cls} /> {text}</span>)}
      <span class="legend-item" title="The node's kubelet stopped reporting, or it reports a problem"><i class="swatch node-down" /> Node NotReady</span>
      <span class="legend-item" title="Cordoned: no new pods are scheduled to it"><i class="swatch node-cordoned" /> Cordoned</span>
      <span class="legend-item" title="A taint: pods without a matching toleration are kept off (NoSchedule) or evicted (NoExecute)"><span class="taint">taint</span></span>
      <span class="legend-item" title="A node condition not in its healthy state"><span class="cond">condition</span></span>
      <span class="legend-item" title="Requests against allocatable; red from 90%"><i class="swatch bar-hot" /> ≥90% requested</span>
    </div>
  );
}
