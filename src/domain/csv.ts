/**
 * CSV as RFC 4180 writes it: CRLF line ends, a header row, and a field quoted
 * (inner quotes doubled) only when it holds a comma, a quote or a line break.
 */

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The whole document: the header row, then one row per record, each line ended by CRLF. */
export function csvDocument(header: readonly string[], rows: Iterable<readonly string[]>): string {
  let out = header.map(csvField).join(',') + '\r\n';
  for (const row of rows) out += row.map(csvField).join(',') + '\r\n';
  return out;
}
