// The ports of a port-forward request and the error a failed forward reports, as kube-apiserver and the kubelet
// word them: the apiserver converts `ports` (repeated, or comma-separated) to PodPortForwardOptions, where a value
// that is not an unsigned 16-bit number is a 400 Status; the kubelet's WebSocket server then needs at least one
// port, each above 0 (SPDY clients name their ports per stream instead).
import { badRequest } from '../../machinery/errors.js';

/** A bound of ours: two channels a port, and the base64 protocols name channels with one ASCII character. */
export const maxWebSocketPorts = 32;

/** strconv.ParseUint(v, 10, 16): digits only, at most 65535. */
function parseUint16(v: string): number | string {
  if (!/^\d+$/.test(v)) return `strconv.ParseUint: parsing ${JSON.stringify(v)}: invalid syntax`;
  const digits = v.replace(/^0+(?=\d)/, '');
  const n = digits.length > 5 ? Infinity : Number(digits);
  return n > 65535 ? `strconv.ParseUint: parsing ${JSON.stringify(v)}: value out of range` : n;
}

/** The apiserver's conversion of the `ports` query values; throws the 400 it answers for a bad one. */
export function portsOption(values: string[]): number[] {
  const out: number[] = [];
  for (const s of values) {
    for (const v of s.split(',')) {
      const n = parseUint16(v);
      if (typeof n === 'string') throw badRequest(`cannot convert to []int32: ${n}`);
      out.push(n);
      // Bounded: the WebSocket server takes few, and nothing else reads the list.
      if (out.length > 1024) throw badRequest('cannot convert to []int32: too many ports');
    }
  }
  return out;
}

/** The kubelet's check of the ports for a WebSocket port-forward: the text of its plain 400, or undefined. */
export function webSocketPortsProblem(ports: number[]): string | undefined {
  if (!ports.length) return 'query parameter "port" is required';
  const zero = ports.indexOf(0);
  if (zero >= 0) return 'port "0" must be > 0';
  if (ports.length > maxWebSocketPorts) return `too many ports: at most ${maxWebSocketPorts} over one WebSocket`;
  return undefined;
}

/** What the kubelet writes on a port's error stream when forwarding to it fails. */
export function forwardingError(port: number, pod: string, e: unknown): string {
  return `error forwarding port ${port} to pod ${pod}, uid : ${e instanceof Error ? e.message : String(e)}`;
}
