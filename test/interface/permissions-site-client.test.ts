import assert from 'node:assert/strict';
import { it } from 'node:test';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { adminToken, call, clientCredentials } from '../helpers/permissions.js';

function pushAsset(p: TestPlatform, token: string, id: string) {
  return p.app.inject({
    method: 'POST', url: '/federation/v2/entities',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'platform-service': p.ctx.config.platformServiceName },
    payload: JSON.stringify({
      id, type: 'urn:oc:entityType:iotdevice',
      TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '2025-12-31T23:59:00.000Z' },
      temperature: { type: 'urn:oc:attributeType:temperature:ambient', value: 12.5 },
    }),
  });
}

describeEachStore('permissions: a site client made through the interface', (platform) => {
  it('creates ocsite-<site>, grants ocsite to its service account, and the federation then accepts its pushes', async (t) => {
    const p = platform();
    const admin = await adminToken(p);
    await upsertSite(p.ctx.store, {
      id: 'testville', name: 'Testville', type: 'city', latitude: 40.4168, longitude: -3.7038, countryCode: 'ES', country: 'Spain', city: 'Testville', quota: null,
    }, p.clock.now());

    const created = await call(p, { method: 'POST', url: '/clients', token: admin, body: { clientId: 'ocsite-testville', clientName: 'Testville' } });
    assert.equal(created.statusCode, 201);
    const creds = created.json() as { client_id: string; secret: string; service_account_id: string };

    // A tool learns the service account's id from the response, or from the `sub` of the client's token.
    const before = await clientCredentials(p, creds.client_id, creds.secret);
    assert.equal(before.claims.sub, creds.service_account_id);
    assert.equal(before.claims.clientId, 'ocsite-testville');
    assert.ok(!before.claims.realm_access.roles.includes('ocsite'));

    const assetId = 'urn:oc:entity:testville:environmental:fixed:1';
    const refused = await pushAsset(p, before.token, assetId);
    if (refused.statusCode === 404 && /No route/.test(refused.body)) {
      t.skip('the federation interface is not mounted yet');
      return;
    }
    assert.equal(refused.statusCode, 403, refused.body);

    const granted = await call(p, { method: 'POST', url: `/users/${before.claims.sub}/roles`, token: admin, body: { role: 'ocsite' } });
    assert.equal(granted.statusCode, 201);

    const after = await clientCredentials(p, creds.client_id, creds.secret);
    assert.ok(after.claims.realm_access.roles.includes('ocsite'));
    const pushed = await pushAsset(p, after.token, assetId);
    assert.equal(pushed.statusCode, 201, pushed.body);
    assert.match(String(pushed.headers.location), /^\/v2\/entities\/urn:oc:entity:testville:environmental:fixed:1\?type=urn:oc:entityType:iotdevice$/);

    // Taking the role away closes the door again for the next token.
    assert.equal((await call(p, { method: 'DELETE', url: `/users/${after.claims.sub}/roles/ocsite`, token: admin })).statusCode, 200);
    const revoked = await clientCredentials(p, creds.client_id, creds.secret);
    assert.equal((await pushAsset(p, revoked.token, 'urn:oc:entity:testville:environmental:fixed:2')).statusCode, 403);
  });
});
