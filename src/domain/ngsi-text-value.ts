import { badRequest } from './errors.js';

/**
 * A value sent as `text/plain` to PUT …/attrs/{attr}/value, as Orion reads it:
 * a number, true, false, null, or a string in double quotes. Objects and
 * arrays come as application/json.
 */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export function readTextValue(text: string): unknown {
  const t = text.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null') return null;
  if (JSON_NUMBER.test(t)) return Number(t);
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      // falls through to the description below
    }
  }
  throw badRequest('A text/plain value must be a number, true, false, null or a string in double quotes; send objects and arrays as application/json');
}
