// Lets a simulated runtime print into a running container's log: the HTTP responder writes nginx's access lines
// when it answers a request. The pod lifecycle installs the sink (the LogStore of the running kubelets).
import type { Client } from '../client/client.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';

type Sink = (podUid: string, container: string, line: string) => boolean;

/** Each server's sink (while its kubelet simulation runs). */
const sinks = new ServerSlot<{ sink?: Sink }>('container log sink', () => ({}));

export function setContainerLogSink(reg: ServerStateHolder, s: Sink | undefined): void {
  reg.state(sinks).sink = s;
}

/** Longest line kept; a longer one is cut. */
const maxLineLength = 16 * 1024;

/**
 * Appends `line` to the log of `container` in pod `namespace/pod`, stamped with the clock's now. Returns false when
 * the pod or a running container of that name is not there (or no kubelet simulation runs). Embedded newlines
 * split the text into several lines.
 */
export function appendContainerLog(client: Client, namespace: string, pod: string, container: string, line: string): boolean {
  if (!client.state(sinks).sink) return false;
  const uid = client.get('v1/pods', namespace, pod)?.metadata.uid;
  return uid ? appendContainerLogByUid(client, uid, container, line) : false;
}

/** As appendContainerLog, for a pod known by its uid on the server of `reg` (or a view of it). */
export function appendContainerLogByUid(reg: ServerStateHolder, uid: string, container: string, line: string): boolean {
  const sink = reg.state(sinks).sink;
  if (!sink) return false;
  let ok = true;
  for (const part of line.replace(/\r?\n$/, '').split(/\r?\n/).slice(0, 100)) ok = sink(uid, container, part.slice(0, maxLineLength)) && ok;
  return ok;
}
