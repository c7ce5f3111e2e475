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

/** Readings a chunk of the body holds: a chunk's text and bytes stay among the heap's small objects. */
const EXPORT_CHUNK = 256;

/**
 * Writes the lines of an export, page after page, as chunks of bytes. Consecutive readings share
 * their times (the attributes of one update), and an asset has few attributes:
 * each time text is written once per run of equal ones, and each attribute's
 * name and type once per export.
 */
export function exportWriter(format: BodyFormat): (page: readonly ExportedReading[]) => Buffer[] {
  const csv = format === 'csv';
  const names = new Map<string, { type: string; text: string }>();
  const namesText = (name: string, type: string): string => {
    const known = names.get(name);
    if (known?.type === type) return known.text;
    const text = csv ? `${csvField(name)},${csvField(type)},` : `${asciiQuote(name)},"attrType":${asciiQuote(type)},"attrValue":`;
    names.set(name, { type, text });
    return text;
  };
  const chunk = (readings: readonly ExportedReading[], start: number, end: number): Buffer => {
    let out = '';
    let recv = Number.NaN;
    let observed = Number.NaN;
    let timesText = '';
    for (let i = start; i < end; i++) {
      const r = readings[i]!;
      if (r.recvTime !== recv || r.observedTime !== observed) {
        recv = r.recvTime;
        observed = r.observedTime;
        timesText = csv
          ? `${formatRecvTime(recv)},${formatRecvTime(observed)},`
          : `{"recvTime":"${formatRecvTime(recv)}","observedAt":"${formatRecvTime(observed)}","attrName":`;
      }
      out += csv
        ? `${timesText}${namesText(r.attrName, r.attrType)}${csvField(r.attrValue)}\r\n`
        : `${timesText}${namesText(r.attrName, r.attrType)}${asciiQuote(r.attrValue)}}\n`;
    }
    return csv ? Buffer.from(out, 'utf8') : asciiBytes(out);
  };
  return (page) => {
    const chunks: Buffer[] = [];
    for (let start = 0; start < page.length; start += EXPORT_CHUNK) chunks.push(chunk(page, start, Math.min(page.length, start + EXPORT_CHUNK)));
    return chunks;
  };
}
