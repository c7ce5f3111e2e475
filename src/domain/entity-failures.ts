import { AppError } from './errors.js';

/**
 * Why entities of an NGSI write were not written, and the answer Orion gives
 * for them: its descriptions name each entity (`id`, or `id/type` when the
 * request gave the type) and the attributes that failed, e.g.
 * `do not exist: E/T - [ A, B ], G [entity itself]`.
 */

/** An entity as the request named it. */
export interface EntityRef {
  id: string;
  type?: string | undefined;
}

export type EntityFailure =
  | { entity: EntityRef; kind: 'not-found' }
  | { entity: EntityRef; kind: 'missing'; attributes: readonly string[] }
  | { entity: EntityRef; kind: 'existing'; attributes: readonly string[] }
  /** Refused by the checks of its single operation (the reason is that operation's description). */
  | { entity: EntityRef; kind: 'invalid'; reason: string };

const named = (e: EntityRef): string => (e.type === undefined ? e.id : `${e.id}/${e.type}`);
const attributeList = (names: readonly string[]): string => `[ ${names.join(', ')} ]`;

/** Orion's description of the failures, in request order within each group. */
export function describeFailures(failures: readonly EntityFailure[]): string {
  const absent: string[] = [];
  const existing: string[] = [];
  const invalid: string[] = [];
  for (const f of failures) {
    if (f.kind === 'not-found') absent.push(`${named(f.entity)} [entity itself]`);
    else if (f.kind === 'missing') absent.push(`${named(f.entity)} - ${attributeList(f.attributes)}`);
    else if (f.kind === 'existing') existing.push(`${named(f.entity)} - ${attributeList(f.attributes)}`);
    else invalid.push(`${named(f.entity)} (${f.reason})`);
  }
  const groups: string[] = [];
  if (absent.length > 0) groups.push(`do not exist: ${absent.join(', ')}`);
  if (existing.length > 0) groups.push(`one or more of the attributes in the request already exist: ${existing.join(', ')}`);
  if (invalid.length > 0) groups.push(`not valid: ${invalid.join(', ')}`);
  return groups.join('; ');
}

/**
 * The answer to a write of several entities (not atomic: what was valid is
 * written): none when every one was written; 404 when none existed; 422
 * `Unprocessable` when none was written for other reasons; 422
 * `PartialUpdate` when some were.
 */
export function failureAnswer(written: number, failures: readonly EntityFailure[]): AppError | undefined {
  if (failures.length === 0) return undefined;
  const description = describeFailures(failures);
  if (written > 0) return new AppError('PARTIAL_UPDATE', description);
  if (failures.every((f) => f.kind === 'not-found')) return new AppError('ASSET_NOT_FOUND', description);
  return new AppError('UNPROCESSABLE', description);
}
