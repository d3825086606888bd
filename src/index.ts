// The package's public entry (`import { startBonsai } from 'bonsai'`): starting a Bonsai, its options and handle,
// and the fixture helpers' types. Everything else under dist/ is internal and may change without notice.
export { startBonsai } from './main.js';
export type { Bonsai, BonsaiOptions, AdminCredentials } from './main.js';
export type { ClusterOptions } from './cluster/index.js';
export type { FixtureHelpers } from './fixture/handle.js';
export type { KubeConfigClass } from './fixture/client-config.js';
export { WaitError, type WaitOptions, type ConditionWaitOptions, type WatchedObject } from './fixture/wait.js';
