// The in-process client's public surface (see client.ts).
export { Client, clientFor, type ClientListOptions, type WriteOptions, type DeleteOptions } from './client.js';
export { Informer, type IndexFn, type InformerOptions } from './informer.js';
export { EventRecorder, objectReference, type EventSource } from './event-recorder.js';
export type { Change, ChangeListener, ChangeType, ResourceDef, ResourceRef, WatchTrigger } from './types.js';
