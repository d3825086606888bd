// The yaml library, loaded on first use: YAML request bodies and cluster files are rare, and loading it at
// start-up would cost ~20 ms of the time to the first request.
import { createRequire } from 'node:module';

type YamlModule = typeof import('yaml');
let mod: YamlModule | undefined;

export function yaml(): YamlModule {
  mod ??= createRequire(import.meta.url)('yaml') as YamlModule;
  return mod;
}
