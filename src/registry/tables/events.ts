// Events, served as core/v1 and events.k8s.io/v1. Upstream renders both from the same internal
// object, so events.k8s.io/v1 fields are first mapped back onto their core/v1 counterparts.
import type { KObject } from '../../machinery/types.js';
import type { Event as CoreEvent } from '../../generated/k8s/core/v1.js';
import type { Event as EventsV1Event } from '../../generated/k8s/events/v1.js';
import {
  EVENT_COUNT,
  EVENT_FIRST_TIMESTAMP,
  EVENT_INVOLVED_OBJECT,
  EVENT_LAST_TIMESTAMP,
  EVENT_MESSAGE,
  EVENT_REASON,
  EVENT_SOURCE,
  EVENT_TYPE,
  OBJREF_FIELD_PATH,
} from './descriptions.js';
import { col, int, isZeroTime, nameCol, nameOf, rec, since, str, type TablePrinter } from './helpers.js';

const columns = [
  col('Last Seen', 'string', EVENT_LAST_TIMESTAMP),
  col('Type', 'string', EVENT_TYPE),
  col('Reason', 'string', EVENT_REASON),
  col('Object', 'string', EVENT_INVOLVED_OBJECT),
  col('Subobject', 'string', OBJREF_FIELD_PATH, 1),
  col('Source', 'string', EVENT_SOURCE, 1),
  col('Message', 'string', EVENT_MESSAGE),
  col('First Seen', 'string', EVENT_FIRST_TIMESTAMP, 1),
  col('Count', 'string', EVENT_COUNT, 1),
  nameCol(1),
];

/** The core/v1 view of an events.k8s.io/v1 Event. */
function fromEventsV1(obj: KObject): CoreEvent {
  const e = obj as EventsV1Event;
  return {
    metadata: obj.metadata,
    involvedObject: e.regarding ?? {},
    message: e.note,
    source: e.deprecatedSource,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    eventTime: e.eventTime,
    series: e.series === undefined || e.series === null ? undefined : { ...e.series },
    reportingComponent: e.reportingController,
    reportingInstance: e.reportingInstance,
    type: e.type,
    reason: e.reason,
    action: e.action,
    related: e.related,
  };
}

function firstNonEmpty(...values: unknown[]): string {
  for (const v of values) {
    const s = str(v);
    if (s !== '') return s;
  }
  return '';
}

function eventCells(obj: KObject, ev: CoreEvent, now: Date): unknown[] {
  const e = rec(ev);
  const firstTimestamp = isZeroTime(e.firstTimestamp) ? since(e.eventTime, now) : since(e.firstTimestamp, now);
  let lastTimestamp = isZeroTime(e.lastTimestamp) ? firstTimestamp : since(e.lastTimestamp, now);

  let count = int(e.count);
  if (e.series !== undefined && e.series !== null) {
    const series = rec(e.series);
    lastTimestamp = since(series.lastObservedTime, now);
    count = int(series.count);
  } else if (count === 0) {
    // Singleton events carry no count in the newer API.
    count = 1;
  }

  const involved = rec(e.involvedObject);
  const kind = str(involved.kind).toLowerCase();
  const target = str(involved.name) !== '' ? `${kind}/${str(involved.name)}` : kind;

  const src = rec(e.source);
  const component = firstNonEmpty(src.component, e.reportingComponent);
  const instance = firstNonEmpty(src.host, e.reportingInstance);
  const source = instance === '' ? component : `${component}, ${instance}`;

  return [
    lastTimestamp,
    str(e.type),
    str(e.reason),
    target,
    str(involved.fieldPath),
    source,
    str(e.message).trim(),
    firstTimestamp,
    count,
    nameOf(obj),
  ];
}

export const coreEventPrinter: TablePrinter = {
  columns,
  cells(obj, now) {
    return eventCells(obj, obj as CoreEvent, now);
  },
};

export const eventsV1EventPrinter: TablePrinter = {
  columns,
  cells(obj, now) {
    // Accept a core/v1-shaped object too, in case storage hands one over.
    const looksCore = obj.involvedObject !== undefined || String(obj.apiVersion ?? '') === 'v1';
    return eventCells(obj, looksCore ? (obj as CoreEvent) : fromEventsV1(obj), now);
  },
};
