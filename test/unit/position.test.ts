import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { positionFromAttributes } from '../../src/domain/position.js';
import { answered } from '../helpers/answered.js';

const SANTANDER = { latitude: 43.4623, longitude: -3.80998 };
const LONDON = { latitude: 51.5074, longitude: -0.1278 };
const at = (attrs: Record<string, { type: string; value: unknown }>, near = SANTANDER) => positionFromAttributes(attrs, near);

describe('asset positions', () => {
  it('reads a geo:point "lat, lon"', () => {
    assert.deepEqual(at({ location: { type: 'geo:point', value: '56.153394, 10.213934' } }, { latitude: 56.15, longitude: 10.2 }), { latitude: 56.153394, longitude: 10.213934 });
  });
  it('reads the older position attribute of type coords "lat,lon"', () => {
    assert.deepEqual(at({ position: { type: 'coords', value: '43.46263,-3.79880' } }), { latitude: 43.46263, longitude: -3.7988 });
  });
  it('takes a "lon,lat" point the right way round when that is the reading near the site', () => {
    assert.deepEqual(at({ location: { type: 'geo:point', value: '-0.22078893731921054,51.49501040208028' } }, LONDON), { latitude: 51.49501040208028, longitude: -0.22078893731921054 });
    assert.deepEqual(at({ location: { type: 'geo:point', value: '-3.81289,43.45487' } }), { latitude: 43.45487, longitude: -3.81289 });
  });
  it('swaps a point whose first number cannot be a latitude', () => {
    assert.deepEqual(at({ location: { type: 'geo:point', value: '120.5, 10' } }), { latitude: 10, longitude: 120.5 });
  });
  it('reads a geo:json Point [lon, lat]', () => {
    assert.deepEqual(at({ location: { type: 'geo:json', value: { type: 'Point', coordinates: [-3.82782, 43.4513] } } }), { latitude: 43.4513, longitude: -3.82782 });
  });
  it('places any other geometry at the centre of its bounding box', () => {
    const polygon = { type: 'Polygon', coordinates: [[[-3.8, 43.4], [-3.7, 43.4], [-3.7, 43.5], [-3.8, 43.5], [-3.8, 43.4]]] };
    const p = at({ location: { type: 'geo:json', value: polygon } });
    assert.ok(p);
    assert.ok(Math.abs(p.latitude - 43.45) < 1e-9 && Math.abs(p.longitude + 3.75) < 1e-9);
  });
  it('prefers location over position, and ignores other types', () => {
    assert.deepEqual(at({ location: { type: 'geo:point', value: '43.1, -3.1' }, position: { type: 'coords', value: '43.2,-3.2' } }), { latitude: 43.1, longitude: -3.1 });
    assert.deepEqual(at({ location: { type: 'Text', value: 'Plaza' }, position: { type: 'coords', value: '43.2,-3.2' } }), { latitude: 43.2, longitude: -3.2 });
    assert.equal(at({ temperature: { type: 'Number', value: 3 } }), undefined);
    assert.equal(at({ location: { type: 'oc:geo:json', value: {} } }), undefined);
  });
  it('refuses points it cannot read, with a clear description', () => {
    for (const value of ['abc', '43.4', '43.4,-3.8,1', '', 43.4, null, ', -3.8']) {
      assert.throws(() => answered(() => at({ location: { type: 'geo:point', value } })), { status: 400, message: 'Asset attribute location is not a valid point: expected "latitude, longitude"' }, String(value));
    }
    assert.throws(() => at({ position: { type: 'coords', value: 'x,y' } }), { message: 'Asset attribute position is not a valid point: expected "latitude, longitude"' });
    assert.throws(() => at({ location: { type: 'geo:point', value: '100, 200' } }), { message: 'Asset attribute location is out of range: latitude must be within ±90 and longitude within ±180' });
  });
  it('refuses geo:json that is not a geometry', () => {
    for (const value of [null, 'Point', { type: 'Point' }, { type: 'Point', coordinates: [] }, { type: 'Point', coordinates: ['a', 'b'] }, { coordinates: [1, 2] }]) {
      assert.throws(() => answered(() => at({ location: { type: 'geo:json', value } })), { status: 400, message: /^Asset attribute location is not a valid geo:json geometry/ }, JSON.stringify(value));
    }
    assert.throws(() => at({ location: { type: 'geo:json', value: { type: 'Point', coordinates: [500, 10] } } }), { message: /out of range/ });
  });
});
