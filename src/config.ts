import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DEFAULT_MAX_ATTRIBUTES } from './domain/attribute-bounds.js';
import { isTileTemplate } from './domain/map-tiles.js';
import { parseDestinationPolicy } from './domain/notify-destination.js';

/**
 * One variable of the environment: its schema, its default as the documents state it, what it
 * means and what a valid value looks like. `opencity serve --help`, the validation and its error
 * messages all read this one table, so they cannot disagree.
 */
export interface Variable {
  readonly schema: TSchema;
  readonly default: string;
  readonly meaning: string;
  readonly expected: string;
  /** Never echoed back, not even in an error. */
  readonly secret?: boolean;
}

const DURATION = '^[0-9]+(ms|s|m|h|d)$';
const OSM_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
const OSM_ATTRIBUTION = '© OpenStreetMap contributors';
/** A duration, or `forever`: how long history is kept. */
const RETENTION = '^([0-9]+(ms|s|m|h|d)|forever)$';

/** The environment the platform reads, validated once at start (DESIGN.md, "Configuration"). */
export const VARIABLES = {
  PORT: { schema: Type.String({ pattern: '^[0-9]{1,5}$' }), default: '8080', meaning: 'port to listen on', expected: 'expected a port number 0-65535' },
  HOST: { schema: Type.String({ minLength: 1 }), default: '127.0.0.1', meaning: 'address to listen on', expected: 'expected a host name or address' },
  DATABASE_URL: {
    schema: Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$' }), default: 'sqlite:./data/opencity.db',
    meaning: 'the store: sqlite:PATH, sqlite::memory: or postgres://user@host:port/db', expected: 'expected sqlite:PATH, sqlite::memory: or postgres://…',
  },
  PUBLIC_URL: {
    schema: Type.String({ pattern: '^https?://[^\\s]+$' }), default: 'http://HOST:PORT',
    meaning: 'the token issuer and absolute links are built from it; set it behind a proxy', expected: 'expected an absolute http(s) URL',
  },
  PLATFORM_SERVICE_NAME: {
    schema: Type.String({ minLength: 1 }), default: 'opencity',
    meaning: 'the value the federation platform-service (or Fiware-Service) header must carry', expected: 'expected a non-empty name',
  },
  OPENCITY_ADMIN_SECRET: {
    schema: Type.String({ minLength: 16 }), default: 'generated once, printed once',
    meaning: 'secret of the bootstrap client opencity-admin', expected: 'expected at least 16 characters', secret: true,
  },
  OPENCITY_KEY_SECRET: {
    schema: Type.String({ minLength: 16 }), default: 'unset (signing keys stored in clear)',
    meaning: 'encrypts the private signing keys in the store; keep it out of the store and its backups', expected: 'expected at least 16 characters', secret: true,
  },
  OPENCITY_KEY_SECRET_PREVIOUS: {
    schema: Type.String({ minLength: 16 }), default: 'unset',
    meaning: 'the former OPENCITY_KEY_SECRET while it is being changed (keys are encrypted again under the new one)', expected: 'expected at least 16 characters', secret: true,
  },
  AUTH_ISSUER: { schema: Type.String({ pattern: '^https?://' }), default: 'unset (embedded issuer)', meaning: 'trust this external OIDC issuer (with AUTH_JWKS_URL)', expected: 'expected an http(s) URL' },
  AUTH_JWKS_URL: { schema: Type.String({ pattern: '^https?://' }), default: 'unset', meaning: "the external issuer's signing keys (with AUTH_ISSUER)", expected: 'expected an http(s) URL' },
  AUTH_AUDIENCE: { schema: Type.String({ minLength: 1 }), default: 'unset', meaning: 'when set, bearer tokens must carry this audience', expected: 'expected a non-empty audience' },
  TOKEN_RATE_LIMIT: {
    schema: Type.String({ pattern: '^[0-9]+$' }), default: '1200',
    meaning: 'token requests per minute per client and address (0: no limit)', expected: 'expected a non-negative integer (requests per minute; 0 turns the limit off)',
  },
  WRITE_RATE_LIMIT: {
    schema: Type.String({ pattern: '^[0-9]+$' }), default: '1200000',
    meaning: 'federation writes per minute per site client (0: no limit)', expected: 'expected a non-negative integer (federation writes per minute per client; 0 turns the limit off)',
  },
  REQUEST_TIMEOUT: { schema: Type.String({ pattern: DURATION }), default: '30s', meaning: 'a client that has not sent its whole request by then gets 408', expected: 'expected a duration such as 30s or 500ms' },
  STORE_TIMEOUT: {
    schema: Type.String({ pattern: DURATION }), default: '5s',
    meaning: 'the longest a call to the store may take; beyond it the request is answered 503 with Retry-After', expected: 'expected a duration such as 5s or 1500ms',
  },
  ONLINE_WINDOW: { schema: Type.String({ pattern: DURATION }), default: '24h', meaning: 'an asset is online when its last reading is younger than this', expected: 'expected a duration such as 24h, 90m or 3600s' },
  SITE_QUOTA: { schema: Type.String({ pattern: '^[0-9]+$' }), default: '100000', meaning: 'default asset quota of a site', expected: 'expected a non-negative integer' },
  MAX_ATTRIBUTES: { schema: Type.String({ pattern: '^[1-9][0-9]{0,5}$' }), default: '256', meaning: 'attributes an asset may carry, TimeInstant included (400 beyond)', expected: 'expected an integer from 1 to 999999' },
  IP_LOCATION_DB: { schema: Type.String({ minLength: 1 }), default: 'unset', meaning: 'MaxMind DB city databases, separated by commas, for ip in geo searches', expected: 'expected the paths of MaxMind DB files, separated by commas' },
  MAP_TILES: {
    schema: Type.String({ pattern: '^(none|https?://[^\\s]+)$' }), default: OSM_TILES,
    meaning: 'raster tile URL template ({z}/{x}/{y}, optional {s}) drawn under the observatory map; none: country outlines only, no tile server contacted',
    expected: 'expected none or an http(s) URL template with {z}, {x} and {y}',
  },
  MAP_TILES_ATTRIBUTION: { schema: Type.String({ minLength: 1 }), default: OSM_ATTRIBUTION, meaning: 'the credit shown with the tiles (their licence asks for it)', expected: 'expected a non-empty text' },
  CHANGE_LOG: { schema: Type.Union([Type.Literal('on'), Type.Literal('off')]), default: 'on', meaning: 'record every asset write in the change log', expected: 'expected on or off' },
  CLOCK_SKEW: { schema: Type.String({ pattern: DURATION }), default: '5m', meaning: "a TimeInstant further ahead of the platform's time than this is refused (400)", expected: 'expected a duration such as 5m, 30s or 1h' },
  HISTORY_RETENTION: {
    schema: Type.String({ pattern: RETENTION }), default: 'forever',
    meaning: "raw readings received longer ago than this are dropped (a site's own retention, opencity site set-retention, comes first)", expected: 'expected forever or a duration such as 90d, 720h or 30m',
  },
  ROLLUP_RETENTION: {
    schema: Type.String({ pattern: RETENTION }), default: 'forever',
    meaning: 'hourly and daily rollups of readings whose hour or day ended longer ago than this are dropped', expected: 'expected forever or a duration such as 3650d or 365d',
  },
  CHANGE_RETENTION: { schema: Type.String({ pattern: DURATION }), default: '7d', meaning: 'changes older than this are pruned from the change log', expected: 'expected a duration such as 7d, 48h or 90m' },
  SUBSCRIPTION_QUOTA: { schema: Type.String({ pattern: '^[0-9]+$' }), default: '1000', meaning: 'NGSI v2 subscriptions an owner may hold', expected: 'expected a non-negative integer' },
  NOTIFY_ALLOWED_HOSTS: {
    schema: Type.String({ pattern: '^[A-Za-z0-9.:/, -]*$' }), default: 'none',
    meaning: 'hosts, addresses and CIDRs notifications may reach although internal (loopback, private, link-local, unique-local are refused otherwise)',
    expected: 'expected host names, addresses or CIDRs separated by commas',
  },
  NOTIFY_TIMEOUT: { schema: Type.String({ pattern: DURATION }), default: '5s', meaning: 'a notification not answered by then has failed (and is tried again)', expected: 'expected a duration such as 5s or 1500ms' },
  EVENTS_MAX_CLIENTS: { schema: Type.String({ pattern: '^[0-9]+$' }), default: '10000', meaning: 'concurrent connections to the live event stream (discovery assets/events)', expected: 'expected a non-negative integer' },
  LOG_LEVEL: {
    schema: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))), default: 'info',
    meaning: 'fatal, error, warn, info, debug (one access-log line per request), trace, silent', expected: 'expected one of fatal, error, warn, info, debug, trace, silent',
  },
  LOG_FORMAT: {
    schema: Type.Union([Type.Literal('json'), Type.Literal('pretty')]), default: 'pretty on a terminal, json otherwise',
    meaning: 'json: one JSON object per line (for machines); pretty: readable lines', expected: 'expected json or pretty',
  },
} satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;

type Optionals<T extends Record<string, Variable>> = { [K in keyof T]: TOptional<T[K]['schema']> };

export const EnvSchema = Type.Object(Object.fromEntries(
  Object.entries(VARIABLES).map(([name, v]) => [name, Type.Optional(v.schema)]),
) as Optionals<typeof VARIABLES>);
export type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly publicUrl: string;
  readonly platformServiceName: string;
  readonly adminSecret: string | undefined;
  /** Encrypts the private signing keys at rest (OPENCITY_KEY_SECRET); unset: stored in clear. */
  readonly keySecret: string | undefined;
  /** The former key secret, still accepted while the keys are encrypted again under the new one. */
  readonly previousKeySecret: string | undefined;
  readonly authIssuer: string | undefined;
  readonly authJwksUrl: string | undefined;
  /** When set, bearer tokens must name it in `aud`. */
  readonly authAudience: string | undefined;
  /** Token requests per minute per client (and address), login attempts per minute per address; 0: no limit. */
  readonly tokenRateLimit: number;
  /** Federation writes per minute per client; 0: no limit. The default leaves room for 20,000 writes/s from one site. */
  readonly writeRateLimit: number;
  /** Time a client has to send a whole request (slow clients are cut off with 408). */
  readonly requestTimeoutMs: number;
  /** The longest one call to the store may take (a hung database): beyond it, 503 with Retry-After. */
  readonly storeTimeoutMs: number;
  readonly onlineWindowMs: number;
  readonly siteQuota: number;
  /** Attributes one asset may carry, TimeInstant included: a write that would take it beyond is refused with 400. */
  readonly maxAttributes: number;
  /** MaxMind DB files of IP locations (city databases), asked in turn for `ip` in geo searches; none: `ip` cannot be resolved. */
  readonly ipLocationDb: readonly string[];
  readonly logLevel: string;
  /** `auto`: pretty when standard output is a terminal, JSON otherwise (decided where the process starts). */
  readonly logFormat: 'json' | 'pretty' | 'auto';
  /** Whether every asset write is recorded in the change log (what subscriptions and live streams read). */
  readonly changeLog: boolean;
  /** How long changes are kept in the change log before they are pruned. */
  readonly changeRetentionMs: number;
  /** How far ahead of the platform's time a TimeInstant may be. */
  readonly clockSkewMs: number;
  /** The observatory's street map: a tile URL template, or null for outlines only (MAP_TILES=none). */
  readonly mapTiles: string | null;
  readonly mapTilesAttribution: string;
  /** Subscriptions one owner may hold. */
  readonly subscriptionQuota: number;
  /** NOTIFY_ALLOWED_HOSTS as written: internal destinations notifications may reach. */
  readonly notifyAllowedHosts: string;
  /** A notification not answered within this has failed. */
  readonly notifyTimeoutMs: number;
  /** Concurrent connections to the live event stream; beyond them a 503. */
  readonly eventsMaxClients: number;
  /** Bytes an event-stream client may leave unread before it is closed as too slow (not in the environment: tests lower it). */
  readonly eventsMaxUnreadBytes: number;
  /** How long raw readings are kept, by receive time, where a site names no retention of its own; Infinity: forever. */
  readonly historyRetentionMs: number;
  /** How long hourly and daily rollups are kept after their hour or day ended; Infinity: forever. */
  readonly rollupRetentionMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
  const match = /^([0-9]+)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new ConfigError(`not a duration: ${text}`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** A retention: a duration in ms, or Infinity for `forever`. */
export function parseRetention(text: string): number {
  return text === 'forever' ? Number.POSITIVE_INFINITY : parseDuration(text);
}

/** Reads and validates the environment; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const firstError = Value.Errors(EnvSchema, picked).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, '');
    throw new ConfigError(`invalid ${shown(name, picked[name])}: ${describe(name)}`);
  }
  const e = picked as Env;
  const port = Number(e.PORT ?? '8080');
  if (port < 0 || port > 65535) throw new ConfigError(`invalid ${shown('PORT', e.PORT)}: ${describe('PORT')}`);
  if ((e.AUTH_ISSUER === undefined) !== (e.AUTH_JWKS_URL === undefined)) {
    throw new ConfigError('AUTH_ISSUER and AUTH_JWKS_URL must be set together');
  }
  if (e.STORE_TIMEOUT !== undefined && parseDuration(e.STORE_TIMEOUT) < 1) throw new ConfigError(`invalid ${shown('STORE_TIMEOUT', e.STORE_TIMEOUT)}: expected a duration above zero`);
  const tiles = e.MAP_TILES ?? OSM_TILES;
  if (tiles !== 'none' && !isTileTemplate(tiles)) throw new ConfigError(`invalid ${shown('MAP_TILES', tiles)}: ${describe('MAP_TILES')}`);
  if (e.NOTIFY_ALLOWED_HOSTS !== undefined) {
    try {
      parseDestinationPolicy(e.NOTIFY_ALLOWED_HOSTS);
    } catch (error) {
      throw new ConfigError(`invalid ${shown('NOTIFY_ALLOWED_HOSTS', e.NOTIFY_ALLOWED_HOSTS)}: ${(error as Error).message}`);
    }
  }
  const host = e.HOST ?? '127.0.0.1';
  return Object.freeze({
    port,
    host,
    databaseUrl: e.DATABASE_URL ?? 'sqlite:./data/opencity.db',
    publicUrl: (e.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    platformServiceName: e.PLATFORM_SERVICE_NAME ?? 'opencity',
    adminSecret: e.OPENCITY_ADMIN_SECRET,
    keySecret: e.OPENCITY_KEY_SECRET,
    previousKeySecret: e.OPENCITY_KEY_SECRET_PREVIOUS,
    authIssuer: e.AUTH_ISSUER,
    authJwksUrl: e.AUTH_JWKS_URL,
    authAudience: e.AUTH_AUDIENCE,
    tokenRateLimit: Number(e.TOKEN_RATE_LIMIT ?? '1200'),
    writeRateLimit: Number(e.WRITE_RATE_LIMIT ?? '1200000'),
    requestTimeoutMs: parseDuration(e.REQUEST_TIMEOUT ?? '30s'),
    storeTimeoutMs: parseDuration(e.STORE_TIMEOUT ?? '5s'),
    onlineWindowMs: parseDuration(e.ONLINE_WINDOW ?? '24h'),
    siteQuota: Number(e.SITE_QUOTA ?? '100000'),
    maxAttributes: Number(e.MAX_ATTRIBUTES ?? String(DEFAULT_MAX_ATTRIBUTES)),
    ipLocationDb: (e.IP_LOCATION_DB ?? '').split(',').map((f) => f.trim()).filter((f) => f !== ''),
    logLevel: e.LOG_LEVEL ?? 'info',
    logFormat: e.LOG_FORMAT ?? 'auto',
    changeLog: (e.CHANGE_LOG ?? 'on') === 'on',
    changeRetentionMs: parseDuration(e.CHANGE_RETENTION ?? '7d'),
    clockSkewMs: parseDuration(e.CLOCK_SKEW ?? '5m'),
    mapTiles: tiles === 'none' ? null : tiles,
    mapTilesAttribution: e.MAP_TILES_ATTRIBUTION ?? OSM_ATTRIBUTION,
    subscriptionQuota: Number(e.SUBSCRIPTION_QUOTA ?? '1000'),
    notifyAllowedHosts: e.NOTIFY_ALLOWED_HOSTS ?? '',
    notifyTimeoutMs: parseDuration(e.NOTIFY_TIMEOUT ?? '5s'),
    eventsMaxClients: Number(e.EVENTS_MAX_CLIENTS ?? '10000'),
    eventsMaxUnreadBytes: 4 * 1024 * 1024,
    historyRetentionMs: parseRetention(e.HISTORY_RETENTION ?? 'forever'),
    rollupRetentionMs: parseRetention(e.ROLLUP_RETENTION ?? 'forever'),
  });
}

function describe(name: string): string {
  return (VARIABLES as Record<string, Variable>)[name]?.expected ?? 'not a valid value';
}

/** `NAME=value` for an error message; a secret's value is never shown. */
function shown(name: string, value: string | undefined): string {
  return (VARIABLES as Record<string, Variable>)[name]?.secret ? `${name} (value not shown)` : `${name}=${JSON.stringify(value ?? '')}`;
}

/** The environment's variables with their defaults and meanings, for `opencity serve --help`. */
export function environmentHelp(): string {
  const entries = Object.entries(VARIABLES as Record<string, Variable>);
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, v]) => `  ${name.padEnd(width)}  ${v.meaning} (default: ${v.default})`).join('\n');
}

/** A config for tests and tools: defaults plus overrides, no environment read. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // No test reaches the internet: the street map is off unless a test serves its own tiles.
  return Object.freeze({ ...loadConfig({}), logLevel: 'silent', publicUrl: 'http://127.0.0.1:8080', mapTiles: null, ...overrides });
}
