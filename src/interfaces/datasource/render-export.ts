/**
 * The lines of a history export: CSV rows (RFC 4180) under one header, or
 * NDJSON, one reading per line. Both carry the receive and the observation time.
 */
import { csvField } from '../../domain/csv.js';
import { formatRecvTime } from '../../domain/history-dates.js';
import { asciiBytes, asciiQuote } from '../../http/ascii-json.js';
import type { ExportedReading } from '../../storage/repositories/reading-export.js';
import type { BodyFormat } from './render.js';

export const NDJSON_TYPE = 'application/x-ndjson';

export function exportHeader(format: BodyFormat): Buffer | undefined {
  return format === 'csv' ? Buffer.from('recvTime,observedAt,attrName,attrType,attrValue\r\n') : undefined;
}

export function exportLines(readings: readonly ExportedReading[], format: BodyFormat): Buffer {
  const csv = format === 'csv';
  let out = '';
  // Consecutive readings share their times (the attributes of one update) or their name and type
  // (one attribute's history): each part of a line is written once per run of equal ones.
  let recv = Number.NaN;
  let observed = Number.NaN;
  let timesText = '';
  let name: string | undefined;
  let type: string | undefined;
  let namesText = '';
  for (const r of readings) {
    if (r.recvTime !== recv || r.observedTime !== observed) {
      recv = r.recvTime;
      observed = r.observedTime;
      timesText = csv
        ? `${formatRecvTime(recv)},${formatRecvTime(observed)},`
        : `{"recvTime":"${formatRecvTime(recv)}","observedAt":"${formatRecvTime(observed)}","attrName":`;
    }
    if (r.attrName !== name || r.attrType !== type) {
      name = r.attrName;
      type = r.attrType;
      namesText = csv ? `${csvField(name)},${csvField(type)},` : `${asciiQuote(name)},"attrType":${asciiQuote(type)},"attrValue":`;
    }
    out += csv ? `${timesText}${namesText}${csvField(r.attrValue)}\r\n` : `${timesText}${namesText}${asciiQuote(r.attrValue)}}\n`;
  }
  return csv ? Buffer.from(out, 'utf8') : asciiBytes(out);
}
