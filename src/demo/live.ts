import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { ManualClock } from '../domain/clock.js';
import { registerClient } from '../identity/clients.js';
import { ACCESS_TOKEN_TTL_S, issueAccessToken } from '../identity/tokens.js';
import { findLiveAsset } from '../storage/repositories/assets.js';
import { findClient, findUserById } from '../storage/repositories/principals.js';
import { positionAttribute, updateBody } from './bodies.js';
import { demoAssets, measurements, type DemoAsset } from './city.js';

/**
 * Keeps the demo city alive: its featured assets report new values through the
 * federation interface, as their sites would, each site with its own token, at
 * a steady rate; the buses of public transport move along their rounds. What
 * follows the platform live (the observatory's map, event streams,
 * subscriptions) sees it as it would see real sites.
 */

export interface LiveOptions {
  /** Updates per second, over all sites. */
  rate: number;
  /** Stop after this many updates (default: until aborted). */
  count?: number;
  /** Only the first `maxAssets` demo assets (tests). */
  maxAssets?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface LiveSummary {
  updates: number;
  /** Updates federation refused (none expected), with the first reason. */
  refused: number;
  firstRefusal: string | undefined;
}

/** How often requests leave: the rate is spread over these ticks. */
const TICK_MS = 100;
/** A bus goes round a circle of this radius (degrees of latitude) once an hour. */
const ROUND_DEG = 0.004;
const ROUND_MS = 3_600_000;

/** Where a moving asset is at `time`: on a circle through its home position. */
function onRound(asset: DemoAsset, home: { latitude: number; longitude: number }, time: number): [string, Record<string, unknown>] {
  const angle = (2 * Math.PI * ((time + asset.seed) % ROUND_MS)) / ROUND_MS;
  const latitude = home.latitude + ROUND_DEG * (Math.sin(angle));
  const longitude = home.longitude + (ROUND_DEG * (Math.cos(angle) - 1)) / Math.cos((home.latitude * Math.PI) / 180);
  return positionAttribute(asset.site.id === 'santander' ? 'coords' : 'geojson', latitude, longitude);
}

const homeOf = (asset: DemoAsset): { latitude: number; longitude: number } | undefined => {
  const [name, attribute] = asset.position ?? [];
  const value = attribute?.value;
  if (name === 'position' && typeof value === 'string') {
    const [latitude, longitude] = value.split(',').map(Number);
    return { latitude: latitude as number, longitude: longitude as number };
  }
  const coordinates = (value as { coordinates?: number[] } | undefined)?.coordinates;
  return coordinates ? { latitude: coordinates[1] as number, longitude: coordinates[0] as number } : undefined;
};

/** A site's access token, as its client `ocsite-<site>` gets one (the client is made when the demo has none). */
async function siteToken(ctx: AppContext, site: string): Promise<string> {
  const clientId = `ocsite-${site}`;
  let client = await findClient(ctx.store, clientId);
  if (!client) {
    await registerClient(ctx.store, ctx.clock, { clientId, name: `Site ${site}`, roles: [{ role: 'ocsite', experiment: null }] });
    client = await findClient(ctx.store, clientId);
  }
  const user = client ? await findUserById(ctx.store, client.serviceAccountUserId) : undefined;
  if (!client || !user) throw new Error(`the client ${clientId} could not be found`);
  const issued = await issueAccessToken(ctx.tokens, { user, clientId, serviceAccountOf: clientId, scope: 'profile email' });
  return issued.accessToken;
}

/** Pushes updates until `count` is reached or `signal` aborts. */
export async function pushLiveUpdates(app: FastifyInstance, ctx: AppContext & { clock: ManualClock }, options: LiveOptions): Promise<LiveSummary> {
  const log = options.log ?? (() => {});
  const candidates = demoAssets().slice(0, options.maxAssets).filter((a) => a.featured);
  const assets: DemoAsset[] = [];
  for (const a of candidates) if (await findLiveAsset(ctx.store, a.id)) assets.push(a);
  if (assets.length === 0) throw new Error('the demo city is not loaded: run opencity demo first');

  // One token per site at a time, shared by the requests of a tick (and its client made once).
  const tokens = new Map<string, { token: Promise<string>; until: number }>();
  const tokenOf = (site: string): Promise<string> => {
    const known = tokens.get(site);
    if (known && known.until > ctx.clock.now()) return known.token;
    const token = siteToken(ctx, site);
    tokens.set(site, { token, until: ctx.clock.now() + (ACCESS_TOKEN_TTL_S * 1000) / 2 });
    token.catch(() => tokens.delete(site));
    return token;
  };

  const summary: LiveSummary = { updates: 0, refused: 0, firstRefusal: undefined };
  const push = async (asset: DemoAsset): Promise<void> => {
    const now = ctx.clock.now();
    const body = updateBody(now, measurements(asset, now));
    const home = asset.id.includes(':publictransport:') ? homeOf(asset) : undefined;
    if (home) {
      const [name, attribute] = onRound(asset, home, now);
      body[name] = attribute;
    }
    const res = await app.inject({
      method: 'POST', url: `/federation/v2/entities/${encodeURIComponent(asset.id)}/attrs`,
      headers: {
        authorization: `Bearer ${await tokenOf(asset.site.id)}`, 'platform-service': ctx.config.platformServiceName, 'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });
    if (res.statusCode === 204) summary.updates++;
    else {
      summary.refused++;
      summary.firstRefusal ??= `${asset.id}: HTTP ${res.statusCode} ${res.body}`;
    }
  };

  const limit = options.count ?? Infinity;
  let owed = 0;
  let next = 0;
  let sent = 0;
  let logged = Date.now();
  while (sent < limit && !options.signal?.aborted) {
    const started = Date.now();
    ctx.clock.set(started);
    owed += (options.rate * TICK_MS) / 1000;
    const now = Math.min(Math.floor(owed), limit - sent);
    owed -= now;
    const batch = Array.from({ length: now }, () => assets[next++ % assets.length] as DemoAsset);
    sent += batch.length;
    await Promise.all(batch.map(push));
    if (Date.now() - logged >= 10_000) {
      logged = Date.now();
      log(`  ${summary.updates.toLocaleString('en-US')} live updates so far`);
    }
    const wait = TICK_MS - (Date.now() - started);
    if (wait > 0 && sent < limit) await delay(wait, undefined, { signal: options.signal }).catch(() => {});
  }
  return summary;
}
