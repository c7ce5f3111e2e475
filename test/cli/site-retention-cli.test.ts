import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listSiteRetentions } from '../../src/storage/repositories/history-retention.js';
import { Store } from '../../src/storage/store.js';
import { opencity } from '../helpers/cli.js';
import { STORES, createTestStore, type TestDatabase } from '../helpers/stores.js';

for (const kind of STORES) {
  describe(`a site's retention from the command line [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    let dispose: () => Promise<void>;

    before(async () => {
      ({ db, store, dispose } = await createTestStore(kind));
    });
    after(() => dispose());

    const run = (...args: string[]) => opencity(db.url, ...args);
    const retentionOf = async (site: string) => (await listSiteRetentions(store)).find((s) => s.site === site)?.retention ?? null;

    it('site add --retention keeps it; set-retention changes it, to forever, then back to the default', async () => {
      const added = await run('site', 'add', 'shortlived', '--name', 'Short', '--lat', '43.46', '--lon', '-3.81', '--retention', '90d', '--json');
      assert.equal(added.code, 0, added.stderr);
      assert.equal(await retentionOf('shortlived'), '90d');
      const forever = await run('site', 'set-retention', 'shortlived', 'forever', '--json');
      assert.equal(forever.code, 0, forever.stderr);
      assert.deepEqual(JSON.parse(forever.stdout), { site: 'shortlived', retention: 'forever' });
      assert.equal(await retentionOf('shortlived'), 'forever');
      const reset = await run('site', 'set-retention', 'shortlived', 'default');
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal(await retentionOf('shortlived'), null);
    });

    it('a bad retention or an unknown site fails clearly and changes nothing', async () => {
      const bad = await run('site', 'add', 'badretention', '--name', 'Bad', '--lat', '1', '--lon', '2', '--retention', '3 months');
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--retention must be forever or a duration such as 90d/);
      assert.equal(await retentionOf('badretention'), null);
      const unknown = await run('site', 'set-retention', 'nosuchsite', '30d');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no site nosuchsite/);
    });
  });
}
