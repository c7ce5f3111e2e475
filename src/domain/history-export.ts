/**
 * The query of a history export (GET /datasource/{assetId}/export) and the
 * name of the file it is saved as.
 */
import { parseHistoryQuery, timeIndexOf, type RawQuery, type TimeIndex, type TimeRange } from './history-query.js';
import { invalidParameter as invalid } from './query-parameter.js';

export interface ExportQuery {
  attrName: string | undefined;
  range: TimeRange | undefined;
  timeIndex: TimeIndex;
  /** `?type=`: when given, the asset must be of that type. */
  type: string | undefined;
}

export function parseExportQuery(raw: RawQuery): ExportQuery {
  // from/to are read by the one rule of every history query.
  const { range } = parseHistoryQuery({ from: raw.from, to: raw.to }, 'asset');
  if (raw.attr === '') throw invalid('attr', 'must name an attribute when given');
  return { attrName: raw.attr, range, timeIndex: timeIndexOf(raw), type: raw.type };
}

/** A file name any system takes: the asset id (and attribute) with every other character than letters, digits, '.', '-' and '_' made '_'. */
export function exportFileName(assetId: string, attrName: string | undefined, extension: 'csv' | 'ndjson'): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 150);
  return `${safe(assetId)}${attrName === undefined ? '' : `.${safe(attrName)}`}.${extension}`;
}
