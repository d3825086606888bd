// Handing the event loop back between long pieces of synchronous work.

/** Resolves in the check phase after the I/O callbacks pending now have run (when awaited from one, after them). */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
