import { AppError, badRequest } from './errors.js';
import { isAttrsFormat, parseAttributeList, type AttrsFormat } from './ngsi-entity-format.js';
import { parseGeoRelation, type GeoQueryText, type GeoRelation } from './ngsi-georel.js';
import { parseSimpleQuery, type SimpleQuery } from './ngsi-simple-query.js';
import { hasNestedRepetition } from './pattern-safety.js';
import { readWholeNumber } from './whole-number.js';

/**
 * A query over a site's entities, as GET /v2/entities and POST /v2/op/query
 * give it (Orion's manual, "List Entities" and "Query"): which entities, in
 * what order, which page, and how they are written out. Parsing refuses what
 * it cannot read with a 400 naming the field; the store takes the parts SQL
 * answers well (ids, types, paging, counts, a bounding box) and the rest is
 * evaluated in memory (./ngsi-entity-evaluation.ts).
 */

/** One entity selector: all of its conditions hold. */
export interface EntitySelector {
  ids?: readonly string[];
  idPattern?: RegExp;
  types?: readonly string[];
  typePattern?: RegExp;
}

/** Properties an entity can be ordered by besides its attributes (Orion's builtins). */
export type BuiltinOrder = 'id' | 'type' | 'dateCreated' | 'dateModified';

export type OrderKey =
  | { by: 'builtin'; name: BuiltinOrder; descending: boolean }
  | { by: 'attribute'; name: string; descending: boolean }
  | { by: 'distance' };

export interface EntityQuery {
  /** Any one selector matching is enough; none means every entity of the site. */
  selectors: readonly EntitySelector[];
  q?: SimpleQuery | undefined;
  geo?: GeoRelation | undefined;
  attrs?: readonly string[] | undefined;
  /** Empty: creation order. */
  orderBy: readonly OrderKey[];
  limit: number;
  offset: number;
  count: boolean;
  format: AttrsFormat;
  /** `options=unique`: the values format, repeated values left out. */
  unique: boolean;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
/** Ids, types or entity selectors one query may list (as many as a batch may write). */
export const MAX_LISTED = 1000;
/** A regular expression longer than this is refused (they are compiled per request). */
const MAX_PATTERN_LENGTH = 1024;
const BUILTIN_ORDERS: readonly BuiltinOrder[] = ['id', 'type', 'dateCreated', 'dateModified'];

/** The options a listing understands; `skipForwarding` is accepted and has nothing to skip. */
const LIST_OPTIONS = ['count', 'keyValues', 'values', 'unique', 'skipForwarding'] as const;
/** The options a read of one entity understands. */
export const ENTITY_OPTIONS = ['keyValues', 'values', 'unique', 'skipForwarding'] as const;

/** The description of a parse failure, prefixed with the field it concerns. */
function naming<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof AppError && error.code === 'BAD_REQUEST') {
      throw badRequest(`Invalid ${field}: ${error.message.replace(/^Invalid [a-z ]+: /i, '')}`);
    }
    throw error;
  }
}

function compilePattern(field: string, source: string): RegExp {
  if (source === '') throw badRequest(`Invalid ${field}: empty regular expression`);
  if (source.length > MAX_PATTERN_LENGTH) throw badRequest(`Invalid ${field}: longer than ${MAX_PATTERN_LENGTH} characters`);
  let pattern: RegExp;
  try {
    pattern = new RegExp(source, 'u');
  } catch {
    throw badRequest(`Invalid ${field}: ${JSON.stringify(source)} is not a valid regular expression`);
  }
  if (hasNestedRepetition(source)) throw badRequest(`Invalid ${field}: ${JSON.stringify(source)} repeats a group that holds a repetition`);
  return pattern;
}

/** The format and the count flag an `options` list asks for; an option not in `allowed` is a 400. */
export function parseOptions(text: string | undefined, allowed: readonly string[]): { format: AttrsFormat; unique: boolean; count: boolean } {
  const options = text === undefined ? [] : text.split(',').map((o) => o.trim()).filter((o) => o !== '');
  const unknown = options.find((o) => !allowed.includes(o));
  if (unknown !== undefined) throw badRequest(`Invalid options: ${JSON.stringify(unknown)} is not supported here (${allowed.join(', ')})`);
  const formats = [...new Set(options.filter((o) => isAttrsFormat(o) || o === 'unique'))];
  if (formats.length > 1) throw badRequest(`Invalid options: ${formats.join(' and ')} exclude each other`);
  const unique = formats[0] === 'unique';
  const format: AttrsFormat = unique ? 'values' : ((formats[0] as AttrsFormat | undefined) ?? 'normalized');
  return { format, unique, count: options.includes('count') };
}

/** `orderBy`: comma-separated keys, `!` for descending, none repeated; `geo:distance` only with `near`. */
export function parseOrderBy(text: string, geo: GeoRelation | undefined): OrderKey[] {
  const keys = parseAttributeList('orderBy', text);
  const seen = new Set<string>();
  return keys.map((key): OrderKey => {
    const descending = key.startsWith('!');
    const name = descending ? key.slice(1) : key;
    if (name === '') throw badRequest(`Invalid orderBy: empty key in ${JSON.stringify(text)}`);
    if (seen.has(name)) throw badRequest(`Invalid orderBy: ${JSON.stringify(name)} is given more than once`);
    seen.add(name);
    if (name === 'geo:distance') {
      if (descending || keys.length > 1) throw badRequest('Invalid orderBy: geo:distance stands alone, ascending');
      if (geo?.relation !== 'near') throw badRequest('Invalid orderBy: geo:distance needs georel=near');
      return { by: 'distance' };
    }
    if ((BUILTIN_ORDERS as readonly string[]).includes(name)) return { by: 'builtin', name: name as BuiltinOrder, descending };
    return { by: 'attribute', name, descending };
  });
}

/** `limit` (1–1000, default 20) and `offset` (≥ 0, default 0), as text or JSON numbers. */
export function parsePaging(limit: unknown, offset: unknown): { limit: number; offset: number } {
  let parsedLimit = DEFAULT_LIMIT;
  if (limit !== undefined) {
    const n = readWholeNumber(limit);
    if (n === undefined || n < 1 || n > MAX_LIMIT) throw badRequest(`Invalid limit: must be a whole number from 1 to ${MAX_LIMIT}`);
    parsedLimit = n;
  }
  let parsedOffset = 0;
  if (offset !== undefined) {
    const n = readWholeNumber(offset);
    if (n === undefined || n < 0 || !Number.isSafeInteger(n)) throw badRequest('Invalid offset: must be a whole number, 0 or more');
    parsedOffset = n;
  }
  return { limit: parsedLimit, offset: parsedOffset };
}

/** The URI parameters of GET /v2/entities, each a single text. */
export interface ListParameters extends GeoQueryText {
  id?: string | undefined;
  idPattern?: string | undefined;
  type?: string | undefined;
  typePattern?: string | undefined;
  q?: string | undefined;
  mq?: string | undefined;
  attrs?: string | undefined;
  metadata?: string | undefined;
  limit?: string | undefined;
  offset?: string | undefined;
  orderBy?: string | undefined;
  options?: string | undefined;
}

function selectorOf(field: (name: string) => string, given: { id?: string | undefined; idPattern?: string | undefined; type?: string | undefined; typePattern?: string | undefined }, lists: boolean): EntitySelector {
  if (given.id !== undefined && given.idPattern !== undefined) throw badRequest(`Invalid ${field('idPattern')}: id and idPattern exclude each other`);
  if (given.type !== undefined && given.typePattern !== undefined) throw badRequest(`Invalid ${field('typePattern')}: type and typePattern exclude each other`);
  const selector: EntitySelector = {};
  const list = (name: string, text: string): string[] => {
    if (text === '') throw badRequest(`Invalid ${field(name)}: empty`);
    if (!lists) return [text];
    const names = parseAttributeList(field(name), text);
    if (names.length > MAX_LISTED) throw badRequest(`Invalid ${field(name)}: more than ${MAX_LISTED} names`);
    return names;
  };
  if (given.id !== undefined) selector.ids = list('id', given.id);
  if (given.type !== undefined) selector.types = list('type', given.type);
  if (given.idPattern !== undefined) selector.idPattern = compilePattern(field('idPattern'), given.idPattern);
  if (given.typePattern !== undefined) selector.typePattern = compilePattern(field('typePattern'), given.typePattern);
  return selector;
}

const unsupported = (field: string): AppError => badRequest(`Invalid ${field}: metadata filters and selections are not supported`);

/** GET /v2/entities. */
export function parseListParameters(p: ListParameters): EntityQuery {
  if (p.mq !== undefined) throw unsupported('mq');
  if (p.metadata !== undefined) throw unsupported('metadata');
  const selector = selectorOf((n) => n, p, true);
  const empty = Object.keys(selector).length === 0;
  const q = p.q === undefined ? undefined : naming('q', () => parseSimpleQuery(p.q as string));
  const geo = parseGeo('', p);
  const attrs = p.attrs === undefined ? undefined : parseAttributeList('attrs', p.attrs);
  const orderBy = p.orderBy === undefined ? [] : parseOrderBy(p.orderBy, geo);
  return { selectors: empty ? [] : [selector], q, geo, attrs, orderBy, ...parsePaging(p.limit, p.offset), ...parseOptions(p.options, LIST_OPTIONS) };
}

function parseGeo(prefix: string, text: GeoQueryText): GeoRelation | undefined {
  const field = (name: string) => `${prefix}${name}`;
  try {
    return parseGeoRelation(text);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const which = /^Invalid (georel|geometry|coords)/.exec(error.message)?.[1] ?? 'georel';
    throw badRequest(`Invalid ${field(which)}: ${error.message.replace(/^Invalid [a-z ]+: /i, '')}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw badRequest(`Invalid ${field}: unknown field ${JSON.stringify(extra)}`);
}

function optionalText(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`Invalid ${field}: must be a string`);
  return value;
}

function stringList(field: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) throw badRequest(`Invalid ${field}: must be an array of attribute names`);
  return value as string[];
}

/** The URI parameters of POST /v2/op/query. */
export interface QueryOperationParameters {
  limit?: string | undefined;
  offset?: string | undefined;
  orderBy?: string | undefined;
  options?: string | undefined;
}

/** POST /v2/op/query: the body names the entities, attributes and expression; paging and options come from the URI. */
export function parseQueryOperation(body: unknown, p: QueryOperationParameters): EntityQuery {
  if (!isRecord(body)) throw badRequest('Invalid body: must be a JSON object');
  onlyKeys('body', body, ['entities', 'attrs', 'expression', 'metadata']);
  if (body.metadata !== undefined) throw unsupported('metadata');
  let selectors: EntitySelector[] = [];
  if (body.entities !== undefined) {
    if (!Array.isArray(body.entities)) throw badRequest('Invalid entities: must be an array');
    if (body.entities.length > MAX_LISTED) throw badRequest(`Invalid entities: more than ${MAX_LISTED} selectors`);
    selectors = body.entities.map((entity, i) => {
      const at = `entities[${i}]`;
      if (!isRecord(entity)) throw badRequest(`Invalid ${at}: must be an object`);
      onlyKeys(at, entity, ['id', 'idPattern', 'type', 'typePattern']);
      const given = {
        id: optionalText(`${at}.id`, entity.id),
        idPattern: optionalText(`${at}.idPattern`, entity.idPattern),
        type: optionalText(`${at}.type`, entity.type),
        typePattern: optionalText(`${at}.typePattern`, entity.typePattern),
      };
      if (given.id === undefined && given.idPattern === undefined) throw badRequest(`Invalid ${at}: id or idPattern is required`);
      return selectorOf((n) => `${at}.${n}`, given, false);
    });
  }
  const attrs = stringList('attrs', body.attrs);
  let q: SimpleQuery | undefined;
  let geo: GeoRelation | undefined;
  if (body.expression !== undefined) {
    const expression = body.expression;
    if (!isRecord(expression)) throw badRequest('Invalid expression: must be an object');
    onlyKeys('expression', expression, ['q', 'mq', 'georel', 'geometry', 'coords']);
    if (expression.mq !== undefined) throw unsupported('expression.mq');
    const qText = optionalText('expression.q', expression.q);
    q = qText === undefined ? undefined : naming('expression.q', () => parseSimpleQuery(qText));
    geo = parseGeo('expression.', {
      georel: optionalText('expression.georel', expression.georel),
      geometry: optionalText('expression.geometry', expression.geometry),
      coords: optionalText('expression.coords', expression.coords),
    });
  }
  const orderBy = p.orderBy === undefined ? [] : parseOrderBy(p.orderBy, geo);
  return { selectors, q, geo, attrs, orderBy, ...parsePaging(p.limit, p.offset), ...parseOptions(p.options, LIST_OPTIONS) };
}
