import { AppError } from './errors.js';

/**
 * How GET /v2/entities/{id}/attrs/{name}/value answers, as Orion's manual
 * gives it: an object or array as JSON, in application/json or text/plain
 * (whichever the Accept header names first; application/json for any type);
 * a string, number, boolean or null only as text/plain, written as JSON (a
 * string keeps its quotes). Accept allowing neither is a 406.
 */

export type ValueMediaType = 'application/json' | 'text/plain';

/** The media ranges of an Accept header, in the order given (those with q=0 left out); none means any. */
function mediaRanges(accept: string | undefined): string[] {
  if (accept === undefined || accept.trim() === '') return ['*/*'];
  return accept.split(',').flatMap((part) => {
    const [range, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (!range) return [];
    const refused = params.some((p) => /^q=0(\.0*)?$/.test(p));
    return refused ? [] : [range];
  });
}

const allows = (range: string, type: ValueMediaType): boolean => range === '*/*' || range === type || range === `${type.split('/')[0]}/*`;

export function valueMediaType(value: unknown, accept: string | undefined): ValueMediaType {
  const ranges = mediaRanges(accept);
  if (typeof value === 'object' && value !== null) {
    for (const range of ranges) {
      if (range === '*/*' || allows(range, 'application/json')) return 'application/json';
      if (allows(range, 'text/plain')) return 'text/plain';
    }
    throw new AppError('NOT_ACCEPTABLE', 'Not Acceptable: accepted MIME types: application/json, text/plain');
  }
  if (ranges.some((range) => allows(range, 'text/plain'))) return 'text/plain';
  throw new AppError('NOT_ACCEPTABLE', 'Not Acceptable: accepted MIME types: text/plain');
}
