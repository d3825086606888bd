// Handing the event loop back between long pieces of synchronous work.

/** Resolves in the check phase after the I/O callbacks pending now have run (when awaited from one, after them). */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves once a poll phase has run since the call, from wherever it is called: from a poll phase (a request's
 * handler) an immediate runs before any new I/O, so it takes two.
 */
export const afterPoll = (): Promise<void> => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
