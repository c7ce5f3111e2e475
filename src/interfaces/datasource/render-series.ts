/**
 * The body of a multi-asset answer: one series per asset, each the body its
 * asset would have alone. JSON: {"series":[{"assetId":…, "readings"|"values"|"aggregates":…}]};
 * CSV: the tables of every series under one header, each row led by its assetId.
 */
import { csvDocument } from '../../domain/csv.js';
import type { CsvTable } from './render.js';

/** A series' JSON body alone: an object (readings, aggregates) or an array (values). */
export interface JsonSeries {
  assetId: string;
  json: Buffer;
}

export interface CsvSeries {
  assetId: string;
  table: CsvTable;
}

export function seriesJson(parts: readonly JsonSeries[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('{"series":[')];
  parts.forEach((part, i) => {
    const head = `${i > 0 ? ',' : ''}{"assetId":${JSON.stringify(part.assetId)},`;
    // An object body is spliced in (its members join the assetId's); an array is the values.
    if (part.json[0] === 0x7b) chunks.push(Buffer.from(head), part.json.subarray(1));
    else chunks.push(Buffer.from(`${head}"values":`), part.json, Buffer.from('}'));
  });
  chunks.push(Buffer.from(']}'));
  return Buffer.concat(chunks);
}

export function seriesCsv(parts: readonly CsvSeries[], header: readonly string[]): Buffer {
  const rows = parts.flatMap((part) => part.table.rows.map((row) => [part.assetId, ...row]));
  return Buffer.from(csvDocument(['assetId', ...header], rows), 'utf8');
}
