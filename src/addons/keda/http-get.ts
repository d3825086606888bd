// The metrics-api scaler's outbound request: one GET with a deadline and a bound on the body, off the event loop
// (fetch streams; nothing here blocks), with Go's error texts where a client would see them.

export const defaultTimeoutMs = 3000;
export const maxBodyBytes = 1 << 20;

export interface HttpResult {
  status: number;
  path: string;
  body: string;
}

export async function httpGet(url: string, headers: Record<string, string>, timeoutMs = defaultTimeoutMs, maxBytes = maxBodyBytes): Promise<HttpResult> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`parse ${JSON.stringify(url)}: invalid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`Get ${JSON.stringify(url)}: unsupported protocol scheme ${JSON.stringify(u.protocol.replace(/:$/, ''))}`);
  const signal = AbortSignal.timeout(Math.max(1, timeoutMs));
  let res: Response;
  try {
    res = await fetch(u, { method: 'GET', headers, signal, redirect: 'follow' });
  } catch (err) {
    if (signal.aborted) throw new Error(`Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`Get ${JSON.stringify(url)}: ${cause?.code === 'ECONNREFUSED' ? `dial tcp ${u.host}: connect: connection refused` : cause?.message ?? String(err)}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const reader = res.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new Error(`Get ${JSON.stringify(url)}: response body larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (signal.aborted) throw new Error(`Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while reading body)`);
    throw err;
  }
  return { status: res.status, path: u.pathname, body: Buffer.concat(chunks).toString('utf8') };
}
