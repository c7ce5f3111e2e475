import assert from 'node:assert/strict';
import { it } from 'node:test';
import { findClient } from '../../src/storage/repositories/principals.js';
import { opencity } from '../helpers/cli.js';
import { describeEachStore } from '../helpers/platform.js';
import { call, errorOf, toolToken } from '../helpers/permissions.js';

describeEachStore('permissions: client ids of the site prefix are reserved to site registration', (platform) => {
  it('refuses ocsite-<site> for a site not registered, in any case, with 422 and creates nothing', async () => {
    const p = platform();
    const token = await toolToken(p, 'client-maker', ['createClient']);
    for (const clientId of ['ocsite-nowhere', 'OCSITE-nowhere', 'Ocsite-Elsewhere']) {
      const res = await call(p, { method: 'POST', url: '/clients', token, body: { clientId, clientName: 'Not a site' } });
      assert.equal(res.statusCode, 422, clientId);
      assert.match(errorOf(res), /reserved to sites.*opencity site add/);
      assert.equal(await findClient(p.ctx.store, clientId), undefined);
    }
  });

  it('leaves `opencity site add` free to register the site and print its credentials', async () => {
    const p = platform();
    const token = await toolToken(p, 'client-maker-2', ['createClient']);
    assert.equal((await call(p, { method: 'POST', url: '/clients', token, body: { clientId: 'ocsite-laterville' } })).statusCode, 422);
    const refused = await opencity(p.db.url, 'client', 'add', 'ocsite-laterville', '--json');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /reserved to sites/);
    const added = await opencity(p.db.url, 'site', 'add', 'laterville', '--name', 'Laterville', '--lat', '40.1', '--lon', '-3.2', '--json');
    assert.equal(added.code, 0, added.stderr);
    const creds = JSON.parse(added.stdout) as { client_id: string; secret: string };
    assert.equal(creds.client_id, 'ocsite-laterville');
    assert.ok(creds.secret.length >= 32);
  });
});
