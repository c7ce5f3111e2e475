import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The environment the platform reads, validated once at start (DESIGN.md, "Configuration"). */
export const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$' })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  PLATFORM_SERVICE_NAME: Type.Optional(Type.String({ minLength: 1 })),
  OPENCITY_ADMIN_SECRET: Type.Optional(Type.String({ minLength: 16 })),
  AUTH_ISSUER: Type.Optional(Type.String({ pattern: '^https?://' })),
  AUTH_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  AUTH_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  TOKEN_RATE_LIMIT: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  WRITE_RATE_LIMIT: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  REQUEST_TIMEOUT: Type.Optional(Type.String({ pattern: '^[0-9]+(ms|s|m|h|d)$' })),
  ONLINE_WINDOW: Type.Optional(Type.String({ pattern: '^[0-9]+(ms|s|m|h|d)$' })),
  SITE_QUOTA: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  IP_LOCATION_DB: Type.Optional(Type.String({ minLength: 1 })),
  CHANGE_LOG: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  CHANGE_RETENTION: Type.Optional(Type.String({ pattern: '^[0-9]+(ms|s|m|h|d)$' })),
  LOG_LEVEL: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
});
export type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly publicUrl: string;
  readonly platformServiceName: string;
  readonly adminSecret: string | undefined;
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
  readonly onlineWindowMs: number;
  readonly siteQuota: number;
  /** MaxMind DB files of IP locations (city databases), asked in turn for `ip` in geo searches; none: `ip` cannot be resolved. */
  readonly ipLocationDb: readonly string[];
  readonly logLevel: string;
  /** Whether every asset write is recorded in the change log (what subscriptions and live streams read). */
  readonly changeLog: boolean;
  /** How long changes are kept in the change log before they are pruned. */
  readonly changeRetentionMs: number;
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
    throw new ConfigError(`invalid ${name}=${JSON.stringify(picked[name] ?? '')}: ${describe(name)}`);
  }
  const e = picked as Env;
  const port = Number(e.PORT ?? '8080');
  if (port < 0 || port > 65535) throw new ConfigError(`invalid PORT=${JSON.stringify(e.PORT)}: ${describe('PORT')}`);
  if ((e.AUTH_ISSUER === undefined) !== (e.AUTH_JWKS_URL === undefined)) {
    throw new ConfigError('AUTH_ISSUER and AUTH_JWKS_URL must be set together');
  }
  const host = e.HOST ?? '127.0.0.1';
  return Object.freeze({
    port,
    host,
    databaseUrl: e.DATABASE_URL ?? 'sqlite:./data/opencity.db',
    publicUrl: (e.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    platformServiceName: e.PLATFORM_SERVICE_NAME ?? 'opencity',
    adminSecret: e.OPENCITY_ADMIN_SECRET,
    authIssuer: e.AUTH_ISSUER,
    authJwksUrl: e.AUTH_JWKS_URL,
    authAudience: e.AUTH_AUDIENCE,
    tokenRateLimit: Number(e.TOKEN_RATE_LIMIT ?? '1200'),
    writeRateLimit: Number(e.WRITE_RATE_LIMIT ?? '1200000'),
    requestTimeoutMs: parseDuration(e.REQUEST_TIMEOUT ?? '30s'),
    onlineWindowMs: parseDuration(e.ONLINE_WINDOW ?? '24h'),
    siteQuota: Number(e.SITE_QUOTA ?? '100000'),
    ipLocationDb: (e.IP_LOCATION_DB ?? '').split(',').map((f) => f.trim()).filter((f) => f !== ''),
    logLevel: e.LOG_LEVEL ?? 'info',
    changeLog: (e.CHANGE_LOG ?? 'on') === 'on',
    changeRetentionMs: parseDuration(e.CHANGE_RETENTION ?? '7d'),
  });
}

function describe(name: string): string {
  switch (name) {
    case 'PORT': return 'expected a port number 0-65535';
    case 'DATABASE_URL': return 'expected sqlite:PATH, sqlite::memory: or postgres://…';
    case 'PUBLIC_URL': return 'expected an absolute http(s) URL';
    case 'ONLINE_WINDOW': return 'expected a duration such as 24h, 90m or 3600s';
    case 'SITE_QUOTA': return 'expected a non-negative integer';
    case 'TOKEN_RATE_LIMIT': return 'expected a non-negative integer (requests per minute; 0 turns the limit off)';
    case 'WRITE_RATE_LIMIT': return 'expected a non-negative integer (federation writes per minute per client; 0 turns the limit off)';
    case 'REQUEST_TIMEOUT': return 'expected a duration such as 30s or 500ms';
    case 'OPENCITY_ADMIN_SECRET': return 'expected at least 16 characters';
    case 'LOG_LEVEL': return 'expected one of fatal, error, warn, info, debug, trace, silent';
    case 'CHANGE_LOG': return 'expected on or off';
    case 'CHANGE_RETENTION': return 'expected a duration such as 7d, 48h or 90m';
    case 'IP_LOCATION_DB': return 'expected the paths of MaxMind DB files, separated by commas';
    default: return 'not a valid value';
  }
}

/** A config for tests and tools: defaults plus overrides, no environment read. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({ ...loadConfig({}), logLevel: 'silent', publicUrl: 'http://127.0.0.1:8080', ...overrides });
}
