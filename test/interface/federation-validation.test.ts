import assert from 'node:assert/strict';
import { it } from 'node:test';
import { bearer, describeEachStore } from '../helpers/platform.js';
import { assetBody, BASE, create, entityUrl, timeInstant, update, writeHeaders } from '../helpers/federation.js';

/** Every refusal of the federation interface: status, exact JSON body, Content-Type exactly application/json. */
type Res = { statusCode: number; headers: Record<string, unknown>; json(): unknown; body: string };

function refused(res: Res, status: number, error: string, description: string | RegExp): void {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.headers['content-type'], 'application/json');
  const body = res.json() as { error: string; description: string };
  assert.deepEqual(Object.keys(body), ['error', 'description']);
  assert.equal(body.error, error);
  if (typeof description === 'string') assert.equal(body.description, description);
  else assert.match(body.description, description);
}

const ID = 'urn:oc:entity:santander:environment:fixed:v1';

describeEachStore('federation: who may call', (platform) => {
  const routes = (token: string | undefined) => {
    const auth = token ? bearer(token) : {};
    const json = { 'content-type': 'application/json', 'platform-service': 'opencity' };
    return [
      { method: 'POST' as const, url: BASE, headers: { ...auth, ...json }, payload: JSON.stringify(assetBody(ID)) },
      { method: 'POST' as const, url: entityUrl(ID, '/attrs'), headers: { ...auth, ...json }, payload: JSON.stringify({ TimeInstant: timeInstant() }) },
      { method: 'DELETE' as const, url: entityUrl(ID), headers: auth },
      { method: 'GET' as const, url: entityUrl(ID), headers: auth },
    ];
  };

  it('refuses a request without a token: 401 on every route', async () => {
    for (const r of routes(undefined)) refused(await platform().app.inject(r), 401, 'Unauthorized', 'No bearer token was supplied');
  });

  it('refuses an invalid or expired token: 401', async () => {
    const p = platform();
    for (const r of routes('not-a-jwt')) refused(await p.app.inject(r), 401, 'Unauthorized', /^Invalid token/);
    const token = await p.siteToken('santander');
    p.clock.advance(301_000);
    for (const r of routes(token)) refused(await p.app.inject(r), 401, 'Unauthorized', 'The access token expired');
  });

  it('refuses a client without the role ocsite: 403', async () => {
    const p = platform();
    const token = await p.clientToken('ocsite-noroles', []);
    for (const r of routes(token)) refused(await p.app.inject(r), 403, 'Forbidden', 'The role ocsite is required to use the federation interface');
  });

  it('refuses a caller that is not a client (a person), even with the role ocsite', async () => {
    const p = platform();
    const { token } = await p.userToken('mallory', ['ocsite']);
    for (const r of routes(token)) refused(await p.app.inject(r), 400, 'BadRequest', 'You are not a client! The federation interface takes the token of a site client');
  });

  it('refuses a client that is not a site client', async () => {
    const p = platform();
    const token = await p.clientToken('dashboard', ['ocsite']);
    for (const r of routes(token)) refused(await p.app.inject(r), 400, 'BadRequest', 'ClientID wrong. You are not a site client: site client ids start with ocsite-');
  });

  it('refuses a site client id that names no site, or a site never registered', async () => {
    const p = platform();
    const bad = await p.clientToken('ocsite-a.b', ['ocsite']);
    for (const r of routes(bad)) refused(await p.app.inject(r), 400, 'BadRequest', 'ClientID wrong: ocsite-a.b does not name a site (ocsite-<site>)');
    const unknown = await p.clientToken('ocsite-atlantis', ['ocsite']);
    for (const r of routes(unknown)) refused(await p.app.inject(r), 400, 'BadRequest', 'ClientID wrong: no site atlantis is registered on this platform');
  });

  it('checks the caller before the headers and the body', async () => {
    const p = platform();
    const res = await p.app.inject({ method: 'POST', url: BASE, headers: { 'content-type': 'text/plain' }, payload: '{' });
    refused(res, 401, 'Unauthorized', 'No bearer token was supplied');
  });
});

describeEachStore('federation: headers and body', (platform) => {
  it('requires platform-service on create and update', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const headers = { ...bearer(token), 'content-type': 'application/json' };
    const missing = 'HTTP header platform-service not provided! (Fiware-Service is accepted as its synonym)';
    refused(await p.app.inject({ method: 'POST', url: BASE, headers, payload: JSON.stringify(assetBody(ID)) }), 400, 'BadRequest', missing);
    refused(await p.app.inject({ method: 'POST', url: entityUrl(ID, '/attrs'), headers, payload: JSON.stringify({ TimeInstant: timeInstant() }) }), 400, 'BadRequest', missing);
  });

  it('refuses another platform-service value, on every route', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const wrong = 'HTTP header platform-service "organicity" not acceptable: this platform\'s service is "opencity"';
    refused(await create(p, token, assetBody(ID), { 'platform-service': 'organicity' }), 400, 'BadRequest', wrong);
    refused(await update(p, token, ID, { TimeInstant: timeInstant() }, { 'platform-service': 'organicity' }), 400, 'BadRequest', wrong);
    refused(await p.app.inject({ method: 'DELETE', url: entityUrl(ID), headers: { ...bearer(token), 'fiware-service': 'organicity' } }), 400, 'BadRequest', wrong);
    refused(await p.app.inject({ method: 'GET', url: entityUrl(ID), headers: { ...bearer(token), 'platform-service': 'organicity' } }), 400, 'BadRequest', wrong);
    refused(await create(p, token, assetBody(ID), { 'platform-service': 'OpenCity' }), 400, 'BadRequest', /"OpenCity" not acceptable/);
  });

  it('accepts Fiware-Service as the synonym of platform-service', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const headers = { ...bearer(token), 'content-type': 'application/json', 'Fiware-Service': 'opencity' };
    const res = await p.app.inject({ method: 'POST', url: BASE, headers, payload: JSON.stringify(assetBody('urn:oc:entity:santander:environment:fixed:fs')) });
    assert.equal(res.statusCode, 201, res.body);
    refused(await create(p, token, assetBody(ID), { 'fiware-service': 'other' }), 400, 'BadRequest', /"other" not acceptable/);
  });

  it('refuses a Content-Type other than application/json with 415', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/plain;charset=UTF-8', 'application/jsonx']) {
      const headers = { ...writeHeaders(token), 'content-type': type };
      refused(await p.app.inject({ method: 'POST', url: BASE, headers, payload: JSON.stringify(assetBody(ID)) }), 415, 'UnsupportedMediaType', `Content-Type ${type} not acceptable. Please provide application/json`);
      refused(await p.app.inject({ method: 'POST', url: entityUrl(ID, '/attrs'), headers, payload: JSON.stringify({ TimeInstant: timeInstant() }) }), 415, 'UnsupportedMediaType', `Content-Type ${type} not acceptable. Please provide application/json`);
    }
    const { 'content-type': _dropped, ...noType } = writeHeaders(token);
    refused(await p.app.inject({ method: 'POST', url: BASE, headers: noType, payload: JSON.stringify(assetBody(ID)) }), 415, 'UnsupportedMediaType', 'Content-Type header not provided. Please provide application/json');
  });

  it('accepts application/json with a charset parameter', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const res = await create(p, token, assetBody('urn:oc:entity:santander:environment:fixed:charset'), { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.statusCode, 201, res.body);
  });

  it('checks platform-service before the Content-Type', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    refused(await create(p, token, assetBody(ID), { 'platform-service': 'x', 'content-type': 'text/plain' }), 400, 'BadRequest', /platform-service "x" not acceptable/);
  });

  it('refuses a missing body, invalid JSON, and a body that is not an object', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    for (const url of [BASE, entityUrl(ID, '/attrs')]) {
      refused(await p.app.inject({ method: 'POST', url, headers: writeHeaders(token) }), 400, 'BadRequest', 'No HTTP body provided!');
      refused(await p.app.inject({ method: 'POST', url, headers: writeHeaders(token), payload: '   ' }), 400, 'BadRequest', 'No HTTP body provided!');
      refused(await p.app.inject({ method: 'POST', url, headers: writeHeaders(token), payload: '{"id": ' }), 400, 'BadRequest', 'HTTP body is not valid JSON!');
      refused(await p.app.inject({ method: 'POST', url, headers: writeHeaders(token), payload: "{'id': 1}" }), 400, 'BadRequest', 'HTTP body is not valid JSON!');
      // Valid JSON around bytes that are not UTF-8: refused, not stored with U+FFFD in their place.
      const broken = Buffer.concat([Buffer.from(`{"id":"${ID}","type":"urn:oc:entityType:iotdevice","name":{"type":"Text","value":"`), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}}')]);
      refused(await p.app.inject({ method: 'POST', url, headers: writeHeaders(token), payload: broken }), 400, 'BadRequest', 'The request body is not valid UTF-8');
      for (const payload of ['null', '[]', '"text"', '42', 'true']) {
        refused(await p.app.inject({ method: 'POST', url, headers: writeHeaders(token), payload }), 400, 'BadRequest', 'HTTP body must be a JSON object');
      }
    }
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const res = await create(p, token, assetBody(ID, { big: { type: 'Text', value: 'x'.repeat(1024 * 1024) } }));
    assert.equal(res.statusCode, 413);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal((res.json() as { error: string }).error, 'PayloadTooLarge');
  });

  it('refuses NGSI options it does not offer', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    // upsert, append and keyValues are offered; Orion's forcedUpdate and overrideMetadata are not.
    const res = await p.app.inject({ method: 'POST', url: `${BASE}?options=upsert,forcedUpdate`, headers: writeHeaders(token), payload: JSON.stringify(assetBody(ID)) });
    refused(res, 400, 'BadRequest', 'Query parameter options=forcedUpdate is not supported here');
    refused(await update(p, token, ID, { TimeInstant: timeInstant() }, {}, '?options=overrideMetadata'), 400, 'BadRequest', 'Query parameter options=overrideMetadata is not supported here');
  });
});

describeEachStore('federation: asset content', (platform) => {
  const cases: Array<[string, (id: string) => unknown, string | RegExp]> = [
    ['id missing', () => ({ type: 'urn:oc:entityType:x', TimeInstant: timeInstant() }), 'No Asset ID provided!'],
    ['id empty', () => ({ id: '', type: 'urn:oc:entityType:x', TimeInstant: timeInstant() }), 'No Asset ID provided!'],
    ['id not a string', () => ({ id: 7, type: 'urn:oc:entityType:x', TimeInstant: timeInstant() }), 'Asset.id must be a string'],
    ['id prefix wrong', () => assetBody('urn:oc:santander:tourism:poi:beach:6'), 'Asset.id prefix wrong: the assets of this site start with urn:oc:entity:santander:'],
    ["another site's prefix", () => assetBody('urn:oc:entity:london:aqn:CD9'), 'Asset.id prefix wrong: the assets of this site start with urn:oc:entity:santander:'],
    ['experimenters prefix', () => assetBody('urn:oc:entity:experimenters:1:2:3'), /^Asset\.id prefix wrong/],
    ['nothing after the prefix', () => assetBody('urn:oc:entity:santander:'), 'Asset.id names no asset after urn:oc:entity:santander:'],
    ['empty segment', () => assetBody('urn:oc:entity:santander:a::b'), 'Asset.id has an empty segment (two colons in a row, or a trailing colon)'],
    ['id over 256 characters', () => assetBody(`urn:oc:entity:santander:${'x'.repeat(233)}`), 'Asset.id is longer than 256 characters'],
    ['id with forbidden characters', () => assetBody('urn:oc:entity:santander:a b'), /^Asset\.id contains forbidden characters/],
    ['id with a slash', () => assetBody('urn:oc:entity:santander:a/b'), /^Asset\.id contains forbidden characters/],
    ['type missing', (id) => ({ id, TimeInstant: timeInstant() }), 'Asset.type not provided!'],
    ['type not a string', (id) => ({ id, type: ['urn:oc:entityType:x'], TimeInstant: timeInstant() }), 'Asset.type must be a string'],
    ['type prefix wrong', (id) => assetBody(id, {}, 'bus:line'), 'Asset.type prefix must be urn:oc:entityType:'],
    ['type empty after the prefix', (id) => assetBody(id, {}, 'urn:oc:entityType:'), 'Asset.type empty after the prefix urn:oc:entityType:'],
    ['type over 256 characters', (id) => assetBody(id, {}, `urn:oc:entityType:${'t'.repeat(239)}`), 'Asset.type is longer than 256 characters'],
    ['type with forbidden characters', (id) => assetBody(id, {}, 'urn:oc:entityType:a(b)'), /^Asset\.type contains forbidden characters/],
    ['TimeInstant missing', (id) => ({ id, type: 'urn:oc:entityType:x' }), 'Asset attribute TimeInstant in payload not found!'],
    ['TimeInstant not an object', (id) => assetBody(id, { TimeInstant: '2017-07-25T13:35:00.000Z' }), 'Asset attribute TimeInstant must be an object with type and value: expected {"type":"urn:oc:attributeType:ISO8601","value":"YYYY-MM-DDTHH:mm:ss.SSSZ"}, got "2017-07-25T13:35:00.000Z"'],
    ['TimeInstant wrong type', (id) => assetBody(id, { TimeInstant: { type: 'ISO8601', value: '2017-01-09T11:17:33.000Z' } }), 'Asset attribute TimeInstant.type must be urn:oc:attributeType:ISO8601'],
    ['TimeInstant without value', (id) => assetBody(id, { TimeInstant: { type: 'urn:oc:attributeType:ISO8601' } }), 'Asset attribute TimeInstant.value not provided!'],
    ['TimeInstant value a number', (id) => assetBody(id, { TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: 1475588700000 } }), 'Asset attribute TimeInstant.value must be a string: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got 1475588700000 (a number)'],
    ['TimeInstant wrong format', (id) => assetBody(id, { TimeInstant: timeInstant('2016-10-04T13:45:00Z') }), 'Asset attribute TimeInstant.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got "2016-10-04T13:45:00Z" (no milliseconds)'],
    ['TimeInstant with an offset', (id) => assetBody(id, { TimeInstant: timeInstant('2016-10-04T13:45:00.000+01:00') }), 'Asset attribute TimeInstant.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got "2016-10-04T13:45:00.000+01:00" (an offset: only UTC, written \'Z\', is accepted)'],
    ['TimeInstant impossible date', (id) => assetBody(id, { TimeInstant: timeInstant('2015-02-29T13:45:00.000Z') }), 'Asset attribute TimeInstant.value is not a real calendar instant: expected YYYY-MM-DDTHH:mm:ss.SSSZ naming a real date and time, got "2015-02-29T13:45:00.000Z"'],
    ['attribute not an object', (id) => assetBody(id, { temperature: 21 }), 'Asset attribute temperature must be an object with type and value'],
    ['attribute without type', (id) => assetBody(id, { temperature: { value: 21 } }), 'Asset attribute temperature.type must be a non-empty string'],
    ['attribute without value', (id) => assetBody(id, { temperature: { type: 'Number' } }), 'Asset attribute temperature.value not provided!'],
    ['attribute metadata not an object', (id) => assetBody(id, { temperature: { type: 'Number', value: 1, metadata: 5 } }), 'Asset attribute temperature.metadata must be an object'],
    ['attribute name over 256 characters', (id) => assetBody(id, { ['n'.repeat(257)]: { type: 'Number', value: 1 } }), /^Asset attribute name "n{64}" is longer than 256 characters$/],
    ['attribute name with forbidden characters', (id) => assetBody(id, { 'temp#1': { type: 'Number', value: 1 } }), /^Asset attribute name "temp#1" contains forbidden characters/],
  ];

  for (const [label, body, description] of cases) {
    it(`create: ${label}`, async () => {
      const p = platform();
      const res = await create(p, await p.siteToken('santander'), body('urn:oc:entity:santander:environment:fixed:c'));
      refused(res, 400, 'BadRequest', description);
    });
  }

  it('stores nothing for a refused create', async () => {
    const p = platform();
    const count = await p.ctx.store.read.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    assert.equal(Number(count?.n), 0);
    const readings = await p.ctx.store.read.selectFrom('readings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    assert.equal(Number(readings?.n), 0);
  });

  const updateCases: Array<[string, unknown, string | RegExp]> = [
    ['id in the payload', { id: ID, TimeInstant: timeInstant() }, 'Asset attribute id in payload not allowed!'],
    ['empty id in the payload', { id: '', TimeInstant: timeInstant() }, 'Asset attribute id in payload not allowed!'],
    ['type in the payload', { type: 'urn:oc:entityType:x', TimeInstant: timeInstant() }, 'Asset attribute type in payload not allowed!'],
    ['TimeInstant missing', { temperature: { type: 'Number', value: 1 } }, 'Asset attribute TimeInstant in payload not found!'],
    ['TimeInstant wrong type', { TimeInstant: { type: 'Date', value: '2017-07-25T13:35:00.000Z' } }, 'Asset attribute TimeInstant.type must be urn:oc:attributeType:ISO8601'],
    ['TimeInstant without value', { TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '' } }, 'Asset attribute TimeInstant.value not provided!'],
    ['TimeInstant wrong format', { TimeInstant: timeInstant('2017-07-25 13:35:00.000Z') }, 'Asset attribute TimeInstant.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got "2017-07-25 13:35:00.000Z" (a space where the \'T\' goes)'],
    ['TimeInstant impossible date', { TimeInstant: timeInstant('2017-06-31T13:35:00.000Z') }, 'Asset attribute TimeInstant.value is not a real calendar instant: expected YYYY-MM-DDTHH:mm:ss.SSSZ naming a real date and time, got "2017-06-31T13:35:00.000Z"'],
    ['attribute not an object', { TimeInstant: timeInstant(), temperature: [1] }, 'Asset attribute temperature must be an object with type and value'],
    ['attribute name too long', { TimeInstant: timeInstant(), ['a'.repeat(300)]: { type: 'Number', value: 1 } }, /is longer than 256 characters$/],
  ];
  for (const [label, body, description] of updateCases) {
    it(`update: ${label}`, async () => {
      const p = platform();
      const res = await update(p, await p.siteToken('santander'), ID, body);
      refused(res, 400, 'BadRequest', description);
    });
  }

  it('update: checks the id of the path', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    refused(await update(p, token, 'urn:oc:entity:london:aqn:CD9', { TimeInstant: timeInstant() }), 400, 'BadRequest', /^Asset\.id prefix wrong/);
  });
});
