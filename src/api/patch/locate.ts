// Addressing values of an object by field path, and removing them, for server-side apply. One apply looks up every
// path a manager owns, so list items are found through an index of their path elements built once per list (a
// search per path made a list of 4,000 items take half a minute), and removals leave holes that `compact` closes
// at the end, so that no removal shifts the positions the index holds. Removing all paths before positions move is
// also what structured-merge-diff does (it removes a set of paths at once).
import { isRecord } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import type { FieldPath } from './fieldset.js';
import { fieldNode, itemNode, type SchemaNode } from './schema.js';
import { itemPathElement } from './structured.js';

type Rec = Record<string, unknown>;

export interface Located {
  found: boolean;
  value?: unknown;
  node?: SchemaNode;
  /** The containers walked through, outermost first, with the key or index used to step into each. */
  chain: { container: Rec | unknown[]; step: string | number; node: SchemaNode | undefined }[];
}

/** What a removed list item leaves until `compact` runs. */
const hole = Symbol('removed');

/** The positions of a list's items by path element (first occurrence), and how many items are left. */
interface ListIndex {
  at: Map<string, number>;
  duplicates: boolean;
  live: number;
}

/** Finds and removes values by field path in the objects of one apply; lists change only through it. */
export class Locator {
  private lists = new WeakMap<unknown[], ListIndex>();
  private readonly holed = new Set<unknown[]>();

  private index(list: unknown[], node: SchemaNode | undefined): ListIndex {
    let ix = this.lists.get(list);
    if (ix) return ix;
    ix = { at: new Map(), duplicates: false, live: 0 };
    for (let i = 0; i < list.length; i++) {
      if (list[i] === hole) continue;
      ix.live++;
      const pe = itemPathElement(list[i], i, node);
      if (ix.at.has(pe)) ix.duplicates = true;
      else ix.at.set(pe, i);
    }
    this.lists.set(list, ix);
    return ix;
  }

  /** Finds the value addressed by a field path. */
  locate(obj: unknown, path: FieldPath, root: SchemaNode | undefined): Located {
    let cur: unknown = obj;
    let node = root;
    const chain: Located['chain'] = [];
    for (const pe of path) {
      if (pe.startsWith('f:')) {
        const key = pe.slice(2);
        if (!isRecord(cur) || !hasOwn(cur, key)) return { found: false, chain };
        chain.push({ container: cur, step: key, node });
        cur = cur[key];
        node = fieldNode(node, key);
      } else {
        if (!Array.isArray(cur)) return { found: false, chain };
        const i = this.index(cur, node).at.get(pe);
        if (i === undefined) return { found: false, chain };
        chain.push({ container: cur, step: i, node });
        cur = cur[i];
        node = itemNode(node);
      }
    }
    return { found: true, value: cur, node, chain };
  }

  /** Maps and lists whose emptiness means absence (struct-typed objects are kept even when empty). */
  private droppableWhenEmpty(v: unknown, n: SchemaNode | undefined): boolean {
    if (Array.isArray(v)) return this.index(v, n).live === 0;
    if (!isRecord(v) || Object.keys(v).length > 0) return false;
    return !n?.s.properties;
  }

  /** Removes the value at `path` (mutating `obj`), then drops maps/lists the removal left empty. */
  removeAt(obj: Rec, path: FieldPath, root: SchemaNode | undefined): boolean {
    const loc = this.locate(obj, path, root);
    if (!loc.found) return false;
    for (let i = loc.chain.length - 1; i >= 0; i--) {
      const { container, step, node } = loc.chain[i];
      if (Array.isArray(container)) this.punch(container, step as number, node);
      else delete container[step as string];
      // Stop unless the parent container is now empty; never drop a top-level field.
      if (i === 0 || i === 1) break;
      const parent = loc.chain[i - 1];
      const emptied = (parent.container as Rec & unknown[])[parent.step as never];
      if (!this.droppableWhenEmpty(emptied, node)) break;
    }
    return true;
  }

  private punch(list: unknown[], i: number, node: SchemaNode | undefined): void {
    const ix = this.index(list, node);
    const pe = itemPathElement(list[i], i, node);
    list[i] = hole;
    ix.live--;
    this.holed.add(list);
    // With two items under one path element, the next one is found by indexing the list again.
    if (ix.duplicates) this.lists.delete(list);
    else ix.at.delete(pe);
  }

  /** Closes the holes removals left (positions change: every index is forgotten). */
  compact(): void {
    for (const list of this.holed) {
      let w = 0;
      for (let r = 0; r < list.length; r++) if (list[r] !== hole) list[w++] = list[r];
      list.length = w;
    }
    this.holed.clear();
    this.lists = new WeakMap();
  }
}
