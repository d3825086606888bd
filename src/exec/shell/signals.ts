// What ends a shell program early, shared by the interpreter and word expansion: `exit` (and a signal) unwinds with
// an ExitSignal, a budget or size limit with a LimitError.
export class ExitSignal {
  constructor(readonly code: number) {}
}
export class LimitError extends Error {}

/** The longest word an expansion may produce (a longer one is cut). */
export const maxWordBytes = 256 * 1024;
