import type { Point } from './geo.js';

const isCoordinate = (value: unknown, limit: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;

const positionOf = (holder: unknown): Point | undefined => {
  if (!holder || typeof holder !== 'object') return undefined;
  const { latitude, longitude } = holder as { latitude?: unknown; longitude?: unknown };
  return isCoordinate(latitude, 90) && isCoordinate(longitude, 180) ? { latitude, longitude } : undefined;
};

/**
 * The position an IP location database gives for an address: under `location`
 * in MaxMind's and DB-IP's own city databases, at the top of the record in the
 * ip-location-db builds of them. A record without a usable position (a
 * country-level database, an address of no known place) gives none.
 */
export function positionOfIpRecord(record: unknown): Point | undefined {
  if (!record || typeof record !== 'object') return undefined;
  return positionOf((record as { location?: unknown }).location) ?? positionOf(record);
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The address to look up: an IPv4 address written as IPv6 (`::ffff:a.b.c.d`,
 * as a dual-stack server reports IPv4 clients) is looked up as the IPv4
 * address it is, which databases hold under ::a.b.c.d or ::ffff:a.b.c.d alike.
 */
export function addressToLocate(ip: string): string {
  return IPV4_MAPPED.exec(ip)?.[1] ?? ip;
}
