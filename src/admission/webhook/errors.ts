// The errors webhook admission returns, with upstream's texts (k8s.io/apiserver webhook/errors and util/webhook).
import { ApiError, badRequest, internalError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';

/** A failure to talk to a webhook (transport, bad response): failurePolicy decides whether it refuses the request. */
export class CallingWebhookError extends Error {
  constructor(readonly webhookName: string, readonly reason: string) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
  }

  /** How a failing-closed call error reaches the client: a 500 `Internal error occurred: failed calling webhook ...`. */
  toApiError(): ApiError {
    const e = internalError(this.message);
    return new ApiError(e.code, e.reason, e.message, { causes: [{ message: this.message }] });
  }
}

/** `admission webhook "x" does not support dry run` (400). */
export const dryRunUnsupported = (webhookName: string) => badRequest(`admission webhook "${webhookName}" does not support dry run`);

/**
 * A webhook's refusal as upstream's ToStatusErr makes it: the response's status with a code of at least 400 (400 when
 * the webhook gives none), its message prefixed with `admission webhook "x" denied the request`.
 */
export function webhookDenied(webhookName: string, result: unknown): ApiError {
  const r = isRecord(result) ? result : {};
  let code = typeof r.code === 'number' && Number.isInteger(r.code) ? r.code : 0;
  if (code < 400 || code > 599) code = 400;
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const message = typeof r.message === 'string' && r.message ? r.message : '';
  const reason = typeof r.reason === 'string' ? r.reason : '';
  const text = message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = isRecord(r.details) ? sanitizeDetails(r.details) : undefined;
  return new ApiError(code, reason, text, details);
}

function sanitizeDetails(d: Record<string, unknown>): ApiError['details'] {
  const out: NonNullable<ApiError['details']> = {};
  for (const k of ['name', 'group', 'kind', 'uid'] as const) if (typeof d[k] === 'string') out[k] = d[k] as string;
  if (typeof d.retryAfterSeconds === 'number') out.retryAfterSeconds = d.retryAfterSeconds;
  if (Array.isArray(d.causes)) {
    out.causes = d.causes.slice(0, 100).filter(isRecord).map((c) => {
      const cause: { reason?: string; message?: string; field?: string } = {};
      if (typeof c.reason === 'string') cause.reason = c.reason;
      if (typeof c.message === 'string') cause.message = c.message;
      if (typeof c.field === 'string') cause.field = c.field;
      return cause;
    });
  }
  return out;
}
