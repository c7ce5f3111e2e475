import assert from 'node:assert/strict';
import { it } from 'node:test';
import { registerClient } from '../../src/identity/clients.js';
import { signToken } from '../../src/identity/tokens.js';
import { bearer, describeEachStore } from '../helpers/platform.js';
import { decodePayload, tokenRequest, verifyWithJwks } from '../helpers/identity.js';

const AUDIENCE = 'opencity-api';

describeEachStore('identity: AUTH_AUDIENCE with the embedded issuer', (platform) => {
  it('puts the configured audience into the tokens it issues, and the interfaces accept them', async () => {
    const { secret } = await registerClient(platform().ctx.store, platform().clock, { clientId: 'audience-tool' });
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'audience-tool', client_secret: secret });
    assert.equal(res.statusCode, 200);
    const token = res.json().access_token as string;
    assert.deepEqual(decodePayload(token).aud, ['account', 'audience-tool', AUDIENCE]);
    await verifyWithJwks(platform().app, token, { audience: AUDIENCE, currentDate: new Date(platform().clock.now()) });
    const used = await platform().app.inject({ method: 'GET', url: '/health', headers: bearer(token) });
    assert.equal(used.statusCode, 200);
  });

  it('still refuses a token of the same issuer that lacks the audience', async () => {
    const { secret } = await registerClient(platform().ctx.store, platform().clock, { clientId: 'audience-tool-2' });
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'audience-tool-2', client_secret: secret });
    const token = res.json().access_token as string;
    const foreign = signToken(platform().ctx.tokens, {}, 'someone', ['account', 'audience-tool-2'], 300);
    assert.equal((await platform().app.inject({ method: 'GET', url: '/health', headers: bearer(foreign) })).statusCode, 401);
    assert.equal((await platform().app.inject({ method: 'GET', url: '/health', headers: bearer(token) })).statusCode, 200);
  });
}, { authAudience: AUDIENCE });
