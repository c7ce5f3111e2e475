/**
 * JSON text kept to ASCII, so that a large body can be turned into bytes by
 * the one-byte (latin1) encoder, which copies, instead of the UTF-8 encoder,
 * which for a body of a thousand readings costs more than building it. Other
 * characters are written as \u escapes: the same JSON to any parser.
 */

/** Printable ASCII but the quote and the backslash: the text is its own JSON string body. */
const PLAIN = /^[ !#-[\]-~]*$/;
const NOT_ASCII = /[\u0080-\uffff]/;
const NOT_ASCII_ALL = /[\u0080-\uffff]/g;

const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The JSON string literal of `text`, in ASCII only. */
export function asciiQuote(text: string): string {
  if (PLAIN.test(text)) return `"${text}"`;
  const quoted = JSON.stringify(text);
  return NOT_ASCII.test(quoted) ? quoted.replace(NOT_ASCII_ALL, escapeChar) : quoted;
}

/** The bytes of JSON text written with asciiQuote (and nothing else outside ASCII). */
export function asciiBytes(json: string): Buffer {
  return Buffer.from(json, 'latin1');
}
