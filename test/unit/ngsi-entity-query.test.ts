import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { valueMediaType } from '../../src/domain/ngsi-attribute-value.js';
import { parseSimpleQuery } from '../../src/domain/ngsi-simple-query.js';
import { hasNestedRepetition } from '../../src/domain/pattern-safety.js';
import { filtersBeyondLists, geoPrefilterBox, matchesEntityQuery, orderEntities, storeOrders, uniqueValues, type EntityCandidate } from '../../src/domain/ngsi-entity-evaluation.js';
import { parseListParameters, parseOptions, parseOrderBy, parsePaging, parseQueryOperation } from '../../src/domain/ngsi-entity-query.js';

const refused = (fn: () => unknown, pattern: RegExp, code = 'BAD_REQUEST') =>
  assert.throws(fn, (e: unknown) => e instanceof AppError && e.code === code && pattern.test(e.message));

const entity = (id: string, values: Record<string, unknown>, type = 'Room', createdAt = 0): EntityCandidate => ({
  id, type, createdAt, modifiedAt: createdAt,
  attributes: Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { type: 'x', value, metadata: {} }])),
});

describe('NGSI v2 entity queries: parameters', () => {
  it('reads paging with its defaults and bounds', () => {
    assert.deepEqual(parsePaging(undefined, undefined), { limit: 20, offset: 0 });
    assert.deepEqual(parsePaging('1000', '5'), { limit: 1000, offset: 5 });
    refused(() => parsePaging('1001', undefined), /^Invalid limit: /);
    refused(() => parsePaging('0', undefined), /^Invalid limit: /);
    refused(() => parsePaging('2.5', undefined), /^Invalid limit: /);
    refused(() => parsePaging(undefined, '-1'), /^Invalid offset: /);
  });

  it('reads options: one format, count, and only what the operation allows', () => {
    assert.deepEqual(parseOptions('count,keyValues', ['count', 'keyValues']), { format: 'keyValues', unique: false, count: true });
    assert.deepEqual(parseOptions('unique', ['unique']), { format: 'values', unique: true, count: false });
    assert.deepEqual(parseOptions(undefined, []), { format: 'normalized', unique: false, count: false });
    refused(() => parseOptions('values,unique', ['values', 'unique']), /^Invalid options: values and unique exclude each other$/);
    refused(() => parseOptions('upsert', ['count']), /^Invalid options: "upsert" is not supported here \(count\)$/);
  });

  it('reads orderBy keys, refusing repeats and a distance without near', () => {
    assert.deepEqual(parseOrderBy('temperature,!id', undefined), [
      { by: 'attribute', name: 'temperature', descending: false },
      { by: 'builtin', name: 'id', descending: true },
    ]);
    refused(() => parseOrderBy('a,!a', undefined), /"a" is given more than once/);
    refused(() => parseOrderBy('geo:distance', undefined), /needs georel=near/);
    refused(() => parseOrderBy('!', undefined), /empty key/);
  });

  it('reads the list parameters into one selector, and names the field of each failure', () => {
    const query = parseListParameters({ id: 'a,b', type: 'Room', q: 'temperature>20', attrs: 'temperature', options: 'count' });
    assert.equal(query.selectors.length, 1);
    assert.deepEqual(query.selectors[0], { ids: ['a', 'b'], types: ['Room'] });
    assert.equal(query.count, true);
    assert.deepEqual(parseListParameters({}).selectors, []);
    refused(() => parseListParameters({ q: "a=='x" }), /^Invalid q: unterminated quote/);
    refused(() => parseListParameters({ georel: 'near;maxDistance:1', geometry: 'point', coords: '91,0' }), /^Invalid coords: /);
    refused(() => parseListParameters({ id: Array.from({ length: 1001 }, (_, i) => `e${i}`).join(',') }), /^Invalid id: more than 1000 names$/);
  });

  it('reads a query operation body: selectors, attrs and expression', () => {
    const query = parseQueryOperation({ entities: [{ id: 'a', type: 'Room' }, { idPattern: '^b' }], attrs: ['t'], expression: { q: 't>1' } }, { limit: '5', options: 'values' });
    assert.equal(query.selectors.length, 2);
    assert.deepEqual(query.selectors[0], { ids: ['a'], types: ['Room'] });
    assert.equal(query.limit, 5);
    assert.equal(query.format, 'values');
    refused(() => parseQueryOperation({ entities: [{ idPattern: 'a', id: 'b' }] }, {}), /^Invalid entities\[0\]\.idPattern: id and idPattern exclude each other$/);
    refused(() => parseQueryOperation({ entities: Array.from({ length: 1001 }, () => ({ id: 'a' })) }, {}), /^Invalid entities: more than 1000 selectors$/);
    refused(() => parseQueryOperation(null, {}), /^Invalid body: /);
  });
});

describe('NGSI v2 entity queries: evaluation', () => {
  const rooms = [
    { ...entity('Room1', { temperature: 21 }), attributes: { temperature: { type: 'Number', value: 21, metadata: {} }, location: { type: 'geo:json', value: { type: 'Point', coordinates: [-3.8, 43.46] }, metadata: {} } } },
    entity('Room2', { temperature: 'warm' }, 'Room', 1),
    entity('Hall', { temperature: null }, 'Hall', 2),
    entity('Room3', { temperature: 19, colour: 'red' }, 'Room', 3),
    entity('Room4', {}, 'Room', 4),
  ];

  it('matches selectors, q and georel together', () => {
    const q = parseListParameters({ idPattern: '^Room', q: 'temperature>20' });
    assert.deepEqual(rooms.filter((e) => matchesEntityQuery(q, e)).map((e) => e.id), ['Room1']);
    const either = parseQueryOperation({ entities: [{ id: 'Hall' }, { idPattern: '3$', type: 'Room' }] }, {});
    assert.deepEqual(rooms.filter((e) => matchesEntityQuery(either, e)).map((e) => e.id), ['Hall', 'Room3']);
    const near = parseListParameters({ georel: 'near;maxDistance:10', geometry: 'point', coords: '43.46,-3.8' });
    assert.deepEqual(rooms.filter((e) => matchesEntityQuery(near, e)).map((e) => e.id), ['Room1']);
  });

  it('orders mixed kinds as Orion does (absent and null, numbers, text), ties in the given order', () => {
    const ascending = parseListParameters({ orderBy: 'temperature' });
    assert.deepEqual(orderEntities(ascending, rooms).map((e) => e.id), ['Hall', 'Room4', 'Room3', 'Room1', 'Room2']);
    const descending = parseListParameters({ orderBy: '!temperature,!id' });
    assert.deepEqual(orderEntities(descending, rooms).map((e) => e.id), ['Room2', 'Room1', 'Room3', 'Room4', 'Hall']);
  });

  it('tells what the store can answer alone', () => {
    assert.equal(filtersBeyondLists(parseListParameters({ id: 'a', type: 'b', orderBy: 'id' })), false);
    assert.equal(storeOrders(parseListParameters({ orderBy: '!dateModified,type' })), true);
    assert.equal(filtersBeyondLists(parseListParameters({ typePattern: 'R' })), true);
    assert.equal(storeOrders(parseListParameters({ orderBy: 'temperature' })), false);
  });

  it('gives a prefilter box holding every match, and none where the relation has no bounds', () => {
    const near = parseListParameters({ georel: 'near;maxDistance:1000', geometry: 'point', coords: '43.46,-3.8' }).geo;
    const box = geoPrefilterBox(near);
    assert.ok(box && box.minLat < 43.452 && box.maxLat > 43.468 && box.minLon < -3.812 && box.maxLon > -3.788);
    assert.equal(geoPrefilterBox(parseListParameters({ georel: 'near;minDistance:1000', geometry: 'point', coords: '43.46,-3.8' }).geo), undefined);
    assert.equal(geoPrefilterBox(parseListParameters({ georel: 'disjoint', geometry: 'point', coords: '43.46,-3.8' }).geo), undefined);
    const covered = geoPrefilterBox(parseListParameters({ georel: 'coveredBy', geometry: 'box', coords: '43,-4;44,-3' }).geo);
    assert.ok(covered && covered.minLat <= 43 && covered.maxLat >= 44 && covered.minLon <= -4 && covered.maxLon >= -3);
  });

  it('leaves repeated values out of the unique format', () => {
    assert.deepEqual(uniqueValues([1, 'a', 1, { x: 1 }, { x: 1 }, null, null]), [1, 'a', { x: 1 }, null]);
  });
});

describe('NGSI v2 attribute values: media types', () => {
  it('writes objects as JSON (or text when asked first) and other values as text only', () => {
    assert.equal(valueMediaType({ a: 1 }, undefined), 'application/json');
    assert.equal(valueMediaType([1], 'text/plain, application/json'), 'text/plain');
    assert.equal(valueMediaType([1], 'application/*'), 'application/json');
    assert.equal(valueMediaType(21, 'application/json, text/plain'), 'text/plain');
    assert.equal(valueMediaType('x', '*/*'), 'text/plain');
    assert.equal(valueMediaType(null, 'text/*'), 'text/plain');
    refused(() => valueMediaType('x', 'application/json'), /accepted MIME types: text\/plain$/, 'NOT_ACCEPTABLE');
    refused(() => valueMediaType({}, 'image/png'), /application\/json, text\/plain$/, 'NOT_ACCEPTABLE');
    refused(() => valueMediaType(1, 'text/plain;q=0, application/json'), /text\/plain$/, 'NOT_ACCEPTABLE');
  });
});

describe('caller-written regular expressions', () => {
  it('refuses a repeated group that holds a repetition, and nothing else', () => {
    for (const nested of ['(a+)+$', '((a)+)+', '(?:a*b)*', '(a{2,})+', '(x|y+){1,}']) assert.equal(hasNestedRepetition(nested), true, nested);
    for (const plain of ['^urn:oc:.*:reads:[0-9]+$', '(ab)+', '(a|b)*c', '\\(a+\\)+', '[(]a+[)]+', '(a+){3}', 'bus$']) assert.equal(hasNestedRepetition(plain), false, plain);
    refused(() => parseListParameters({ idPattern: '(a+)+$' }), /^Invalid idPattern: "\(a\+\)\+\$" repeats a group that holds a repetition$/);
    refused(() => parseSimpleQuery('name~=(a+)+$'), /repeats a group that holds a repetition/);
  });
});
