// A shell's variables and which of them are exported. A child shell (subshell, pipeline stage, command substitution,
// `sh -c`) shares its parent's tables until it changes one (copy on write), so starting a child costs nothing however
// large the environment; its parent never runs while it does, so the shared tables cannot change under it.

export class Vars {
  private values: Map<string, string>;
  private exportedNames: Set<string>;
  private owned: boolean;

  constructor(values: Map<string, string>, exported: Set<string>, owned = true) {
    this.values = values;
    this.exportedNames = exported;
    this.owned = owned;
  }

  /** The child's view: the same tables until either side of the child writes. */
  fork(): Vars {
    return new Vars(this.values, this.exportedNames, false);
  }

  get size(): number {
    return this.values.size;
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  set(name: string, value: string): void {
    this.own().values.set(name, value);
  }

  delete(name: string): void {
    if (!this.values.has(name) && !this.exportedNames.has(name)) return;
    this.own();
    this.values.delete(name);
    this.exportedNames.delete(name);
  }

  export(name: string): void {
    if (!this.exportedNames.has(name)) this.own().exportedNames.add(name);
  }

  isExported(name: string): boolean {
    return this.exportedNames.has(name);
  }

  /** Exported names that have a value, in the order they were exported. */
  *exported(): IterableIterator<[string, string]> {
    for (const n of this.exportedNames) {
      const v = this.values.get(n);
      if (v !== undefined) yield [n, v];
    }
  }

  private own(): this {
    if (!this.owned) {
      this.values = new Map(this.values);
      this.exportedNames = new Set(this.exportedNames);
      this.owned = true;
    }
    return this;
  }
}
