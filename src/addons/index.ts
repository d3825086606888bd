// The add-ons Bonsai ships and how they start: `--addons` (the `--controllers` syntax) selects them; once the server
// listens, each selected add-on is loaded, its CRDs installed and awaited until Established, and its controllers
// started with a client acting as its own identity, the ServiceAccount kube-system/<name>-controller.
// This module is cheap to import: an add-on's code is loaded (dynamic import) only when it starts.
import { selectNames } from '../util/name-selection.js';
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { serviceAccountUser, type ComponentIdentity } from '../auth/identities.js';
import type { Addon, AddonHandle, AddonRule } from './types.js';
import { crdRef, installCrdFiles, waitEstablished } from './install.js';

export type { Addon, AddonContext, AddonHandle, AddonRule } from './types.js';

/** Every add-on by name, in start order, with how to load it. Adding one is one entry here. */
const loaders = {
  sandbox: async () => (await import('./sandbox/index.js')).sandboxAddon,
  lws: async () => (await import('./lws/index.js')).lwsAddon,
  jobset: async () => (await import('./jobset/index.js')).jobSetAddon,
  karpenter: async () => (await import('./karpenter/index.js')).karpenterAddon,
  keda: async () => (await import('./keda/index.js')).kedaAddon,
  vpa: async () => (await import('./vpa/index.js')).vpaAddon,
} satisfies Record<string, () => Promise<Addon>>;

export type AddonName = keyof typeof loaders;

export const addonNames = Object.keys(loaders) as AddonName[];

/**
 * Which add-ons run, from an `--addons` list: `*` is all (the default), `name` enables, `-name` disables; names not
 * enabled are off without `*` (so `-sandbox` alone, or an empty list, selects none). Unknown names are an error.
 */
export function selectAddons(spec: readonly string[] = ['*']): AddonName[] {
  return selectNames(spec, addonNames, 'add-on');
}

/** The identity an add-on's controllers act as. */
export function addonIdentity(name: string): ComponentIdentity {
  const user = serviceAccountUser('kube-system', `${name}-controller`);
  return { user, component: { userAgent: `${name}-controller/v0.0.0 (linux/amd64) bonsai/${user.username}` } };
}

export interface AddonsHandle {
  /** Settles once every selected add-on has started (or failed to: failures are logged, never thrown). */
  ready: Promise<void>;
  stop(): void;
}

/**
 * Installs the selected add-ons' CRDs and starts their controllers, one add-on after another, off the caller's path:
 * returns at once. `client` installs the CRDs (as a platform admin would); the controllers get `client.as(identity)`.
 */
export function startAddons(client: Client, clock: Clock, log: Logger, selected: readonly AddonName[] = selectAddons(), settings: ReadonlyMap<string, unknown> = new Map()): AddonsHandle {
  const abort = new AbortController();
  const running: AddonHandle[] = [];
  const ready = (async () => {
    if (!selected.length) return;
    try {
      await client.resource(crdRef)?.load?.();
    } catch (err) {
      log.error({ err }, 'the CRD schema engines did not load: no add-on starts');
      return;
    }
    for (const name of selected) {
      if (abort.signal.aborted) return;
      const alog = log.child({ addon: name });
      try {
        const addon = await loaders[name]();
        await install(client, addon, abort.signal);
        if (abort.signal.aborted) return;
        const id = addonIdentity(addon.name);
        ensureIdentity(client, addon, alog);
        running.push(addon.start({ client: client.as(id.user, id.component), clock, log: alog, settings: settings.get(addon.name) }));
        alog.debug('add-on started');
      } catch (err) {
        if (!abort.signal.aborted) alog.error({ err }, 'the add-on did not start');
      }
    }
  })();
  return {
    ready,
    stop() {
      abort.abort();
      for (const h of running.splice(0)) h.stop();
    },
  };
}

async function install(client: Client, addon: Addon, signal: AbortSignal): Promise<void> {
  const names = await installCrdFiles(client, addon.name, addon.crds, signal);
  if (signal.aborted) return;
  await waitEstablished(client, names, signal);
}

const defaultGroups = ['', 'apps', 'batch', 'scheduling.k8s.io', 'events.k8s.io'];

/** The add-on's ServiceAccount, ClusterRole and ClusterRoleBinding (as its project's install manifests create them). */
function ensureIdentity(client: Client, addon: Addon, log: Logger): void {
  const sa = `${addon.name}-controller`;
  const role = `bonsai:addon:${addon.name}`;
  const crdGroups = client.list(crdRef, undefined, { labelSelector: `bonsai.dev/addon=${addon.name}` }).map((c) => String((c.spec as { group?: unknown } | undefined)?.group ?? ''));
  const rules: AddonRule[] = addon.rules ?? [{ verbs: ['*'], apiGroups: [...new Set([...defaultGroups, ...crdGroups])], resources: ['*'] }];
  const objects: Array<[string, string, KObject]> = [
    ['v1/serviceaccounts', 'kube-system', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: 'kube-system' } }],
    ['rbac.authorization.k8s.io/v1/clusterroles', '', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules } as KObject],
    ['rbac.authorization.k8s.io/v1/clusterrolebindings', '', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'kube-system' }],
    } as KObject],
  ];
  for (const [ref, ns, obj] of objects) {
    if (!client.resource(ref) || client.get(ref, ns, obj.metadata.name ?? '')) continue;
    client.create(ref, ns, obj).catch((err: unknown) => log.warn({ err, name: obj.metadata.name }, 'creating the add-on identity failed'));
  }
}
