import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { matchesGeoRelation, parseGeoRelation } from '../../src/domain/ngsi-georel.js';
import { renderEntity } from '../../src/domain/ngsi-entity-format.js';
import { matchesSimpleQuery, parseSimpleQuery } from '../../src/domain/ngsi-simple-query.js';

const attrs = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { type: 'x', value, metadata: {} }]));

const room = attrs({
  temperature: 23.5,
  status: 'open',
  occupied: true,
  observedAt: '2027-05-01T10:00:00.000Z',
  tags: ['a', 'b'],
  address: { city: 'Santander', street: { name: 'Calle Alta' } },
  'dotted.name': 'yes',
});

const matches = (q: string) => matchesSimpleQuery(parseSimpleQuery(q), room);
const refused = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof AppError && e.code === 'BAD_REQUEST' && pattern.test(e.message));

describe('the NGSI v2 simple query language', () => {
  it('compares numbers, text, booleans and instants', () => {
    assert.equal(matches('temperature>20'), true);
    assert.equal(matches('temperature>=23.5'), true);
    assert.equal(matches('temperature<23.5'), false);
    assert.equal(matches('temperature<=30;temperature>-5'), true);
    assert.equal(matches('temperature==23.5'), true);
    assert.equal(matches('temperature!=23.5'), false);
    assert.equal(matches('status==open'), true);
    assert.equal(matches("status=='open'"), true);
    assert.equal(matches('status!=closed'), true);
    assert.equal(matches('occupied==true'), true);
    assert.equal(matches('observedAt>2027-04-30T00:00:00.000Z'), true);
    assert.equal(matches('observedAt<2027-04-30'), false);
  });

  it('takes lists, ranges, existence, patterns and paths into compound values', () => {
    assert.equal(matches('temperature==20..25'), true);
    assert.equal(matches('temperature==24..25'), false);
    assert.equal(matches('status==closed,open'), true);
    assert.equal(matches('status!=closed,open'), false);
    assert.equal(matches('tags==b'), true);
    assert.equal(matches('temperature'), true);
    assert.equal(matches('!humidity'), true);
    assert.equal(matches('!temperature'), false);
    assert.equal(matches('status~=^op'), true);
    assert.equal(matches('address.city==Santander'), true);
    assert.equal(matches('address.street.name==Calle Alta'), true);
    assert.equal(matches("'dotted.name'==yes"), true);
  });

  it('never holds for a missing attribute or values of another kind', () => {
    assert.equal(matches('humidity>1'), false);
    assert.equal(matches('humidity!=1'), false);
    assert.equal(matches('status>1'), false);
    assert.equal(matches('temperature~=2'), false);
  });

  it('refuses what it cannot read, naming it', () => {
    refused(() => parseSimpleQuery(''), /empty q/);
    refused(() => parseSimpleQuery("status=='open"), /unterminated quote/);
    refused(() => parseSimpleQuery('==3'), /no attribute name/);
    refused(() => parseSimpleQuery('temperature>'), /no value/);
    refused(() => parseSimpleQuery('status~=(['), /invalid regular expression/);
    refused(() => parseSimpleQuery('a==1..2..3'), /invalid range/);
    refused(() => parseSimpleQuery('x'.repeat(5000)), /longer than/);
  });
});

describe('NGSI v2 geographical queries', () => {
  const santander = { latitude: 43.4623, longitude: -3.80998 };
  it('finds what is near a point, within or beyond a distance', () => {
    const near = parseGeoRelation({ georel: 'near;maxDistance:1000', geometry: 'point', coords: '43.4623,-3.8' });
    assert.equal(matchesGeoRelation(near!, santander), true);
    const far = parseGeoRelation({ georel: 'near;minDistance:2000', geometry: 'point', coords: '43.4623,-3.8' });
    assert.equal(matchesGeoRelation(far!, santander), false);
    assert.equal(matchesGeoRelation(near!, undefined), false);
  });

  it('finds what a polygon or a box covers, and what is disjoint from it', () => {
    const polygon = parseGeoRelation({ georel: 'coveredBy', geometry: 'polygon', coords: '43,-4;44,-4;44,-3;43,-3;43,-4' });
    assert.equal(matchesGeoRelation(polygon!, santander), true);
    const box = parseGeoRelation({ georel: 'disjoint', geometry: 'box', coords: '40,-4;41,-3' });
    assert.equal(matchesGeoRelation(box!, santander), true);
    const equals = parseGeoRelation({ georel: 'equals', geometry: 'point', coords: '43.4623,-3.80998' });
    assert.equal(matchesGeoRelation(equals!, santander), true);
  });

  it('takes none of the three as no condition, and refuses what is incomplete or malformed', () => {
    assert.equal(parseGeoRelation({}), undefined);
    refused(() => parseGeoRelation({ georel: 'near;maxDistance:10' }), /go together/);
    refused(() => parseGeoRelation({ georel: 'near', geometry: 'point', coords: '1,2' }), /maxDistance or minDistance/);
    refused(() => parseGeoRelation({ georel: 'near;maxDistance:-1', geometry: 'point', coords: '1,2' }), /non-negative/);
    refused(() => parseGeoRelation({ georel: 'within', geometry: 'point', coords: '1,2' }), /Invalid georel/);
    refused(() => parseGeoRelation({ georel: 'coveredBy', geometry: 'polygon', coords: '1,2;3,4;5,6' }), /polygon/);
    refused(() => parseGeoRelation({ georel: 'coveredBy', geometry: 'point', coords: '1,2' }), /polygon or a box/);
    refused(() => parseGeoRelation({ georel: 'equals', geometry: 'point', coords: '91,2' }), /out of range/);
    refused(() => parseGeoRelation({ georel: 'equals', geometry: 'circle', coords: '1,2' }), /Invalid geometry/);
  });
});

describe('NGSI v2 entity formats', () => {
  const entity = { id: 'urn:oc:entity:s:1', type: 'urn:oc:entityType:t', attributes: attrs({ a: 1, b: 'two', c: [3] }) };
  it('renders normalized, keyValues and values with the attributes selected', () => {
    assert.deepEqual({ ...renderEntity(entity, 'normalized', { attrs: ['b'] }) }, { id: entity.id, type: entity.type, b: { type: 'x', value: 'two', metadata: {} } });
    assert.deepEqual({ ...renderEntity(entity, 'keyValues', { exceptAttrs: ['a'] }) }, { id: entity.id, type: entity.type, b: 'two', c: [3] });
    assert.deepEqual(renderEntity(entity, 'values', { attrs: ['c', 'a', 'missing'] }), [[3], 1]);
    assert.deepEqual(renderEntity(entity, 'values', { attrs: ['*'] }), [1, 'two', [3]]);
  });
});
