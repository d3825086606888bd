// The Job a CronJob creates for one scheduled time: deterministic name, template labels and annotations, the
// scheduled-timestamp annotation in the CronJob's time zone, and a controller reference to the CronJob.
import type { CronJob, Job } from '../../generated/k8s/batch/v1.js';
import type { ObjectReference } from '../../generated/k8s/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import { controllerRefTo } from '../workload/owner.js';

export const scheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** `<cronjob>-<scheduled time in minutes since the epoch>`: one name per start time, so a start is never doubled. */
export function jobNameFor(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}

/** The UTC offset of `tz` at `ms`, in minutes (east positive). */
function offsetMinutes(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' }).formatToParts(new Date(ms));
  const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = name.match(/GMT([+-])(\d{2}):(\d{2})/);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Go's time.RFC3339 rendering of `ms` in zone `tz`: `2026-01-01T09:00:00+01:00`, or `...Z` at offset zero in UTC. */
export function rfc3339InZone(ms: number, tz = 'UTC'): string {
  const off = offsetMinutes(ms, tz);
  const d = new Date(Math.floor(ms / 1000) * 1000 + off * 60_000);
  const base = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (off === 0) return `${base}Z`;
  const a = Math.abs(off);
  return `${base}${off < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.RFC1123Z of a UTC time: `Mon, 02 Jan 2006 15:04:05 +0000` (used in the MissSchedule event). */
export function rfc1123z(ms: number): string {
  const d = new Date(ms);
  return `${days[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** The Job for the start at `scheduledMs`. */
export function jobFromTemplate(cj: CronJob, scheduledMs: number): Job {
  const template = cj.spec?.jobTemplate;
  const labels = { ...(template?.metadata?.labels ?? {}) };
  const annotations: Record<string, string> = {
    ...(template?.metadata?.annotations ?? {}),
    [scheduledTimestampAnnotation]: rfc3339InZone(scheduledMs, cj.spec?.timeZone ?? 'UTC'),
  };
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: {
      name: jobNameFor(cj.metadata?.name ?? '', scheduledMs),
      namespace: cj.metadata?.namespace,
      ...(Object.keys(labels).length ? { labels } : {}),
      annotations,
      ownerReferences: [{ ...controllerRefTo(cj), apiVersion: 'batch/v1', kind: 'CronJob' }],
    },
    spec: structuredClone(template?.spec ?? { template: {} }) as Job['spec'],
  };
}

/** The status.active entry for a Job, as upstream's reference.GetReference renders it. */
export function jobReference(job: KObject): ObjectReference {
  return {
    kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid,
    apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion,
  };
}
