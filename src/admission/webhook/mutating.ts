// The MutatingAdmissionWebhook plugin: matching mutating webhooks are called one after another, each JSON patch
// applied to the object; webhooks with reinvocationPolicy IfNeeded are called once more when a later webhook changed
// the object after them (upstream's reinvocation, limited to this plugin's own round).
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { ApiError, internalError } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { applyJsonPatch } from '../../api/patch/json-patch.js';
import { jsonDepth } from '../../util/json-tree.js';
import { maxObjectDepth } from '../../machinery/depth-limits.js';
import { WebhookSource, type Hook } from './config-source.js';
import { isExemptConfiguration } from './rules.js';
import { callHook, failurePolicyError, shouldCall } from './dispatch.js';
import { fromMatchedVersion, toMatchedVersion } from './review.js';
import { anyRuleMatches } from './validating.js';

/** Applies a webhook's patch to the object in the matched version; returns the new storage object, or undefined if unchanged. */
function applyPatch(hook: Hook, a: AdmissionAttributes, match: Parameters<typeof toMatchedVersion>[0], versioned: KObject, patch: unknown[]): KObject | undefined {
  let patched: unknown;
  try {
    patched = applyJsonPatch(versioned, patch);
  } catch (e) {
    throw internalError(e instanceof ApiError || e instanceof Error ? e.message : String(e));
  }
  if (!isRecord(patched) || jsonDepth(patched, maxObjectDepth) > maxObjectDepth) {
    throw internalError(`admission webhook "${hook.name}" returned a patch whose result is not a ${a.def.kind} object`);
  }
  const obj = patched as KObject;
  if (obj.apiVersion !== versioned.apiVersion || obj.kind !== versioned.kind || !isRecord(obj.metadata)) {
    throw internalError(`admission webhook "${hook.name}" returned a patch whose result is not a ${a.def.kind} object`);
  }
  if (JSON.stringify(obj) === JSON.stringify(versioned)) return undefined;
  return fromMatchedVersion(match, obj);
}

/** Calls one webhook if it applies: whether it was called and changed the object. Errors the failure policy lets through are swallowed. */
async function invoke(hook: Hook, a: AdmissionAttributes): Promise<{ called: boolean; changed: boolean }> {
  const match = await shouldCall(hook, a);
  if (!match) return { called: false, changed: false };
  return { called: true, changed: await callAndPatch(hook, a, match) };
}

async function callAndPatch(hook: Hook, a: AdmissionAttributes, match: NonNullable<Awaited<ReturnType<typeof shouldCall>>>): Promise<boolean> {
  const versioned = toMatchedVersion(match, a.object);
  try {
    const result = await callHook(hook, a, match, versioned, true);
    if (!result.patch || result.patch.length === 0) return false;
    if (!versioned) throw internalError(`admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`);
    const next = applyPatch(hook, a, match, versioned, result.patch);
    if (!next) return false;
    a.object = next;
    return true;
  } catch (e) {
    const err = failurePolicyError(hook, e);
    if (err) throw err;
    return false;
  }
}

export function mutatingWebhookPlugin(): AdmissionPlugin {
  const source = new WebhookSource('mutating');
  return {
    name: 'MutatingAdmissionWebhook',
    handles: (a) => a.canWait && anyRuleMatches(source.current(a.registry), a),
    async mutate(a) {
      if (!a.canWait || isExemptConfiguration(a.kind)) return;
      const hooks = source.current(a.registry);
      // Reinvocable webhooks already called, and those a later change obliges to run again.
      let invoked = new Set<string>();
      const reinvoke = new Set<string>();
      for (const hook of hooks) {
        const { called, changed } = await invoke(hook, a);
        if (changed) {
          for (const uid of invoked) reinvoke.add(uid);
          invoked = new Set();
        }
        if (called && hook.spec.reinvocationPolicy === 'IfNeeded') invoked.add(hook.uid);
      }
      if (reinvoke.size === 0) return;
      for (const hook of hooks) if (reinvoke.has(hook.uid)) await invoke(hook, a);
    },
  };
}

