// @peculiar/x509, loaded on first use (it takes a few hundred milliseconds to load, so never on the way to the first
// request once the certificates exist). It needs the reflect-metadata polyfill first and node's WebCrypto.
import { webcrypto } from 'node:crypto';

export type X509Lib = typeof import('@peculiar/x509');

let lib: X509Lib | undefined;
let loading: Promise<X509Lib> | undefined;

export function loadX509(): Promise<X509Lib> {
  loading ??= (async () => {
    await import('reflect-metadata');
    const m = await import('@peculiar/x509');
    m.cryptoProvider.set(webcrypto as Crypto);
    lib = m;
    return m;
  })();
  return loading;
}

/** The library if it has been loaded already (synchronous code paths, e.g. validation after a preload). */
export function loadedX509(): X509Lib | undefined {
  return lib;
}
