// The environment a command sees: the shell's exported variables under the command's own `NAME=value` prefixes, read
// in place. A command that reads one variable (`printenv HOME`) no longer copies all of them, so its cost does not
// grow with the session's variables (issue 22); only listing them all (`env`) walks them.
import type { Vars } from './vars.js';

export class Env implements Iterable<[string, string]> {
  constructor(private readonly vars: Vars, private readonly own: ReadonlyMap<string, string> = new Map()) {}

  get(name: string): string | undefined {
    return this.own.get(name) ?? (this.vars.isExported(name) ? this.vars.get(name) : undefined);
  }

  /** This environment with more prefixes (`env NAME=value cmd`). */
  with(more: Iterable<[string, string]>): Env {
    return new Env(this.vars, new Map([...this.own, ...more]));
  }

  /** Exported variables in the order they were exported (a prefix replaces its value in place), then new prefixes. */
  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (const [n, v] of this.vars.exported()) yield [n, this.own.get(n) ?? v];
    for (const [n, v] of this.own) {
      if (!this.vars.isExported(n) || this.vars.get(n) === undefined) yield [n, v];
    }
  }
}
