import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../src/storage/store.js';

/** One route of the platform, as the OpenAPI document (or the router) names it. */
export interface Route {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** Path template with `{name}` parameters, e.g. /datasource/{assetId}/readings. */
  path: string;
}

/** Every documented route, plus the operational ones the document hides. */
export async function listRoutes(app: FastifyInstance): Promise<Route[]> {
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, unknown>> };
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      const m = method.toUpperCase();
      if (m === 'GET' || m === 'POST' || m === 'PUT' || m === 'DELETE') routes.push({ method: m, path });
      if (m === 'GET') routes.push({ method: 'HEAD', path });
    }
  }
  for (const path of ['/health', '/ready', '/metrics', '/']) routes.push({ method: 'GET', path });
  return routes;
}

/** The pages a browser is sent to (sign-in, sign-out): their errors are HTML pages for a person to read. */
export const isBrowserPage = (path: string): boolean => /\/openid-connect\/(auth|logout)$/.test(path);

/** Which interface a route belongs to (the fuzz budget is counted per interface). */
export function interfaceOf(path: string): 'federation' | 'permissions' | 'discovery' | 'datasource' | 'identity' | 'platform' {
  if (path.startsWith('/federation/')) return 'federation';
  if (path.startsWith('/permissions/')) return 'permissions';
  if (path.startsWith('/discovery/')) return 'discovery';
  if (path.startsWith('/datasource/')) return 'datasource';
  if (path.startsWith('/auth/')) return 'identity';
  return 'platform';
}

const HOSTILE = [
  "' OR '1'='1", "'; DROP TABLE assets; --", '" OR ""="', '1; select pg_sleep(0)--', "admin'--", '%27%20OR%201=1--',
  '../../../../etc/passwd', '..%2F..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e%2f', '..\\..\\windows\\win.ini', '/etc/passwd%00.json',
  '%00', '%', '%zz', '%E0%A4%A', '%C0%AF', '%ff%fe', '%ED%A0%80', '%F4%90%80%80', '%u0041', '\u0000', '\uFFFF', '\uD800', '😀', 'é',
  '<script>alert(1)</script>', '${jndi:ldap://127.0.0.1/a}', '{{7*7}}', '__proto__', 'constructor', 'prototype', 'toString',
  'urn:oc:entity:santander:', 'urn:oc:entity:other:x', 'urn:oc:entity:santander:a:b:c:d:e', '-1', '0', '1e309', 'NaN', 'Infinity',
  'true', 'null', '[]', '{}', '9'.repeat(40), 'a'.repeat(3000), ' ', '\t', '\r\n', ';', ',', ':', '*', '?', '#', '&', '=',
];

/** ASCII text that survives a request line as it is (percent signs included, broken on purpose). */
const urlSafe = fc.stringMatching(/^[A-Za-z0-9._~:@!$'()*+,;=%-]{0,40}$/);

/** encodeURIComponent that also takes lone surrogates (as their replacement character). */
const encode = (s: string): string => encodeURIComponent(s.replace(/\p{Surrogate}/gu, '\uFFFD'));

/** A path segment: hostile strings, encoded or raw, random text, long runs. */
export const segment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE).map(encode),
  fc.constantFrom(...HOSTILE.filter((s) => /^[\x21-\x7e]*$/.test(s) && !/[/?#]/.test(s))),
  fc.string({ unit: 'binary', maxLength: 30 }).map(encode),
  urlSafe,
  fc.integer({ min: 1, max: 2100 }).map((n) => 'x'.repeat(n)),
);

const QUERY_NAMES = [
  'page', 'per', 'offset', 'count', 'limit', 'sample', 'sort', 'order', 'filter', 'lastUpdated', 'urn', 'from', 'to', 'values',
  'radius', 'km', 'points', 'query', 'lat', 'lon', 'long', 'city', 'ip', 'type', 'options', 'q', 'attrs', 'id', 'experiment',
  'client_id', 'redirect_uri', 'response_type', 'state', 'scope', 'code_challenge', 'post_logout_redirect_uri', 'id_token_hint', 'token',
];

const queryValue: fc.Arbitrary<string> = fc.oneof(
  segment,
  fc.constantFrom('-1', '0', '1001', '1.5', '1e9', 'abc', '', '[[1,2],[3]]', '[[[', 'DESC;', 'id,type', 'site:', ':', 'x:y:z', '2017-13-45T99:99', 'true', 'polygon', 'circle').map(encode),
);

/** A query string: known and unknown names, junk values, duplicates, broken encodings. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), urlSafe), queryValue, fc.boolean()), { minLength: 1, maxLength: 6 })
    .map((pairs) => `?${pairs.flatMap(([k, v, twice]) => (twice ? [`${k}=${v}`, `${k}=${v}x`] : [`${k}=${v}`])).join('&')}`),
  fc.constantFrom('?', '?&&&', '?=', '?a', '?%', '?page=%zz', '?a[b][c]=1', '?__proto__[x]=1', '?constructor[prototype][x]=1', `?per=${'9'.repeat(400)}`),
);

function nested(depth: number, array: boolean): string {
  return array ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A body: wrong types, hostile fields, deep and large JSON, broken encodings, not JSON at all. */
export const body: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 3, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom('id', 'type', 'TimeInstant', 'location', 'position', 'name', 'role', 'roles', 'experiment', 'redirectUris', 'uris', 'grant_type', 'client_id', '__proto__', 'constructor'), fc.string()), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...HOSTILE), fc.constant({ type: 'geo:json', value: { type: 'Point', coordinates: ['a', Number.MAX_VALUE] } }), fc.constant({ type: 'Number', value: { nested: [1, [2, [3]]] } })), { maxKeys: 6 }).map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 20_000 }).chain((d) => fc.boolean().map((a) => nested(d, a))) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 60_000 }).map((n) => JSON.stringify({ id: 'urn:oc:entity:santander:x', big: 'x'.repeat(n), list: Array.from({ length: Math.min(n, 2000) }, (_, i) => i) })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.concat([Buffer.from('{"id":"'), Buffer.from(a), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('"}')])) },
  { weight: 1, arbitrary: fc.constantFrom('{', '}', '{"a":}', '[1,2', 'null', '""', '0', 'true', '\u0000', '{"a":1}{"b":2}', '{"a":1,"a":2}', 'grant_type=client_credentials&client_id=x', 'grant_type=client_credentials&client_id=%00&client_secret=%00', 'grant_type=password&client_id=opencity-observatory&username=%00&password=x', 'grant_type=refresh_token&refresh_token=%00', 'grant_type=authorization_code&code=%00&code_verifier=%00', 'username=%00&password=%00', 'token=%00', 'a=1&a=2&&=', '\uFEFF{}', ' '.repeat(10_000)) },
);

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'APPLICATION/JSON', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '', ';', 'application/json;;;', '*/*', 'application/ld+json',
];

/** Everything a fuzzed request needs except the tokens, which the test passes in. */
export interface FuzzCase {
  route: Route;
  params: string[];
  query: string;
  auth: number;
  authJunk: string;
  contentType: string | string[] | undefined;
  platformService: string | string[] | undefined;
  extraHeaders: Record<string, string | string[]>;
  body: string | Buffer | undefined;
}

export function fuzzCase(routes: Route[], tokenCount: number): fc.Arbitrary<FuzzCase> {
  return fc.record({
    route: fc.constantFrom(...routes),
    params: fc.array(segment, { minLength: 4, maxLength: 4 }),
    query: queryString,
    // 0: none; 1: junk; 2..: a valid token of the test's list
    auth: fc.integer({ min: 0, max: tokenCount + 1 }),
    authJunk: fc.oneof(
      fc.constantFrom('Bearer', 'Bearer ', 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'bearer    x y', 'Basic', 'Basic !!!', 'Basic Og==', 'Basic ' + Buffer.from(':').toString('base64'), 'Negotiate x', 'Bearer ' + 'a'.repeat(4000), 'Bearer \u00e9'),
      fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`),
    ),
    contentType: fc.oneof(fc.constant(undefined), fc.constantFrom(...CONTENT_TYPES), fc.tuple(fc.constantFrom(...CONTENT_TYPES), fc.constantFrom(...CONTENT_TYPES)).map(([a, b]) => [a, b])),
    platformService: fc.oneof(fc.constant(undefined), fc.constantFrom('opencity', 'other', '', 'OPENCITY', "' OR 1=1"), fc.constant<string[]>(['opencity', 'opencity']), fc.constant<string[]>(['opencity', 'other'])),
    extraHeaders: fc.dictionary(
      fc.constantFrom('accept', 'accept-encoding', 'x-request-id', 'fiware-service', 'fiware-servicepath', 'origin', 'cookie', 'x-forwarded-for', 'if-none-match', 'range', 'link', 'transfer-encoding-x'),
      fc.oneof(fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.constantFrom('*/*', 'application/json', 'text/csv', 'gzip, deflate, br', '../../x', 'opencity')),
      { maxKeys: 3 },
    ),
    body,
  });
}

/** The request a case describes, as app.inject takes it. */
export function toRequest(c: FuzzCase, tokens: string[]) {
  let i = 0;
  const url = c.route.path.replace(/\{[^}]+\}/g, () => c.params[i++] || 'x') + c.query;
  const headers: Record<string, string | string[]> = { ...c.extraHeaders };
  if (c.auth === 1) headers.authorization = c.authJunk;
  else if (c.auth >= 2) headers.authorization = `Bearer ${tokens[c.auth - 2]}`;
  if (c.contentType !== undefined) headers['content-type'] = c.contentType;
  if (c.platformService !== undefined) headers['platform-service'] = c.platformService;
  const sendsBody = c.route.method === 'POST' || c.route.method === 'PUT' || c.route.method === 'DELETE';
  let payload = c.body;
  // Every field of a client is optional, so an object body would be a valid
  // creation: give it a client id of the wrong type to keep it malformed.
  if (c.route.method === 'POST' && c.route.path === '/permissions/clients' && typeof payload === 'string') {
    const parsed = tryParse(payload);
    // Appended last, so that it wins over any clientId already there (deep bodies are not rebuilt).
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) payload = `${payload.trimEnd().slice(0, -1)},"clientId":{"not":"a string"}}`;
  }
  return { method: c.route.method, url, headers, ...(sendsBody && payload !== undefined ? { payload } : {}) };
}

/** Parses as the server does: its JSON parser drops a leading byte-order mark. */
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    return undefined;
  }
}

/** A digest of every row of every table of the platform: equal digests, unchanged data. */
export async function storeDigest(store: Store): Promise<{ digest: string; rows: Record<string, number> }> {
  const tables = store.name === 'sqlite'
    ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(store.read)).rows.map((r) => r.name)
    : (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(store.read)).rows.map((r) => r.name);
  const hash = createHash('sha256');
  const rows: Record<string, number> = {};
  for (const table of tables.filter((t) => !/^(sqlite_|spatial_ref_sys|kysely_|rtree|.*_rtree)/.test(t)).sort()) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(store.read);
    const lines = result.rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('hex') : v))).sort();
    rows[table] = lines.length;
    hash.update(`${table}\n${lines.join('\n')}\n`);
  }
  return { digest: hash.digest('hex'), rows };
}

/**
 * Sends a fuzzed request and reads its whole answer. A stream that opens (the
 * live event stream's 200, which never ends by itself) is answered at its
 * headers and closed: what the fuzzer judges is the status and the error bodies.
 */
export async function injectAnswer(app: FastifyInstance, req: ReturnType<typeof toRequest>): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }> {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !/\/assets\/events(\?|$)/.test(req.url)) return app.inject(req);
  const res = await app.inject({ ...req, payloadAsStream: true });
  const stream = res.stream();
  if (res.statusCode === 200 && /^text\/event-stream/.test(String(res.headers['content-type']))) {
    stream.destroy();
    return { statusCode: res.statusCode, headers: res.headers, body: '' };
  }
  let body = '';
  for await (const chunk of stream) body += String(chunk);
  return { statusCode: res.statusCode, headers: res.headers, body };
}
