// Per-server state: a slot names one piece of state (the published CRD OpenAPI, the kubelets' log provider, ...)
// and each server owns its own value of it, made on first use. The server's root Registry holds the values
// (`Registry.state(slot)`), so two servers in one process never share them and a server's state goes with it.

export class ServerSlot<T> {
  /** `make` builds a server's value the first time that server asks for it. */
  constructor(readonly name: string, readonly make: () => T) {}
}

/** What holds a server's state: its Registry, and the in-process client of that server (`client.state(slot)`). */
export interface ServerStateHolder {
  state<T>(slot: ServerSlot<T>): T;
}

/** The values of one server's slots. */
export class ServerState {
  private readonly values = new Map<ServerSlot<unknown>, unknown>();

  get<T>(slot: ServerSlot<T>): T {
    if (this.values.has(slot)) return this.values.get(slot) as T;
    const v = slot.make();
    this.values.set(slot, v);
    return v;
  }
}
