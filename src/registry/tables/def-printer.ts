// The printer a resource's Tables are rendered with: its def's `table`, or upstream's default (Name, Created At).
// Either way an object the printer cannot make sense of still gets a full-width row instead of failing the request.
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef } from '../resource.js';
import { col, nameCol, nameOf, rfc3339, meta, type TablePrinter } from './helpers.js';
import { CREATED } from './descriptions.js';

/** Upstream's default table convertor: Name and the creation time as an RFC3339 date. */
export const defaultPrinter: TablePrinter = {
  columns: [nameCol(), col('Created At', 'date', CREATED)],
  cells(obj) {
    return [nameOf(obj), rfc3339(meta(obj).creationTimestamp)];
  },
};

function safeName(obj: KObject): string {
  try {
    return nameOf(obj);
  } catch {
    return '';
  }
}

/** Wraps a printer so that a row it fails on is the name, then `<unknown>` in every other column. */
function guarded(printer: TablePrinter): TablePrinter {
  const nameAt = printer.columns.findIndex((c) => c.format === 'name');
  return {
    columns: printer.columns,
    order: printer.order,
    cells(obj: KObject, now: Date): unknown[] {
      try {
        return printer.cells(obj, now);
      } catch {
        return printer.columns.map((_, i) => (i === nameAt ? safeName(obj) : '<unknown>'));
      }
    },
  };
}

/** Guarded printers by the printer they wrap (printers are module constants, or one per custom resource def). */
const guardedOf = new WeakMap<TablePrinter, TablePrinter>();

/** The (guarded) printer for `def`'s Tables (in `version`, when its versions have tables of their own). */
export function tablePrinterOf(def: Pick<ResourceDef, 'table' | 'tableOf'>, version?: string): TablePrinter {
  const printer = (version !== undefined ? def.tableOf?.(version) : undefined) ?? def.table ?? defaultPrinter;
  let g = guardedOf.get(printer);
  if (!g) {
    g = guarded(printer);
    guardedOf.set(printer, g);
  }
  return g;
}
