// What the server gives every resource handler (resource-handler.ts and the subresources it dispatches to).
import type { Registry } from '../registry/registry.js';

export interface HandlerContext {
  reg: Registry;
}
