// Keyed collections of API objects for the workloads and events views, bounded, alive only while their view is
// shown. A browser opens at most six HTTP/1.1 connections to one server and each watch holds one, so the map keeps
// two (nodes, pods), the events view one more, and the workloads view lists its kinds every two seconds instead
// of holding five more watches open (which would leave no connection for the controls' requests).
import { useEffect, useState } from 'preact/hooks';
import { getJson, type ApiFailure } from './api.js';
import { arr, keyOf, rec, type Obj, type WatchEvent } from './model.js';
import { ListWatch } from './watch.js';

export class Collection {
  items = new Map<string, Obj>();
  version = 0;

  constructor(private readonly onChange: () => void, private readonly max = 5000) {}

  reset(items: Obj[]): void {
    this.items = new Map(items.slice(-this.max).map((o) => [keyOf(o), o]));
    this.version++;
    this.onChange();
  }

  apply(events: WatchEvent[]): void {
    for (const e of events) {
      const k = keyOf(e.object);
      this.items.delete(k);
      if (e.type !== 'DELETED') this.items.set(k, e.object);
    }
    // Oldest-touched entries go first when the collection is full.
    while (this.items.size > this.max) this.items.delete(this.items.keys().next().value as string);
    this.version++;
    this.onChange();
  }
}

/** A collection kept current by a watch while the calling component is mounted. */
export function useWatched(path: string, max: number, onError?: (f: ApiFailure | Error | undefined) => void, quiet = false): Collection {
  const [, setV] = useState(0);
  const [c] = useState(() => new Collection(() => setV((v) => v + 1), max));
  useEffect(() => {
    const w = new ListWatch(path, { reset: (items) => c.reset(items), batch: (evs) => c.apply(evs), error: onError, quiet }).start();
    return () => w.stop();
  }, [path]);
  return c;
}

/** Collections listed one after the other every `everyMs` while the calling component is mounted. */
export function usePolled(paths: string[], everyMs = 2000): Map<string, Collection> {
  const [, setV] = useState(0);
  const [cs] = useState(() => new Map<string, Collection>());
  for (const p of paths) if (!cs.has(p)) cs.set(p, new Collection(() => undefined));
  const key = paths.join(',');
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const round = async () => {
      for (const p of paths) {
        if (!live) return;
        try {
          const body = rec(await getJson(p));
          cs.get(p)?.reset(arr(body.items).map(rec));
        } catch {
          // shown as empty; the next round tries again
        }
      }
      if (!live) return;
      setV((v) => v + 1);
      timer = setTimeout(() => void round(), everyMs);
    };
    void round();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [key]);
  return cs;
}
