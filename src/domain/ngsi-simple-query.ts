import { badRequest } from './errors.js';
import { hasNestedRepetition } from './pattern-safety.js';
import { parseInstant } from './time-instant.js';

/**
 * NGSI v2's Simple Query Language (the `q` of GET /v2/entities, of
 * /v2/op/query and of a subscription's `condition.expression.q`), as Orion's
 * manual defines it: statements joined by `;` (all must hold), each one of
 *   `attr`            the attribute exists
 *   `!attr`           the attribute does not exist
 *   `attr==v`         equal; `v` may be a list `a,b,c` (any) or a range `a..b`
 *   `attr!=v`         present and not equal (lists and ranges too)
 *   `attr>v` `attr>=v` `attr<v` `attr<=v`
 *   `attr~=regex`     a text value matching the pattern
 * `attr` may be a path into a compound value (`a.b.c`); a name holding dots is
 * quoted (`'a.b'`). A value in single quotes is always text; otherwise a
 * number, `true`/`false`, or an ISO 8601 instant compares as such.
 */

export type Literal = { kind: 'number'; value: number } | { kind: 'boolean'; value: boolean } | { kind: 'text'; value: string; quoted: boolean };

export type Operand = { kind: 'one'; value: Literal } | { kind: 'list'; values: Literal[] } | { kind: 'range'; from: Literal; to: Literal };

export type Statement =
  | { op: 'exists' | 'absent'; path: string[] }
  | { op: '==' | '!='; path: string[]; operand: Operand }
  | { op: '<' | '<=' | '>' | '>='; path: string[]; value: Literal }
  | { op: '~='; path: string[]; pattern: RegExp };

/** A parsed query: every statement must hold. */
export type SimpleQuery = readonly Statement[];

/** What a query is evaluated against: an entity's attributes, in normalized form. */
export type QueryAttributes = Readonly<Record<string, { value: unknown } | undefined>>;

/** Queries longer than this are refused (Orion bounds its URI parameters alike). */
export const MAX_QUERY_LENGTH = 4096;

const OPERATORS = ['==', '!=', '>=', '<=', '~=', '>', '<'] as const;
const FORBIDDEN = /[<>"=;()']/;

/** Splits on `separator` outside single quotes. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "'") quoted = !quoted;
    if (!quoted && text.startsWith(separator, i)) {
      parts.push(current);
      current = '';
      i += separator.length - 1;
      continue;
    }
    current += ch;
  }
  if (quoted) throw badRequest(`Invalid query: unterminated quote in ${JSON.stringify(text)}`);
  parts.push(current);
  return parts;
}

function parsePath(text: string, statement: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') throw badRequest(`Invalid query: no attribute name in ${JSON.stringify(statement)}`);
  const path = splitOutsideQuotes(trimmed, '.').map((part) => {
    const unquoted = part.startsWith("'") && part.endsWith("'") && part.length >= 2 ? part.slice(1, -1) : part;
    if (unquoted === '' || FORBIDDEN.test(unquoted) || /\s/.test(unquoted)) {
      throw badRequest(`Invalid query: invalid attribute name ${JSON.stringify(trimmed)}`);
    }
    return unquoted;
  });
  return path;
}

function parseLiteral(text: string, statement: string): Literal {
  const trimmed = text.trim();
  if (trimmed.startsWith("'")) {
    if (trimmed.length < 2 || !trimmed.endsWith("'")) throw badRequest(`Invalid query: unterminated quote in ${JSON.stringify(statement)}`);
    return { kind: 'text', value: trimmed.slice(1, -1), quoted: true };
  }
  if (trimmed === '') throw badRequest(`Invalid query: no value in ${JSON.stringify(statement)}`);
  if (trimmed === 'true' || trimmed === 'false') return { kind: 'boolean', value: trimmed === 'true' };
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return { kind: 'number', value: Number(trimmed) };
  if (FORBIDDEN.test(trimmed)) throw badRequest(`Invalid query: invalid value ${JSON.stringify(trimmed)}`);
  return { kind: 'text', value: trimmed, quoted: false };
}

function parseOperand(text: string, statement: string): Operand {
  const list = splitOutsideQuotes(text, ',');
  if (list.length > 1) return { kind: 'list', values: list.map((item) => parseLiteral(item, statement)) };
  const range = splitOutsideQuotes(text, '..');
  if (range.length === 2) return { kind: 'range', from: parseLiteral(range[0] as string, statement), to: parseLiteral(range[1] as string, statement) };
  if (range.length > 2) throw badRequest(`Invalid query: invalid range in ${JSON.stringify(statement)}`);
  return { kind: 'one', value: parseLiteral(text, statement) };
}

/** The first operator outside quotes, with where it stands. */
function findOperator(statement: string): { op: (typeof OPERATORS)[number]; at: number } | undefined {
  let quoted = false;
  for (let i = 0; i < statement.length; i++) {
    if (statement[i] === "'") quoted = !quoted;
    if (quoted) continue;
    const op = OPERATORS.find((candidate) => statement.startsWith(candidate, i));
    if (op) return { op, at: i };
  }
  return undefined;
}

function parseStatement(statement: string): Statement {
  const found = findOperator(statement);
  if (!found) {
    const trimmed = statement.trim();
    if (trimmed.startsWith('!')) return { op: 'absent', path: parsePath(trimmed.slice(1), statement) };
    return { op: 'exists', path: parsePath(trimmed, statement) };
  }
  const path = parsePath(statement.slice(0, found.at), statement);
  const right = statement.slice(found.at + found.op.length);
  switch (found.op) {
    case '==':
    case '!=':
      return { op: found.op, path, operand: parseOperand(right, statement) };
    case '~=': {
      const source = right.trim().replace(/^'(.*)'$/s, '$1');
      if (source === '') throw badRequest(`Invalid query: no pattern in ${JSON.stringify(statement)}`);
      if (hasNestedRepetition(source)) throw badRequest(`Invalid query: the regular expression ${JSON.stringify(source)} repeats a group that holds a repetition`);
      try {
        return { op: '~=', path, pattern: new RegExp(source, 'u') };
      } catch {
        throw badRequest(`Invalid query: invalid regular expression ${JSON.stringify(source)}`);
      }
    }
    default: {
      const value = parseLiteral(right, statement);
      return { op: found.op, path, value };
    }
  }
}

/** Parses a `q`; a text it cannot read is a 400 naming what is wrong. */
export function parseSimpleQuery(text: string): SimpleQuery {
  if (text.length > MAX_QUERY_LENGTH) throw badRequest(`Invalid query: longer than ${MAX_QUERY_LENGTH} characters`);
  const statements = splitOutsideQuotes(text, ';').filter((s) => s.trim() !== '');
  if (statements.length === 0) throw badRequest('Invalid query: empty q');
  return statements.map(parseStatement);
}

/** The value at a path: the attribute's value, then members of compound values. */
function valueAt(attributes: QueryAttributes, path: readonly string[]): { found: boolean; value: unknown } {
  const [name, ...rest] = path as [string, ...string[]];
  const attribute = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
  if (!attribute) return { found: false, value: undefined };
  let value: unknown = attribute.value;
  for (const key of rest) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return { found: false, value: undefined };
    value = (value as Record<string, unknown>)[key];
  }
  return { found: true, value };
}

const instantOf = (text: string): number | undefined => {
  const parsed = parseInstant(text);
  if (parsed.ok) return parsed.epochMs;
  const loose = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isFinite(loose) ? loose : undefined;
};

/**
 * Compares a stored value with a literal: numbers with numbers, instants with
 * instants, text with text; values of other kinds are not comparable
 * (undefined), so the statement does not hold.
 */
function compare(value: unknown, literal: Literal): number | undefined {
  if (literal.kind === 'number') {
    if (typeof value === 'number') return value - literal.value;
    return undefined;
  }
  if (literal.kind === 'boolean') return typeof value === 'boolean' && value === literal.value ? 0 : typeof value === 'boolean' ? 1 : undefined;
  if (typeof value !== 'string') return undefined;
  if (!literal.quoted) {
    const a = instantOf(value);
    const b = instantOf(literal.value);
    if (a !== undefined && b !== undefined) return a - b;
  }
  return value < literal.value ? -1 : value > literal.value ? 1 : 0;
}

function equalsOperand(value: unknown, operand: Operand): boolean {
  const candidates = Array.isArray(value) ? value : [value];
  return candidates.some((candidate) => {
    switch (operand.kind) {
      case 'one':
        return compare(candidate, operand.value) === 0;
      case 'list':
        return operand.values.some((literal) => compare(candidate, literal) === 0);
      case 'range': {
        const low = compare(candidate, operand.from);
        const high = compare(candidate, operand.to);
        return low !== undefined && high !== undefined && low >= 0 && high <= 0;
      }
    }
  });
}

function holds(statement: Statement, attributes: QueryAttributes): boolean {
  const { found, value } = valueAt(attributes, statement.path);
  switch (statement.op) {
    case 'exists':
      return found;
    case 'absent':
      return !found;
    case '==':
      return found && equalsOperand(value, statement.operand);
    case '!=':
      return found && !equalsOperand(value, statement.operand);
    case '~=':
      return found && typeof value === 'string' && statement.pattern.test(value);
    default: {
      if (!found) return false;
      const order = compare(value, statement.value);
      if (order === undefined) return false;
      if (statement.op === '<') return order < 0;
      if (statement.op === '<=') return order <= 0;
      if (statement.op === '>') return order > 0;
      return order >= 0;
    }
  }
}

/** Whether an entity's attributes satisfy every statement of the query. */
export function matchesSimpleQuery(query: SimpleQuery, attributes: QueryAttributes): boolean {
  return query.every((statement) => holds(statement, attributes));
}
