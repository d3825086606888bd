// One image pull as the kubelet does it: the pod's `bonsai.dev/image-pull` annotation (`fail` or `ok`, per
// container with `.NAME`) overrides the simulated registry's answer.
import type { KObject } from '../../machinery/types.js';
import { simAnnotation } from '../annotations.js';
import { ImageRegistry, notFoundMessage, splitReference, type PullResult } from './image-registry.js';

/** Image pull back-off, as the kubelet's: 10 s doubling up to 5 minutes. */
export const pullBackoffInitialMs = 10_000;
export const pullBackoffMaxMs = 300_000;
/** How long ErrImagePull shows before the next pod sync turns it into ImagePullBackOff. */
export const errImagePullShowMs = 1_000;

const defaultRegistry = new ImageRegistry();

export function pullImage(registry: ImageRegistry | undefined, pod: KObject, image: string, container: string): PullResult {
  const override = simAnnotation(pod, 'imagePull', container);
  if (override === 'ok') return { ok: true };
  if (override === 'fail') return { ok: false, message: notFoundMessage(splitReference(image).ref) };
  return (registry ?? defaultRegistry).pull(image);
}

/** The next back-off after one that lasted `previousMs` (0: none yet). */
export function nextPullBackoff(previousMs: number): number {
  return previousMs <= 0 ? pullBackoffInitialMs : Math.min(previousMs * 2, pullBackoffMaxMs);
}
