// Reply headers every handler may add: the `Warning`s admission and deprecated APIs give, on success and on failure.
import type { FastifyReply } from 'fastify';

/** Adds `Warning: 299 - "text"` values to those the reply already carries. */
export function sendWarnings(reply: FastifyReply, warnings: string[]): void {
  if (!warnings.length) return;
  const have = reply.getHeader('Warning');
  const values = [...(typeof have === 'string' && have ? [have] : []), ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)];
  reply.header('Warning', values.join(', '));
}

/** Sends the warnings admission gave before the request failed (upstream keeps them on errors too), then fails. */
export function withWarnings(reply: FastifyReply, warnings: string[], error: unknown): never {
  sendWarnings(reply, warnings);
  throw error;
}
