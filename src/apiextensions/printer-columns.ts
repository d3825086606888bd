// Server-side tables for custom resources, as apiextensions-apiserver's tableconvertor renders them: the Name column,
// then each additionalPrinterColumn of the served version (or a lone Age column when the version declares none).
// A cell holds the first value the column's JSONPath finds, converted by the column's type; a path that finds
// nothing, or a value of the wrong type, gives a null cell (kubectl prints it empty).
import type { KObject } from '../machinery/types.js';
import { isRecord } from '../machinery/types.js';
import { CREATED } from '../registry/tables/descriptions.js';
import { col, nameCol, nameOf, since, type TableColumn, type TablePrinter } from '../registry/tables/helpers.js';
import { goFloat, goJsonMarshal } from '../util/go-format.js';
import { compileJsonPath, type CompiledJsonPath } from './jsonpath.js';

/** One entry of `additionalPrinterColumns` (apiextensions/v1 CustomResourceColumnDefinition). */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** The column every version without printer columns gets (upstream's serveDefaultColumnsIfEmpty). */
export const defaultAgeColumn: PrinterColumn = { name: 'Age', type: 'date', description: CREATED, jsonPath: '.metadata.creationTimestamp' };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);

/** Reads `additionalPrinterColumns` from a JSON array, keeping the fields each entry has. */
export function parsePrinterColumns(raw: unknown): PrinterColumn[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isRecord).map((c) => ({
    name: str(c.name), type: str(c.type), format: str(c.format), description: str(c.description), priority: int(c.priority), jsonPath: str(c.jsonPath),
  }));
}

/** The version's columns, or the default Age column when it declares none; undefined if the CRD has no such version. */
export function columnsForVersion(crd: unknown, version: string): PrinterColumn[] | undefined {
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const v = versions.find((x) => x.name === version);
  if (!v) return undefined;
  const cols = parsePrinterColumns(v.additionalPrinterColumns);
  return cols.length > 0 ? cols : [defaultAgeColumn];
}

interface Compiled {
  column: PrinterColumn;
  path: CompiledJsonPath;
}

/**
 * A TablePrinter for printer columns. As upstream, a column whose JSONPath does not parse ends the list: it and the
 * columns after it are dropped (upstream logs "invalid printer specification" and serves what it built so far).
 */
export function tablePrinterForColumns(columns: PrinterColumn[]): TablePrinter {
  const compiled: Compiled[] = [];
  for (const column of columns) {
    try {
      compiled.push({ column, path: compileJsonPath(column.jsonPath) });
    } catch {
      break;
    }
  }
  const defs: TableColumn[] = [nameCol()];
  for (const { column: c } of compiled) {
    const desc = c.description ? c.description : `Custom resource definition column (in JSONPath format): ${c.jsonPath}`;
    defs.push(col(c.name, c.type, desc, c.priority ?? 0, c.format ?? ''));
  }
  return {
    columns: defs,
    cells(obj: KObject, now: Date): unknown[] {
      const cells: unknown[] = [nameOf(obj)];
      for (const { column, path } of compiled) cells.push(cell(path, column.type, obj, now));
      return cells;
    },
  };
}

/** The printer for one served version of a CRD (its columns, or Name and Age). */
export function crdTablePrinter(crd: unknown, version: string): TablePrinter {
  return tablePrinterForColumns(columnsForVersion(crd, version) ?? [defaultAgeColumn]);
}

function cell(path: CompiledJsonPath, type: string, obj: KObject, now: Date): unknown {
  let results: unknown[][];
  try {
    results = path.find(obj);
  } catch {
    return null;
  }
  if (results.length === 0 || results[0].length === 0) return null;
  const value = results[0][0];
  if (type === 'string') return printText(value);
  return cellForJsonValue(type, value, now);
}

/** What upstream's JSONPath printer writes for one value: JSON for maps and lists, Go's %v otherwise. */
export function printText(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goJsonMarshal(value);
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? String(value) : goFloat(value);
  return String(value);
}

const rfc3339Re = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function cellForJsonValue(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      if (value === '' || value === 'null') return '<unknown>';
      if (!rfc3339Re.test(value) || Number.isNaN(Date.parse(value))) return '<invalid>';
      return since(value, now);
    default:
      return null;
  }
}

/**
 * The table of `kubectl get <cr> --subresource=scale`: Name, Desired (`.spec.replicas`) and Available
 * (`.status.replicas`) of the Scale object when the version declares those paths, then Age.
 */
export function crdScaleTablePrinter(scale: { specReplicasPath?: string; statusReplicasPath?: string } | undefined): TablePrinter {
  const cols: PrinterColumn[] = [];
  if (scale?.specReplicasPath) cols.push({ name: 'Desired', type: 'integer', description: 'Number of desired replicas', jsonPath: '.spec.replicas' });
  if (scale?.statusReplicasPath) cols.push({ name: 'Available', type: 'integer', description: 'Number of actual replicas', jsonPath: '.status.replicas' });
  cols.push(defaultAgeColumn);
  return tablePrinterForColumns(cols);
}
