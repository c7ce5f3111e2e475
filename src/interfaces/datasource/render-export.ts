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
  let out = '';
  // Names and types repeat from one reading to the next: each is quoted once per run of equal ones.
  let name: string | undefined;
  let nameText = '';
  let type: string | undefined;
  let typeText = '';
  for (const r of readings) {
    if (r.attrName !== name) nameText = format === 'csv' ? csvField((name = r.attrName)) : asciiQuote((name = r.attrName));
    if (r.attrType !== type) typeText = format === 'csv' ? csvField((type = r.attrType)) : asciiQuote((type = r.attrType));
    if (format === 'csv') {
      out += `${formatRecvTime(r.recvTime)},${formatRecvTime(r.observedTime)},${nameText},${typeText},${csvField(r.attrValue)}\r\n`;
    } else {
      out += `{"recvTime":"${formatRecvTime(r.recvTime)}","observedAt":"${formatRecvTime(r.observedTime)}","attrName":${nameText},"attrType":${typeText},"attrValue":${asciiQuote(r.attrValue)}}\n`;
    }
  }
  return format === 'csv' ? Buffer.from(out, 'utf8') : asciiBytes(out);
}
