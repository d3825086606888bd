// A JSON document edited in place whose subtrees may be referenced from more than one place. A JSON patch `copy`
// shares the copied value instead of cloning it, and a write clones, one level at a time, only the shared containers
// on its way down. A patch that copies a value into itself over and over then costs what its operations are, not
// what the copies would weigh: the encoded size of a shared value is counted once and remembered, so the copy
// budget runs out after a few dozen cheap steps. The finished document becomes a plain tree once, on success.
import { cloneJson } from '../../util/json-tree.js';
import { setOwn } from '../../util/own.js';

export type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

export class SharedTree {
  /** Containers that may be referenced from more than one place: never changed in place. */
  private readonly shared = new WeakSet<object>();
  /** The encoded size of shared containers whose size was counted whole (they never change). */
  private readonly sizes = new WeakMap<object, number>();

  /** The caller's document is shared from the start: it is copied only where the patch writes. */
  constructor(public root: unknown) {
    this.share(root);
  }

  /** Marks `v` as referenced from more than one place, with its encoded size when that is known. */
  share(v: unknown, size?: number): void {
    if (!isContainer(v)) return;
    this.shared.add(v);
    if (size !== undefined) this.sizes.set(v, size);
  }

  /** The remembered encoded size of a shared container. */
  readonly knownSize = (v: object): number | undefined => this.sizes.get(v);

  /** `v` if nobody else refers to it, else a shallow copy whose children are now shared. */
  private owned<T extends Container>(v: T): T {
    if (!this.shared.has(v)) return v;
    const copy = (Array.isArray(v) ? v.slice() : { ...v }) as T;
    for (const child of Array.isArray(copy) ? copy : Object.values(copy)) this.share(child);
    return copy;
  }

  /** The root, made safe to change in place. */
  ownedRoot(): unknown {
    if (isContainer(this.root)) this.root = this.owned(this.root);
    return this.root;
  }

  /** `parent[key]` (parent already owned), made safe to change in place. */
  ownedChild(parent: Container, key: string | number): unknown {
    const v: unknown = Array.isArray(parent) ? parent[key as number] : parent[key as string];
    if (!isContainer(v)) return v;
    const o = this.owned(v);
    if (o !== v) {
      if (Array.isArray(parent)) parent[key as number] = o;
      else setOwn(parent, key as string, o);
    }
    return o;
  }

  /** The document as a plain tree that shares nothing with its input or with itself. */
  finish(): unknown {
    return cloneJson(this.root);
  }
}
