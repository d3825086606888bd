// A store watch from a revision, the same for every backend: changes after the last published revision come live from
// the hub; those from `fromRv` up to it are read back page by page through `read` (the backend's change log or window).
import { StorageError } from './errors.js';
import type { StoreWatch } from './storage.js';
import type { Change, ChangeListener, Trigger, WatchHub } from './watch-hub.js';

export interface ReplaySource {
  hub: WatchHub;
  /** The newest revision watchers have been told about. */
  published: number;
  /** The oldest revision that can still be replayed from, minus one (0: everything). */
  compacted: () => number;
  /** Up to `max` changes of `resource` in (after, upTo], in revision order. */
  read: (after: number, upTo: number, max: number) => Change[];
}

export function expiredError(rv: number, compacted: number): StorageError {
  return new StorageError('Expired', `too old resource version: ${rv} (${compacted + 1})`, compacted + 1);
}

export function watchFrom(src: ReplaySource, resource: string, fromRv: number, listener: ChangeListener, trigger?: Trigger): StoreWatch {
  if (fromRv < src.compacted()) throw expiredError(fromRv, src.compacted());
  // Everything up to the last published revision can be read back; later changes are published after their commit.
  const upTo = Math.max(fromRv, src.published);
  let cursor = fromRv;
  const stop = src.hub.subscribe(resource, (c) => {
    if (c.rv > upTo) listener(c);
  }, trigger);
  const replay = (max: number): Change[] => {
    if (cursor >= upTo) return [];
    if (cursor < src.compacted()) throw expiredError(cursor, src.compacted());
    const out = src.read(cursor, upTo, max);
    cursor = out.length < max ? upTo : out[out.length - 1].rv;
    return out;
  };
  return { stop, replay };
}
