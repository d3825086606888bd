// The end of an image pull attempt in the pod lifecycle: a failed pull shows ErrImagePull, turns into
// ImagePullBackOff at the next pod sync, and is retried when the back-off (10 s doubling to 5 min) runs out.
import type { ContainerRun } from '../pod-runtime.js';
import type { PullResult } from './image-registry.js';
import { errImagePullShowMs, nextPullBackoff } from './pull.js';

export interface PullStageContext {
  event(type: 'Normal' | 'Warning', reason: string, message: string, container?: ContainerRun): void;
  pull(image: string, container: string): PullResult;
  /** How long one pull takes for this container. */
  pullMs(): number;
}

/**
 * Called when the container's pull stage is due at `at`: true when it keeps waiting (the pull failed, ErrImagePull
 * turned into ImagePullBackOff, or a retry began; `c.dueMs` is set to the next step), false when the image is there.
 */
export function pullStageEnd(c: ContainerRun, image: string, at: number, ctx: PullStageContext): boolean {
  const failure = c.pullFailure;
  if (failure?.reason === 'ErrImagePull') {
    c.pullFailure = { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: ${failure.message}`, retryAtMs: failure.retryAtMs };
    ctx.event('Normal', 'BackOff', `Back-off pulling image "${image}"`, c);
    ctx.event('Warning', 'Failed', 'Error: ImagePullBackOff', c);
    c.dueMs = Math.max(at, failure.retryAtMs);
    return true;
  }
  if (failure) {
    c.pullFailure = undefined;
    c.pullStartMs = at;
    c.dueMs = at + ctx.pullMs();
    ctx.event('Normal', 'Pulling', `Pulling image "${image}"`, c);
    return true;
  }
  const result = ctx.pull(image, c.name);
  if (result.ok) return false;
  const delay = nextPullBackoff(c.pullBackoffMs ?? 0);
  c.pullBackoffMs = delay;
  c.pullFailure = { reason: 'ErrImagePull', message: result.message, retryAtMs: at + delay };
  ctx.event('Warning', 'Failed', `Failed to pull image "${image}": ${result.message}`, c);
  ctx.event('Warning', 'Failed', 'Error: ErrImagePull', c);
  c.dueMs = at + Math.min(errImagePullShowMs, delay);
  return true;
}
