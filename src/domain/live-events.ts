/**
 * The live event stream's rules (discovery's `assets/events`): what an event
 * says, which events a stream's filters let through, and how the position a
 * bbox is tested against is known. No HTTP, no SQL.
 */
import type { NgsiAttributes } from './asset-body.js';
import { canonicalAssetType } from './asset-listing.js';
import type { Caller } from './caller.js';
import type { Change, ChangeKind } from './changes.js';
import type { Box, Point } from './geo.js';
import { decimal } from './geo-query.js';
import { positionFromAttributes } from './position.js';
import { invalidParameter } from './query-parameter.js';
import { formatRecvTime } from './history-dates.js';
import { parseAssetUrn } from './urn.js';
import { canSee } from './visibility.js';

/** A change of the log as the stream tells it, with what its filters and visibility need. */
export interface LiveEvent {
  seq: number;
  kind: ChangeKind;
  id: string;
  type: string;
  site: string;
  service: string | null;
  provider: string | null;
  experimenter: string | null;
  experiment: string | null;
  /** Where the asset is after the change (null: not known). */
  position: Point | null;
  /** Where the stream last saw it, when that differs: a stream over an area hears of assets leaving it. */
  previous: Point | null;
  /** The change moved the asset from where the stream never saw it (it may have left any area). */
  movedFromUnknown: boolean;
  /** The attributes the change set, with their new values; none for a delete. */
  attributes: NgsiAttributes;
  at: number;
}

/** The `data:` of an event, as clients read it. */
export interface LiveEventData {
  id: string;
  type: string;
  site: string;
  position: Point | null;
  attributes: NgsiAttributes;
  /** When the platform committed the change, ISO 8601 UTC. */
  time: string;
}

export const eventData = (e: LiveEvent): LiveEventData => ({
  id: e.id, type: e.type, site: e.site, position: e.position, attributes: e.attributes, time: formatRecvTime(e.at),
});

/** Which events a stream wants: each list holds alternatives, different keys must all hold. */
export interface EventFilter {
  sites?: string[];
  services?: string[];
  providers?: string[];
  types?: string[];
  urnPrefix?: string;
  bbox?: Box;
}

/** The stream's query parameters as received (strings, typed by the route schema). */
export interface EventFilterParams {
  site?: string;
  service?: string;
  provider?: string;
  type?: string;
  urn?: string;
  bbox?: string;
}

/** A comma-separated list of alternatives; undefined when the parameter is absent. */
function alternatives(name: string, text: string | undefined, map: (v: string) => string = (v) => v): string[] | undefined {
  if (text === undefined) return undefined;
  const values = [...new Set(text.split(',').map((v) => v.trim()).filter((v) => v !== '').map(map))];
  if (values.length === 0) throw invalidParameter(name, 'must not be empty');
  return values;
}

/** `minLon,minLat,maxLon,maxLat` in degrees; a box may cross the antimeridian (minLon > maxLon). */
export function parseBbox(text: string): Box {
  const parts = text.split(',');
  if (parts.length !== 4) throw invalidParameter('bbox', 'expected minLon,minLat,maxLon,maxLat');
  const [minLon, minLat, maxLon, maxLat] = [
    decimal('bbox', parts[0] as string, -180, 180), decimal('bbox', parts[1] as string, -90, 90),
    decimal('bbox', parts[2] as string, -180, 180), decimal('bbox', parts[3] as string, -90, 90),
  ];
  if (minLat > maxLat) throw invalidParameter('bbox', 'minLat must not exceed maxLat');
  return { minLon, minLat, maxLon, maxLat };
}

export function parseEventFilter(params: EventFilterParams): EventFilter {
  const filter: EventFilter = {};
  const sites = alternatives('site', params.site);
  const services = alternatives('service', params.service);
  const providers = alternatives('provider', params.provider);
  const types = alternatives('type', params.type, canonicalAssetType);
  if (sites) filter.sites = sites;
  if (services) filter.services = services;
  if (providers) filter.providers = providers;
  if (types) filter.types = types;
  if (params.urn !== undefined) {
    if (params.urn.trim() === '') throw invalidParameter('urn', 'must not be empty');
    filter.urnPrefix = params.urn.trim();
  }
  if (params.bbox !== undefined) filter.bbox = parseBbox(params.bbox);
  return filter;
}

/** `Last-Event-ID` (or the `lastEventId` parameter): a change's seq; undefined when absent. */
export function parseLastEventId(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const t = text.trim();
  if (!/^[0-9]{1,15}$/.test(t)) throw invalidParameter('lastEventId', 'must be the id of an event (a whole number)');
  return Number(t);
}

export function insideBox(p: Point, box: Box): boolean {
  if (p.latitude < box.minLat || p.latitude > box.maxLat) return false;
  return box.minLon <= box.maxLon
    ? p.longitude >= box.minLon && p.longitude <= box.maxLon
    : p.longitude >= box.minLon || p.longitude <= box.maxLon;
}

const allows = (values: string[] | undefined, value: string | null): boolean => values === undefined || (value !== null && values.includes(value));

/**
 * Does the filter let the event through? An event over an area passes when the
 * asset is in it, or was (so the stream hears it leave), or may have been (it
 * moved from where the stream never saw it), or its position is not known (a
 * delete of an asset never seen): a client drops what it shows, ignores the rest.
 */
export function eventMatches(filter: EventFilter, e: LiveEvent): boolean {
  if (!allows(filter.sites, e.site) || !allows(filter.services, e.service) || !allows(filter.providers, e.provider)) return false;
  if (!allows(filter.types, e.type)) return false;
  if (filter.urnPrefix !== undefined && !e.id.startsWith(filter.urnPrefix)) return false;
  if (filter.bbox) {
    if (e.position === null) return e.kind === 'delete';
    return insideBox(e.position, filter.bbox) || (e.previous !== null && insideBox(e.previous, filter.bbox)) || e.movedFromUnknown;
  }
  return true;
}

/** Whether the caller may see the event's asset (the visibility rule of discovery). */
export const callerSees = (caller: Caller | undefined, e: LiveEvent): boolean => canSee(caller, e);

/**
 * The event of a change. `stored` is where the store has the asset now, `last`
 * where the stream last placed it: a change that sets a position gives its own,
 * any other keeps the asset where it was.
 */
export function liveEventOf(change: Change, stored: Point | undefined, last: Point | undefined): LiveEvent {
  let urn: { service: string | null; provider: string | null; experimenter: string | null; experiment: string | null };
  try {
    urn = parseAssetUrn(change.assetId, change.site);
  } catch {
    urn = { service: null, provider: null, experimenter: null, experiment: null };
  }
  const near = last ?? stored;
  let given: Point | undefined;
  if (change.kind !== 'delete') {
    try {
      given = positionFromAttributes(change.attributes, near ?? { latitude: 0, longitude: 0 });
    } catch {
      given = undefined;
    }
  }
  const position = given ?? near ?? null;
  const moved = last !== undefined && position !== null && (last.latitude !== position.latitude || last.longitude !== position.longitude);
  return {
    seq: change.seq, kind: change.kind, id: change.assetId, type: change.assetType, site: change.site,
    service: urn.service, provider: urn.provider, experimenter: urn.experimenter, experiment: urn.experiment,
    position, previous: moved ? last : null, movedFromUnknown: last === undefined && given !== undefined && change.kind === 'update',
    attributes: change.attributes, at: change.at,
  };
}
