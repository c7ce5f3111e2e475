import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig, type Config } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import { registerClient } from '../../src/identity/clients.js';
import { listSigningKeys } from '../../src/storage/repositories/keys.js';
import { STORES, createTestStore } from '../helpers/stores.js';
import { decodeHeader, tokenRequest, verifyWithJwks } from '../helpers/identity.js';

const SECRET = 'the-key-secret-of-this-test';
const NEXT = 'the-next-key-secret-of-this-test';

for (const kind of STORES) {
  describe(`signing keys encrypted at rest with OPENCITY_KEY_SECRET [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof createTestStore>>;
    const clock = new ManualClock();
    let clientSecret = '';

    before(async () => {
      opened = await createTestStore(kind);
    });
    after(async () => {
      await opened.dispose();
    });

    const start = (overrides: Partial<Config>) => buildApp({ config: testConfig({ databaseUrl: opened.db.url, ...overrides }), store: opened.store, clock });
    const privateColumns = async () => (await listSigningKeys(opened.store)).map((k) => k.privateJwk);

    /** A token from the token endpoint, verified against the published key set; its kid. */
    async function signedKid(overrides: Partial<Config>): Promise<string> {
      const platform = await start(overrides);
      try {
        if (!clientSecret) clientSecret = (await registerClient(opened.store, clock, { clientId: 'keys-tool' })).secret;
        const res = await tokenRequest(platform.app, { grant_type: 'client_credentials', client_id: 'keys-tool', client_secret: clientSecret });
        assert.equal(res.statusCode, 200, res.body);
        const token = res.json().access_token as string;
        await verifyWithJwks(platform.app, token, { currentDate: new Date(clock.now()) });
        return decodeHeader(token).kid as string;
      } finally {
        await platform.app.close();
      }
    }

    it('keeps reading a key stored in clear, and encrypts it once a secret is set', async () => {
      const clearKid = await signedKid({});
      assert.match((await privateColumns())[0] as string, /"d":/);
      assert.equal(await signedKid({ keySecret: SECRET }), clearKid);
      const stored = await privateColumns();
      assert.equal(stored.length, 1);
      assert.match(stored[0] as string, /^sealed:v1:/);
      assert.ok(!(stored[0] as string).includes('"d"'));
    });

    it('seals the keys it makes', async () => {
      const platform = await start({ keySecret: SECRET });
      try {
        await platform.ctx.keys.rotate();
      } finally {
        await platform.app.close();
      }
      for (const column of await privateColumns()) assert.match(column, /^sealed:v1:/);
    });

    it('refuses to start without the secret, or with another one, saying what to set', async () => {
      await assert.rejects(start({}), /encrypted: set OPENCITY_KEY_SECRET/);
      await assert.rejects(start({ keySecret: NEXT }), /OPENCITY_KEY_SECRET does not open signing key/);
    });

    it('changes the secret with OPENCITY_KEY_SECRET_PREVIOUS: keys are encrypted again under the new one', async () => {
      const before = await privateColumns();
      const kid = await signedKid({ keySecret: NEXT, previousKeySecret: SECRET });
      const after = await privateColumns();
      assert.equal(after.length, before.length);
      for (const column of after) assert.ok(!before.includes(column));
      assert.equal(await signedKid({ keySecret: NEXT }), kid);
      await assert.rejects(start({ keySecret: SECRET }), /does not open/);
    });
  });
}
