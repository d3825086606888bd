// The Bonsai dashboard: live cluster map, workloads, events, scheduling explanations, time travel, the current
// lesson and controls, all over the ordinary API from the browser. What is shown is the address (route.ts).
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import './app.css';
import { getJson, onAuthProblem, setToken, type ApiFailure } from './api.js';
import { ClusterState, arr, rec, str } from './model.js';
import { ListWatch } from './watch.js';
import { ClusterMap } from './cluster-map.js';
import { NodeDetails, PodDetails } from './details.js';
import { addonKinds, builtinKinds, Workloads, type WorkloadKind } from './workloads.js';
import { Events } from './events.js';
import { TimeTravelBar, useTravel } from './time-travel.js';
import { ClockBar } from './clock.js';
import { simNow } from './sim-clock.js';
import { LessonPanel } from './lesson-panel.js';
import { navigate, useRoute, type Route, type View } from './route.js';

interface Live {
  state: ClusterState;
  nodes: ListWatch;
  pods: ListWatch;
  kinds: WorkloadKind[];
}

declare global {
  interface Window {
    __bonsai?: { state: ClusterState; nodesRv(): string; podsRv(): string; renders: number };
  }
}

function useLive(bump: () => void, onError: (e: ApiFailure | Error | undefined) => void): Live {
  return useMemo(() => {
    const state = new ClusterState();
    const nodes = new ListWatch('/api/v1/nodes', {
      reset: (items) => { state.resetNodes(items); bump(); },
      batch: (evs) => { state.applyNodes(evs, simNow()); bump(); },
      error: onError,
    }).start();
    const pods = new ListWatch('/api/v1/pods', {
      reset: (items) => { state.resetPods(items); bump(); },
      batch: (evs) => { state.applyPods(evs); bump(); },
      error: onError,
    }).start();
    const kinds = [...builtinKinds];
    // Add-on kinds, when the server serves their groups.
    void getJson('/apis').then((d) => {
      const groups = new Map(arr(rec(d).groups).map(rec).map((g) => [str(g.name), arr(g.versions).map((v) => str(rec(v).version))]));
      // Devices and the claims holding them (the node panel's devices, GPUs held through claims on the map's GPU
      // bars), when the server serves resource.k8s.io/v1.
      if (groups.get('resource.k8s.io')?.includes('v1')) {
        new ListWatch('/apis/resource.k8s.io/v1/resourceslices', {
          reset: (items) => { state.resetSlices(items); bump(); },
          batch: (evs) => { state.applySlices(evs); bump(); },
          quiet: true,
        }).start();
        new ListWatch('/apis/resource.k8s.io/v1/resourceclaims', {
          reset: (items) => { state.resetClaims(items); bump(); },
          batch: (evs) => { state.applyClaims(evs); bump(); },
          quiet: true,
        }).start();
      }
      for (const a of addonKinds) {
        const versions = groups.get(a.group);
        if (!versions) continue;
        const version = versions.includes(a.version) ? a.version : versions[0]!;
        const k = { ...a, path: `/apis/${a.group}/${version}/${a.resource}` };
        kinds.push(k);
      }
      bump();
    }, () => undefined);
    window.__bonsai = { state, nodesRv: () => nodes.applied, podsRv: () => pods.applied, renders: 0 };
    return { state, nodes, pods, kinds };
  }, []);
}

function AuthBanner(props: { failure: ApiFailure | undefined; onToken(): void }) {
  const [value, setValue] = useState('');
  if (!props.failure) return null;
  return (
    <div class="auth" data-auth-status={props.failure.status}>
      <b>{props.failure.status === 401 ? '401 Unauthorized' : '403 Forbidden'}</b>: {props.failure.message}
      <div>
        The dashboard asks the API as you: paste a bearer token to act as its user (kept for this tab only).
        <input type="password" placeholder="bearer token" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        <button data-action="set-token" onClick={() => { setToken(value); props.onToken(); }}>Use token</button>
      </div>
    </div>
  );
}

const tabs: [View, string][] = [['map', 'Cluster map'], ['workloads', 'Workloads'], ['events', 'Events']];

function App() {
  const [version, setVersion] = useState(0);
  const [auth, setAuth] = useState<ApiFailure | undefined>();
  const route = useRoute();
  const go = (r: Partial<Route>, replace = false) => navigate({ ...route, ...r }, replace);
  const tt = useTravel(route.rev);
  const travel = tt.travel;
  const bump = () => setVersion((v) => v + 1);
  const live = useLive(bump, (e) => {
    if (e && 'status' in e && !e.stale && (e.status === 401 || e.status === 403)) setAuth(e);
  });
  useEffect(() => onAuthProblem(setAuth), []);
  const state = travel ? travel.state : live.state;
  const painted = live.state.listed.nodes && live.state.listed.pods;
  useEffect(() => {
    if (window.__bonsai) window.__bonsai.renders++;
  });
  useEffect(() => {
    if (!painted || document.body.dataset.painted) return;
    // After the frame that draws the listed nodes and pods: the first meaningful paint.
    requestAnimationFrame(() => setTimeout(() => {
      performance.mark('bonsai-map-painted');
      document.body.dataset.painted = '1';
    }, 0));
  }, [painted]);
  const restart = () => {
    live.nodes.restart();
    live.pods.restart();
  };
  const { view } = route;
  // A tab is a new view: its selection and filter start empty (time travel stays on the map only).
  const tab = (v: View) => go({ view: v, node: '', pod: '', filter: '', ...(v === 'map' ? {} : { rev: undefined, diff: undefined }) });
  return (
    <div class={travel ? 'app travelling' : 'app'} data-view={view}>
      <header>
        <h1>Bonsai</h1>
        <nav>
          {tabs.map(([t, text]) => <button class={view === t ? 'tab on' : 'tab'} data-tab={t} onClick={() => tab(t)}>{text}</button>)}
        </nav>
        <ClockBar />
      </header>
      <AuthBanner failure={auth} onToken={() => { setAuth(undefined); restart(); }} />
      {view === 'map' ? <TimeTravelBar route={route} travel={travel} error={tt.error} onReplay={tt.replayed} /> : null}
      <main>
        {view === 'map' ? <LessonPanel /> : null}
        <div class="content">
          {view === 'map' ? <ClusterMap state={state} version={travel ? travel.revision : version} selectedNode={route.node} selectedPod={route.pod} onNode={(n) => go({ node: n, pod: '' })} onPod={(k) => go({ pod: k, node: '' })} /> : null}
          {view === 'workloads' ? <Workloads kinds={live.kinds} state={live.state} version={version} filter={route.filter} onFilter={(f) => go({ filter: f }, true)} /> : null}
          {view === 'events' ? <Events filter={route.filter} onFilter={(f, push) => go({ filter: f }, !push)} /> : null}
        </div>
        {view === 'map' && (route.node || route.pod) ? (
          <aside>
            <button class="close" title="Close" onClick={() => go({ node: '', pod: '' })}>×</button>
            {route.node ? <NodeDetails state={state} live={live.state} name={route.node} revision={travel?.revision ?? route.rev} /> : null}
            {route.pod ? <PodDetails state={state} live={live.state} podKey={route.pod} revision={travel?.revision ?? route.rev} /> : null}
          </aside>
        ) : null}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
