import fs from 'node:fs/promises';
import { isIP } from 'node:net';
import { Reader } from 'mmdb-lib';
import { ConfigError } from '../config.js';
import type { Point } from '../domain/geo.js';
import type { IpLocator } from '../domain/geo-query.js';
import { addressToLocate, positionOfIpRecord } from '../domain/ip-location.js';

/**
 * The IP locator of MaxMind DB files (IP_LOCATION_DB): city databases such as
 * DB-IP's IP to City Lite (one file for IPv4, one for IPv6) or MaxMind's
 * GeoLite2 City, asked in turn until one places the address. Each file is read
 * whole into memory once, so that a lookup never waits for the disk.
 */
export async function openIpLocations(files: readonly string[]): Promise<IpLocator> {
  const locators = await Promise.all(files.map(openOne));
  return (ip) => {
    const address = addressToLocate(ip);
    for (const locate of locators) {
      const position = locate(address);
      if (position) return position;
    }
    return undefined;
  };
}

async function openOne(file: string): Promise<(address: string) => Point | undefined> {
  let reader: Reader<Record<string, unknown>>;
  try {
    reader = new Reader(await fs.readFile(file));
  } catch (error) {
    throw new ConfigError(`invalid IP_LOCATION_DB: ${JSON.stringify(file)} is not a readable MaxMind DB file (${(error as Error).message})`);
  }
  // An IPv4-only database would walk an IPv6 address's first bits as if they were an IPv4 address.
  const ipv6Known = reader.metadata.ipVersion === 6;
  return (address) => {
    if (!ipv6Known && isIP(address) === 6) return undefined;
    try {
      return positionOfIpRecord(reader.get(address));
    } catch {
      return undefined;
    }
  };
}
