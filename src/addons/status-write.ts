// What an add-on controller does when it cannot write an object's status: the failure is that object's alone. A
// refusal the next try cannot fix by itself (422 Invalid, 400) is told on the object (a Warning event, aggregated
// when it repeats) and in the log; the caller rethrows, so its work queue retries that key with backoff while
// every other key keeps being reconciled. Conflicts and vanished objects stay quiet (the next pass sees them).
import type { EventRecorder } from '../client/event-recorder.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Logger } from '../util/logger.js';

export const statusWriteFailedReason = 'StatusUpdateFailed';

/** Reports a failed status write of `obj` (see above); returns the error for the caller to rethrow. */
export function reportStatusWriteFailure(recorder: EventRecorder, log: Logger, obj: KObject, err: unknown): unknown {
  if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return err;
  const message = err instanceof Error ? err.message : String(err);
  log.warn({ err, namespace: obj.metadata.namespace, name: obj.metadata.name, kind: obj.kind }, 'writing the status failed; retrying with backoff');
  if (err instanceof ApiError && (err.code === 422 || err.code === 400)) {
    try {
      recorder.event(obj, 'Warning', statusWriteFailedReason, `Failed to update status: ${message}`);
    } catch {
      // The event is a courtesy: its own failure changes nothing.
    }
  }
  return err;
}
