import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  canonicalAssetType, parseFilter, parseInstant, parseListing, parseOrdering, parsePage, parseSelection, segmentsOfPrefix,
} from '../../src/domain/asset-listing.js';
import { AppError } from '../../src/domain/errors.js';
import { httpStatus } from '../../src/http/error-handler.js';
import {
  centralAngle, circleBox, distanceKm, innerBox, insideCircle, insideRing, kmToRadians, radiansToKm, ringBox, type Point,
} from '../../src/domain/geo.js';
import { parseGeoSearch, parseNearby, parsePoints, parseRadius } from '../../src/domain/geo-query.js';
import { matchesAllTerms, parseSearchTerms } from '../../src/domain/search-terms.js';
import { visibleAssets } from '../../src/domain/visible-assets.js';
import type { Caller } from '../../src/domain/caller.js';

/** Asserts a 400 whose description names `parameter`. */
function rejects(fn: () => unknown, parameter: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(httpStatus(e), 400);
    assert.ok(e.message.includes(`'${parameter}'`), `${e.message} should name ${parameter}`);
    return true;
  });
}

describe('discovery paging', () => {
  it('defaults to page 1 of 30', () => {
    assert.deepEqual(parsePage({}), { limit: 30, offset: 0 });
  });

  it('turns page and per into an offset, and lets offset win', () => {
    assert.deepEqual(parsePage({ page: '3', per: '20' }), { limit: 20, offset: 40 });
    assert.deepEqual(parsePage({ page: '3', per: '20', offset: '7' }), { limit: 20, offset: 7 });
  });

  it('refuses out-of-range and non-numeric values, naming them', () => {
    rejects(() => parsePage({ per: '0' }), 'per');
    rejects(() => parsePage({ per: '1001' }), 'per');
    rejects(() => parsePage({ per: '2.5' }), 'per');
    rejects(() => parsePage({ page: '0' }), 'page');
    rejects(() => parsePage({ page: 'abc' }), 'page');
    rejects(() => parsePage({ offset: '-1' }), 'offset');
    rejects(() => parseListing({ sample: '0' }), 'sample');
    rejects(() => parseListing({ sample: '1e3' }), 'sample');
  });
});

describe('discovery ordering', () => {
  it('sorts by last reading, newest first, by default', () => {
    assert.deepEqual(parseOrdering({}), { sort: 'last_reading_at', order: 'desc' });
  });

  it('reads names A to Z and times newest first unless told', () => {
    assert.deepEqual(parseOrdering({ sort: 'id' }), { sort: 'id', order: 'asc' });
    assert.deepEqual(parseOrdering({ sort: 'recorded_at' }), { sort: 'recorded_at', order: 'desc' });
    assert.deepEqual(parseOrdering({ sort: 'type', order: 'DESC' }), { sort: 'type', order: 'desc' });
    assert.deepEqual(parseOrdering({ order: 'asc' }), { sort: 'last_reading_at', order: 'asc' });
  });

  it('refuses unknown sort keys and orders', () => {
    rejects(() => parseOrdering({ sort: 'attrs' }), 'sort');
    rejects(() => parseOrdering({ order: 'up' }), 'order');
  });
});

describe('discovery filters', () => {
  it('reads key:value pairs, values of one key being alternatives', () => {
    assert.deepEqual(parseFilter('site:santander,site:london, service:parking'), { site: ['santander', 'london'], service: ['parking'] });
  });

  it('keeps colons in values and completes short type names', () => {
    assert.deepEqual(parseFilter('type:urn:oc:entityType:iotdevice,group:56.15'), { type: ['urn:oc:entityType:iotdevice'], group: ['56.15'] });
    assert.deepEqual(parseFilter('type:parkingSpot'), { type: ['urn:oc:entityType:parkingSpot'] });
  });

  it('refuses unknown keys and pairs without a value', () => {
    rejects(() => parseFilter('colour:red'), 'filter');
    rejects(() => parseFilter('site'), 'filter');
    rejects(() => parseFilter('site:'), 'filter');
  });

  it('narrows filter types with the type parameter', () => {
    assert.deepEqual(parseSelection({ type: 'iotdevice', filter: 'type:iotdevice,type:parkingSpot' }).filters.type, ['urn:oc:entityType:iotdevice']);
    assert.deepEqual(parseSelection({ type: 'shop', filter: 'type:iotdevice' }).filters.type, []);
  });

  it('reads lastUpdated (and the original lastUpdate) as an instant', () => {
    assert.equal(parseSelection({ lastUpdated: '2026-01-02T03:04:05Z' }).updatedSince, Date.parse('2026-01-02T03:04:05Z'));
    assert.equal(parseSelection({ lastUpdate: '2026-01-02' }).updatedSince, Date.parse('2026-01-02T00:00:00Z'));
    rejects(() => parseSelection({ lastUpdated: 'yesterday' }), 'lastUpdated');
    rejects(() => parseSelection({ lastUpdate: '2026-13-01' }), 'lastUpdate');
  });

  it('accepts ISO 8601 with zones and fractions, and real calendar days only', () => {
    assert.equal(parseInstant('x', '2026-01-02T03:04:05.123+01:00'), Date.parse('2026-01-02T02:04:05.123Z'));
    assert.equal(parseInstant('x', '2026-01-02T03:04'), Date.parse('2026-01-02T03:04:00Z'));
    rejects(() => parseInstant('x', '2026-02-30T00:00:00Z'), 'x');
    rejects(() => parseInstant('x', '2026-01-01T24:00:00Z'), 'x');
  });

  it('finds the whole segments a URN prefix pins down', () => {
    assert.deepEqual(segmentsOfPrefix('urn:oc:entity:santander'), {});
    assert.deepEqual(segmentsOfPrefix('urn:oc:entity:santander:'), { site: 'santander' });
    assert.deepEqual(segmentsOfPrefix('urn:oc:entity:santander:parking:np'), { site: 'santander', service: 'parking' });
    assert.deepEqual(segmentsOfPrefix('urn:oc:entity:santander:environmental:fixed:4'), { site: 'santander', service: 'environmental', provider: 'fixed' });
    assert.deepEqual(segmentsOfPrefix('urn:oc:entity:experimenters:alice:exp:'), { site: 'experimenters' });
    assert.deepEqual(segmentsOfPrefix('urn:x:'), {});
  });

  it('writes asset types as federation spells them', () => {
    assert.equal(canonicalAssetType('iotdevice'), 'urn:oc:entityType:iotdevice');
    assert.equal(canonicalAssetType('urn:oc:entitytype:bikeStation'), 'urn:oc:entityType:bikeStation');
    assert.equal(canonicalAssetType('urn:other:thing'), 'urn:other:thing');
  });
});

describe('geo rules', () => {
  const santander: Point = { latitude: 43.4623, longitude: -3.80998 };
  const london: Point = { latitude: 51.507222, longitude: -0.1275 };

  it('measures great-circle distances', () => {
    // One degree of the equator on the mean sphere, and Santander to London (about 936 km).
    assert.ok(Math.abs(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 1 }) - 111.195) < 0.001);
    const km = distanceKm(santander, london);
    assert.ok(Math.abs(km - 936) < 2, `Santander-London ${km} km`);
    assert.equal(distanceKm(santander, santander), 0);
    assert.ok(Math.abs(radiansToKm(kmToRadians(12.5)) - 12.5) < 1e-9);
  });

  it('boxes every point of a circle (property)', () => {
    const point = fc.record({ latitude: fc.double({ min: -89, max: 89, noNaN: true }), longitude: fc.double({ min: -179.9, max: 179.9, noNaN: true }) });
    fc.assert(fc.property(point, fc.double({ min: 1e-6, max: 1.5, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
      (centre, radius, fraction, bearing) => {
        // A point at distance fraction·radius in direction bearing (spherical destination formula).
        const d = radius * fraction * 0.999;
        const phi1 = (centre.latitude * Math.PI) / 180;
        const lambda1 = (centre.longitude * Math.PI) / 180;
        const phi2 = Math.asin(Math.sin(phi1) * Math.cos(d) + Math.cos(phi1) * Math.sin(d) * Math.cos(bearing));
        const lambda2 = lambda1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(phi1), Math.cos(d) - Math.sin(phi1) * Math.sin(phi2));
        let longitude = (lambda2 * 180) / Math.PI;
        longitude = ((longitude + 540) % 360) - 180;
        const p = { latitude: (phi2 * 180) / Math.PI, longitude };
        const circle = { centre, radius };
        assert.ok(insideCircle(p, circle), 'the point is inside');
        assert.ok(centralAngle(centre, p) <= radius);
        const box = circleBox(circle);
        assert.ok(p.latitude >= box.minLat - 1e-9 && p.latitude <= box.maxLat + 1e-9, 'latitude in box');
        assert.ok(p.longitude >= box.minLon - 1e-9 && p.longitude <= box.maxLon + 1e-9, `longitude ${p.longitude} in box ${JSON.stringify(box)}`);
      }), { numRuns: 2000 });
  });

  it('gives small circles an inner box wholly inside them, corners included (property)', () => {
    const centre = fc.record({ latitude: fc.double({ min: -89, max: 89, noNaN: true }), longitude: fc.double({ min: -179.99, max: 179.99, noNaN: true }) });
    const fraction = fc.oneof(fc.constantFrom(0, 1), fc.double({ min: 0, max: 1, noNaN: true }));
    fc.assert(fc.property(centre, fc.double({ min: 1e-7, max: kmToRadians(150), noNaN: true }), fraction, fraction,
      (c, radius, fx, fy) => {
        const circle = { centre: c, radius };
        const box = innerBox(circle);
        if (!box) return;
        assert.ok(radiansToKm(radius) <= 100 && Math.abs(c.latitude) <= 80, 'only small circles away from the poles have one');
        // Its height is radius·√2, about seven tenths of the circle's.
        assert.ok((box.maxLat - box.minLat) * (Math.PI / 180) > 1.4 * radius * 0.999);
        const p = { latitude: box.minLat + fy * (box.maxLat - box.minLat), longitude: box.minLon + fx * (box.maxLon - box.minLon) };
        assert.ok(insideCircle(p, circle), `${JSON.stringify(p)} of ${JSON.stringify(box)} is inside ${JSON.stringify(circle)}`);
      }), { numRuns: 5000, seed: 20261124 });
    assert.equal(innerBox({ centre: { latitude: 43.46, longitude: -3.8 }, radius: kmToRadians(500) }), undefined);
    assert.equal(innerBox({ centre: { latitude: 85, longitude: 10 }, radius: kmToRadians(1) }), undefined);
    assert.ok(innerBox({ centre: { latitude: 43.46, longitude: -3.8 }, radius: kmToRadians(0.5) }));
  });

  it('tells inside from outside a concave polygon', () => {
    // An L shape.
    const ring = [[0, 0], [4, 0], [4, 1], [1, 1], [1, 4], [0, 4]] as const;
    assert.equal(insideRing({ longitude: 0.5, latitude: 3 }, ring), true);
    assert.equal(insideRing({ longitude: 3, latitude: 0.5 }, ring), true);
    assert.equal(insideRing({ longitude: 3, latitude: 3 }, ring), false);
    assert.equal(insideRing({ longitude: -1, latitude: 0.5 }, ring), false);
    assert.deepEqual(ringBox(ring), { minLon: 0, maxLon: 4, minLat: 0, maxLat: 4 });
  });
});

describe('geo search parameters', () => {
  it('reads a circle in kilometres or radians, 1 km by default', () => {
    const km = parseGeoSearch({ lat: '43.46', long: '-3.8', radius: '0.5', km: 'true' });
    assert.deepEqual(km.circle?.centre, { latitude: 43.46, longitude: -3.8 });
    assert.ok(Math.abs(radiansToKm(km.circle?.radius ?? 0) - 0.5) < 1e-9);
    assert.equal(parseGeoSearch({ lat: '43.46', long: '-3.8', radius: '0.01' }).circle?.radius, 0.01);
    assert.equal(parseGeoSearch({ lat: '43.46', long: '-3.8', radius: '0.01', km: 'false' }).circle?.radius, 0.01);
    assert.ok(Math.abs(radiansToKm(parseGeoSearch({ lat: '1', long: '2' }).circle?.radius ?? 0) - 1) < 1e-9);
  });

  it('reads a polygon of [longitude, latitude] pairs and drops a repeated closing vertex', () => {
    const area = parseGeoSearch({ query: 'polygon', points: '[[-3.82,43.45],[-3.79,43.45],[-3.79,43.47],[-3.82,43.45]]', city: 'santander' });
    assert.deepEqual(area.ring, [[-3.82, 43.45], [-3.79, 43.45], [-3.79, 43.47]]);
    assert.equal(area.city, 'santander');
  });

  it('refuses what it cannot read, naming the parameter', () => {
    rejects(() => parseGeoSearch({ lat: '43' }), 'long');
    rejects(() => parseGeoSearch({ long: '-3' }), 'lat');
    rejects(() => parseGeoSearch({ lat: '91', long: '0' }), 'lat');
    rejects(() => parseGeoSearch({ lat: '0', long: 'east' }), 'long');
    rejects(() => parseGeoSearch({ lat: '0', long: '0', radius: '-1' }), 'radius');
    rejects(() => parseGeoSearch({ lat: '0', long: '0', radius: '0' }), 'radius');
    rejects(() => parseGeoSearch({ lat: '0', long: '0', radius: '4' }), 'radius');
    rejects(() => parseGeoSearch({ radius: '1' }), 'radius');
    rejects(() => parseGeoSearch({ lat: '0', long: '0', km: 'maybe' }), 'km');
    rejects(() => parseGeoSearch({ query: 'circle' }), 'query');
    rejects(() => parseGeoSearch({ query: 'polygon' }), 'points');
    rejects(() => parseGeoSearch({ points: 'not json' }), 'points');
    rejects(() => parseGeoSearch({ points: '[[0,0],[1,1]]' }), 'points');
    rejects(() => parseGeoSearch({ points: '[[0,0],[1,1],[0,0],[0,0]]' }), 'points');
    rejects(() => parseGeoSearch({ points: '[[0,0],[1,100],[2,0]]' }), 'points');
    rejects(() => parseGeoSearch({ points: '[[0,0],[1,1],["a",0]]' }), 'points');
    rejects(() => parseGeoSearch({ ip: 'localhost' }), 'ip');
    rejects(() => parseGeoSearch({ ip: '8.8.8.8' }), 'ip');
    rejects(() => parseGeoSearch({ city: ' ' }), 'city');
  });

  it('centres on an address only where a locator knows it, and lat/long win', () => {
    const here = { latitude: 51.5, longitude: -0.12 };
    assert.deepEqual(parseGeoSearch({ ip: '192.0.2.7' }, () => here).circle?.centre, here);
    assert.deepEqual(parseGeoSearch({ ip: '192.0.2.7', lat: '1', long: '2' }, () => here).circle?.centre, { latitude: 1, longitude: 2 });
  });

  it('anchors a nearby polygon at the asset', () => {
    const centre = { latitude: 43.46, longitude: -3.8 };
    assert.deepEqual(parseNearby({ points: '[[-3.7,43.46],[-3.7,43.5]]' }, centre).ring, [[-3.8, 43.46], [-3.7, 43.46], [-3.7, 43.5]]);
    assert.equal(parseNearby({}, centre).circle?.centre, centre);
    rejects(() => parseNearby({ points: '[[-3.7,43.46]]' }, centre), 'points');
  });

  it('caps kilometre radii at the whole sphere', () => {
    assert.equal(parseRadius('20100', 'true'), Math.PI);
    assert.equal(parsePoints('[[0,0],[1,0],[1,1],[0,0]]').length, 3);
  });
});

describe('metadata search terms', () => {
  it('splits on spaces and +, lower-cased, without duplicates', () => {
    assert.deepEqual(parseSearchTerms('Santander+TEMPERATURE  santander'), ['santander', 'temperature']);
  });

  it('refuses an empty query', () => {
    assert.throws(() => parseSearchTerms(undefined), /query/);
    assert.throws(() => parseSearchTerms(' + '), /query/);
    assert.throws(() => parseSearchTerms('a b c d e f g h i'), /query/);
  });

  it('matches only when every term occurs in the id, type, site, attribute names or metadata values', () => {
    const asset = {
      id: 'urn:oc:entity:london:transport:TransportAPI:KGX', type: 'urn:oc:entityType:transportStation', site: 'london',
      attributes: { description: { metadata: { source: { value: 'TransportAPI live feed' } } }, 'temperature:ambient': {} },
    };
    assert.equal(matchesAllTerms(asset, ['london', 'kgx']), true);
    assert.equal(matchesAllTerms(asset, ['live', 'temperature', 'station']), true);
    assert.equal(matchesAllTerms(asset, ['london', 'paris']), false);
  });
});

describe('visible assets', () => {
  const caller = (over: Partial<Caller>): Caller => ({
    subject: 'u1', clientId: undefined, tool: 'opencity-observatory', username: 'alice', email: undefined,
    roles: [], permissions: {}, experimentRoles: [], expiresAt: 0, ...over,
  });

  it('gives anonymous callers the city assets only', () => {
    assert.deepEqual(visibleAssets(undefined), { all: false, experimenter: null, experiments: [] });
  });

  it('adds the caller\'s own experiments and those they take part in', () => {
    assert.deepEqual(visibleAssets(caller({ experimentRoles: [{ role: 'participant', experiment: 'e1' }, { role: 'other', experiment: 'e2' }] })),
      { all: false, experimenter: 'u1', experiments: ['e1'] });
  });

  it('shows administrators everything (either spelling)', () => {
    assert.deepEqual(visibleAssets(caller({ roles: ['administrator'] })), { all: true });
    assert.deepEqual(visibleAssets(caller({ roles: ['administator'] })), { all: true });
  });
});

describe('one date rule for discovery and the datasource', () => {
  it('discovery reads a date as the datasource does: +01 offsets, , fractions and years 0–99 alike', async () => {
    const { parseIsoDate } = await import('../../src/domain/history-dates.js');
    for (const text of ['2017-01-09T19:26:35,5+01', '0099-03-01T00:00Z', '2017-01-09', '2017-01-09T19:26Z', '2017-01-09T19:26:35.000+01:00', '2017-01-09t19:26z']) {
      assert.equal(parseInstant('lastUpdated', text), parseIsoDate(text), text);
    }
    assert.equal(parseInstant('x', '0099-03-01T00:00Z'), Date.parse('0099-03-01T00:00:00.000Z'));
    for (const text of ['2017-02-30', '2017-01-09T24:00Z', 'yesterday']) {
      assert.equal(parseIsoDate(text), undefined, text);
      assert.throws(() => parseInstant('lastUpdated', text), (e: Error) => e.message.includes(`got ${JSON.stringify(text)}`), text);
    }
  });
});
