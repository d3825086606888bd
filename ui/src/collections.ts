// Plain keyed collections of API objects kept current by a ListWatch (workloads, events), bounded.
import { keyOf, type Obj, type WatchEvent } from './model.js';
import { ListWatch } from './watch.js';
import type { ApiFailure } from './api.js';

export class Collection {
  items = new Map<string, Obj>();
  version = 0;
  readonly watch: ListWatch;

  constructor(readonly path: string, onChange: () => void, onError: (f: ApiFailure | Error | undefined) => void, private readonly max = 5000) {
    this.watch = new ListWatch(path, {
      reset: (items) => {
        this.items = new Map(items.slice(-max).map((o) => [keyOf(o), o]));
        this.version++;
        onChange();
      },
      batch: (events: WatchEvent[]) => {
        for (const e of events) {
          const k = keyOf(e.object);
          if (e.type === 'DELETED') this.items.delete(k);
          else {
            this.items.delete(k);
            this.items.set(k, e.object);
          }
        }
        // Oldest-touched entries go first when the collection is full.
        while (this.items.size > this.max) this.items.delete(this.items.keys().next().value as string);
        this.version++;
        onChange();
      },
      error: onError,
    });
  }
}
