// The channel framing of Kubernetes' WebSocket subprotocols: each message starts with its channel (0 stdin,
// 1 stdout, 2 stderr, 3 error, 4 resize; 255 closes the channel named in the next byte, v5 only), sent in binary
// messages, or for the base64 variants in text messages with the channel as an ASCII digit and the data in base64;
// read from either kind of message.
export const channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

export interface ChannelProtocol {
  name: string;
  base64: boolean;
  /** The error channel carries a metav1.Status (v4 and later), not plain text. */
  structured: boolean;
  /** The client may close a channel (v5). */
  closable: boolean;
}

const protocols: ChannelProtocol[] = [
  { name: 'v5.channel.k8s.io', base64: false, structured: true, closable: true },
  { name: 'v4.channel.k8s.io', base64: false, structured: true, closable: false },
  { name: 'v4.base64.channel.k8s.io', base64: true, structured: true, closable: false },
  { name: 'v3.channel.k8s.io', base64: false, structured: false, closable: false },
  { name: 'v3.base64.channel.k8s.io', base64: true, structured: false, closable: false },
  { name: 'v2.channel.k8s.io', base64: false, structured: false, closable: false },
  { name: 'v2.base64.channel.k8s.io', base64: true, structured: false, closable: false },
  { name: 'channel.k8s.io', base64: false, structured: false, closable: false },
  { name: 'base64.channel.k8s.io', base64: true, structured: false, closable: false },
];

/** The first subprotocol the client offers that we speak (the client lists its preference first). */
export function pickChannelProtocol(offered: Iterable<string>): ChannelProtocol | undefined {
  for (const o of offered) {
    const p = protocols.find((x) => x.name === o);
    if (p) return p;
  }
  return undefined;
}

export const channelProtocolNames = protocols.map((p) => p.name);

export type Decoded = { kind: 'data'; channel: number; data: Buffer } | { kind: 'close'; channel: number } | { kind: 'skip' };

/**
 * One message from the client. Text and binary frames are read alike, as the kubelet reads them (the Python client
 * sends string stdin in text frames): the first byte is the channel, an ASCII digit (wrapping past '9', as a byte
 * does) for the base64 protocols. Empty or malformed messages are skipped; a channel nobody reads is the caller's
 * to ignore.
 */
export function decodeChannelMessage(p: ChannelProtocol, message: Buffer): Decoded {
  if (message.length === 0) return { kind: 'skip' };
  if (p.base64) {
    const ch = (message[0] - 0x30) & 0xff;
    const text = message.subarray(1).toString('latin1');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return { kind: 'skip' };
    return { kind: 'data', channel: ch, data: Buffer.from(text, 'base64') };
  }
  const ch = message[0];
  if (ch === channel.close) return p.closable && message.length >= 2 ? { kind: 'close', channel: message[1] } : { kind: 'skip' };
  return { kind: 'data', channel: ch, data: message.subarray(1) };
}

/** One message to the client: binary, or text for base64 protocols. */
export function encodeChannelMessage(p: ChannelProtocol, ch: number, data: Buffer): { data: Buffer | string; binary: boolean } {
  if (p.base64) return { data: String.fromCharCode(0x30 + ch) + data.toString('base64'), binary: false };
  const out = Buffer.allocUnsafe(data.length + 1);
  out[0] = ch;
  data.copy(out, 1);
  return { data: out, binary: true };
}
