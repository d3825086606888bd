// Resolves `v1/pods`-style resource references against a registry, caching the parse (not the def: a custom
// resource may be added or replaced at run time, and the registry's own lookup is one map read).
import type { Registry } from '../registry/registry.js';
import { storageKey, type ResourceDef } from '../registry/resource.js';
import { ApiError } from '../machinery/errors.js';
import type { ResourceRef } from './types.js';

interface Parsed {
  group: string;
  version: string;
  plural: string;
}

/** Bounded: resource names come from code, but a name built from input must not grow the cache forever. */
const maxParsed = 4096;

const keyOfDef = new WeakMap<ResourceDef, string>();

export class Resolver {
  private readonly parsed = new Map<string, Parsed>();
  /** storage key by reference: a resource's storage key never changes while it is served. */
  private readonly keys = new Map<string, string>();

  constructor(private readonly reg: Registry) {}

  /** The def `ref` names, or undefined when the registry does not serve it (now). */
  find(ref: ResourceRef): ResourceDef | undefined {
    if (typeof ref !== 'string') return ref;
    const p = this.parse(ref);
    return p && this.reg.find(p.group, p.version, p.plural);
  }

  /** Like find, but a reference to nothing is an error (404, as the API answers for an unknown resource). */
  def(ref: ResourceRef): ResourceDef {
    const def = this.find(ref);
    if (!def) throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${String(ref)})`);
    return def;
  }

  /** The storage key of the resource (`core/pods`), or undefined when it is not served. */
  key(ref: ResourceRef): string | undefined {
    if (typeof ref !== 'string') {
      let key = keyOfDef.get(ref);
      if (key === undefined) keyOfDef.set(ref, (key = storageKey(ref)));
      return key;
    }
    const known = this.keys.get(ref);
    if (known !== undefined) return known;
    const def = this.find(ref);
    if (!def) return undefined;
    const key = storageKey(def);
    if (this.keys.size >= maxParsed) this.keys.clear();
    this.keys.set(ref, key);
    return key;
  }

  private parse(ref: string): Parsed | undefined {
    let p = this.parsed.get(ref);
    if (p) return p;
    const parts = ref.split('/');
    if (parts.length === 2) p = { group: '', version: parts[0], plural: parts[1] };
    else if (parts.length === 3) p = { group: parts[0], version: parts[1], plural: parts[2] };
    else return undefined;
    if (this.parsed.size >= maxParsed) this.parsed.clear();
    this.parsed.set(ref, p);
    return p;
  }
}
