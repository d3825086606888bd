// The add-on's settings (`addons.karpenter` of the cluster file), checked as client input:
//   launchSeconds: 2           # cloud launch delay before the Node object appears (0 allowed)
//   registrationSeconds: 1     # Node created -> registered (unregistered taint removed)
//   startupTaintSeconds: 2     # registered -> startup taints removed by the simulated daemon
//   batchIdleSeconds: 1        # provisioning batch idle duration
//   batchMaxSeconds: 10        # provisioning batch max duration
//   registrationTTLSeconds: 900  # a claim whose node has not registered by then is deleted
//   zones: [zone-a, zone-b, zone-c]   # zones of the built-in catalog
//   instanceTypes: [...]       # replaces the built-in catalog (see catalog-settings.ts)
import { getOwn } from '../../util/own.js';
import { CatalogSettingsError, catalogFromSettings } from './catalog-settings.js';
import type { Catalog } from './catalog.js';

export interface KarpenterSettings {
  launchSeconds: number;
  registrationSeconds: number;
  startupTaintSeconds: number;
  batchIdleSeconds: number;
  batchMaxSeconds: number;
  registrationTTLSeconds: number;
}

export const defaultSettings: KarpenterSettings = {
  launchSeconds: 2, registrationSeconds: 1, startupTaintSeconds: 2, batchIdleSeconds: 1, batchMaxSeconds: 10, registrationTTLSeconds: 900,
};

const known = new Set([...Object.keys(defaultSettings), 'zones', 'instanceTypes']);

/** The settings and catalog; throws CatalogSettingsError naming the field. */
export function parseSettings(raw: unknown): { settings: KarpenterSettings; catalog: Catalog } {
  const settings = { ...defaultSettings };
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new CatalogSettingsError('addons.karpenter: must be a mapping');
    for (const k of Object.keys(raw)) if (!known.has(k)) throw new CatalogSettingsError(`addons.karpenter.${k.slice(0, 64)}: unknown field (known: ${[...known].join(', ')})`);
    for (const k of Object.keys(defaultSettings) as Array<keyof KarpenterSettings>) {
      const v = getOwn(raw, k);
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 86_400) throw new CatalogSettingsError(`addons.karpenter.${k}: must be a number of seconds between 0 and 86400`);
      settings[k] = v;
    }
    if (settings.batchMaxSeconds < settings.batchIdleSeconds) throw new CatalogSettingsError('addons.karpenter.batchMaxSeconds: must not be less than batchIdleSeconds');
  }
  return { settings, catalog: catalogFromSettings(raw) };
}
