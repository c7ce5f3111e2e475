/**
 * The lines of a history export: CSV rows (RFC 4180) under one header, or
 * NDJSON, one reading per line. Both carry the receive and the observation time.
 */
import { csvField } from '../../domain/csv.js';
import { formatRecvTime } from '../../domain/history-dates.js';
import { asciiQuote } from '../../http/ascii-json.js';
import { ByteChunks, utf8Bound } from '../../http/byte-chunks.js';
import type { ExportedReading } from '../../storage/repositories/reading-export.js';
import type { BodyFormat } from './render.js';

export const NDJSON_TYPE = 'application/x-ndjson';

export function exportHeader(format: BodyFormat): Buffer | undefined {
  return format === 'csv' ? Buffer.from('recvTime,observedAt,attrName,attrType,attrValue\r\n') : undefined;
}

/**
 * Writes the lines of an export, page after page, as chunks of bytes. Consecutive readings share
 * their times (the attributes of one update), and an asset has few attributes:
 * each time text is written once per run of equal ones, and each attribute's
 * name and type once per export, then copied as bytes into every line.
 */
export function exportWriter(format: BodyFormat): (page: readonly ExportedReading[]) => Buffer[] {
  const csv = format === 'csv';
  const names = new Map<string, { type: string; bytes: Buffer }>();
  const namesBytes = (name: string, type: string): Buffer => {
    const known = names.get(name);
    if (known?.type === type) return known.bytes;
    const text = csv ? `${csvField(name)},${csvField(type)},` : `${asciiQuote(name)},"attrType":${asciiQuote(type)},"attrValue":`;
    const bytes = Buffer.from(text, 'utf8');
    names.set(name, { type, bytes });
    return bytes;
  };
  const out = new ByteChunks();
  const lineEnd = csv ? '\r\n' : '}\n';
  let recv = Number.NaN;
  let observed = Number.NaN;
  let timesBytes = Buffer.alloc(0);
  return (page) => {
    for (const r of page) {
      if (r.recvTime !== recv || r.observedTime !== observed) {
        recv = r.recvTime;
        observed = r.observedTime;
        const recvText = formatRecvTime(recv);
        const observedText = observed === recv ? recvText : formatRecvTime(observed);
        timesBytes = Buffer.from(csv
          ? `${recvText},${observedText},`
          : `{"recvTime":"${recvText}","observedAt":"${observedText}","attrName":`, 'latin1');
      }
      const namePart = namesBytes(r.attrName, r.attrType);
      const value = csv ? csvField(r.attrValue) : asciiQuote(r.attrValue);
      out.reserve(timesBytes.length + namePart.length + utf8Bound(value) + lineEnd.length);
      out.bytes(timesBytes);
      out.bytes(namePart);
      out.text(value);
      out.text(lineEnd);
    }
    return out.take();
  };
}
