// Events: core/v1 is the stored form; events.k8s.io/v1 is a view of the same objects.
import type { Event as CoreEvent } from '../../generated/k8s/core/v1.js';
import type { Event as EventsV1 } from '../../generated/k8s/events/v1.js';
import { pathGetter, type FieldGetter } from '../../machinery/fields.js';
import type { KObject } from '../../machinery/types.js';
import { nullTime } from '../../util/clock.js';

export const eventFieldSelectors: Record<string, FieldGetter> = {
  'involvedObject.kind': pathGetter('involvedObject.kind'),
  'involvedObject.namespace': pathGetter('involvedObject.namespace'),
  'involvedObject.name': pathGetter('involvedObject.name'),
  'involvedObject.uid': pathGetter('involvedObject.uid'),
  'involvedObject.apiVersion': pathGetter('involvedObject.apiVersion'),
  'involvedObject.resourceVersion': pathGetter('involvedObject.resourceVersion'),
  'involvedObject.fieldPath': pathGetter('involvedObject.fieldPath'),
  'regarding.kind': pathGetter('involvedObject.kind'),
  'regarding.name': pathGetter('involvedObject.name'),
  'regarding.namespace': pathGetter('involvedObject.namespace'),
  'regarding.uid': pathGetter('involvedObject.uid'),
  reason: pathGetter('reason'),
  reportingComponent: pathGetter('reportingComponent'),
  reportingController: pathGetter('reportingComponent'),
  source: pathGetter('source.component'),
  type: pathGetter('type'),
};

export function coreEventToEventsV1(obj: KObject): KObject {
  const e = obj as CoreEvent;
  const out: EventsV1 = {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: e.metadata,
    eventTime: e.eventTime ?? nullTime,
    series: e.series && { count: e.series.count ?? 0, lastObservedTime: e.series.lastObservedTime ?? '' },
    reportingController: e.reportingComponent || e.source?.component,
    reportingInstance: e.reportingInstance || e.source?.host,
    action: e.action, reason: e.reason, regarding: e.involvedObject, related: e.related, note: e.message, type: e.type,
    deprecatedSource: e.source, deprecatedFirstTimestamp: e.firstTimestamp, deprecatedLastTimestamp: e.lastTimestamp,
    deprecatedCount: e.count,
  };
  return JSON.parse(JSON.stringify(out)) as KObject;
}

export function eventsV1ToCoreEvent(obj: KObject): KObject {
  const e = obj as EventsV1;
  const out: CoreEvent = {
    apiVersion: 'v1', kind: 'Event', metadata: e.metadata ?? {},
    involvedObject: e.regarding ?? {}, related: e.related, message: e.note, reason: e.reason, type: e.type, action: e.action,
    eventTime: e.eventTime, series: e.series, reportingComponent: e.reportingController ?? '', reportingInstance: e.reportingInstance ?? '',
    source: e.deprecatedSource, firstTimestamp: e.deprecatedFirstTimestamp, lastTimestamp: e.deprecatedLastTimestamp, count: e.deprecatedCount,
  };
  return JSON.parse(JSON.stringify(out)) as KObject;
}
