// A zlib stream as a Go client compresses SPDY header blocks: real deflate, primed with the SPDY/3 dictionary,
// sync-flushed per block (so tests can hand the server what kubectl < 1.30 sends).
import { createDeflate, constants } from 'node:zlib';
import { spdyDictionary } from '../../src/api/streaming/spdy-dictionary.js';

export function goLikeCompressor(): (block: Buffer) => Promise<Buffer> {
  const z = createDeflate({ dictionary: spdyDictionary });
  let out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  return (block: Buffer) => new Promise<Buffer>((resolve) => {
    z.write(block);
    z.flush(constants.Z_SYNC_FLUSH, () => {
      resolve(Buffer.concat(out));
      out = [];
    });
  });
}
