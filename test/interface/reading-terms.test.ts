import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inSession } from '../../src/storage/prepared-query.js';
import { ensureTerms } from '../../src/storage/postgres/reading-terms.js';
import { assetBody, create, readingsOf, timeInstant, update } from '../helpers/federation.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { STORES } from '../helpers/stores.js';

/**
 * PostgreSQL numbers a reading's new attribute name or type inside the write's
 * transaction (src/storage/postgres/reading-terms.ts): a name numbered by a
 * write that rolled back must be numbered again by the next, never taken as
 * there.
 */
if (STORES.includes('postgres')) {
  describe('numbering of reading terms [postgres]', () => {
    let p: TestPlatform;
    before(async () => {
      p = await startPlatform('postgres');
    });
    after(async () => {
      await p.close();
    });

    it('stores the readings of a name whose first numbering rolled back, in the same transaction or the next', async () => {
      const token = await p.siteToken('santander');
      const id = 'urn:oc:entity:santander:env:terms';
      assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
      const failing = (term: string) => p.ctx.store.writes.run(async (trx) => {
        await inSession(trx, p.ctx.store.dialect, (session) => ensureTerms(session, [{ name: term, type: 'Number' }]));
        throw new Error('the write fails after numbering');
      });
      for (const term of ['rolled:back:once', 'rolled:back:twice']) {
        await assert.rejects(failing(term), /fails after numbering/);
        if (term.endsWith('twice')) await assert.rejects(failing(term), /fails after numbering/);
        const res = await update(p, token, id, { TimeInstant: timeInstant(), [term]: { type: 'Number', value: 7 } });
        assert.equal(res.statusCode, 204, res.body);
        assert.deepEqual((await readingsOf(p, id)).filter((r) => r.attr_name === term).map((r) => [r.attr_type, r.attr_value]), [['Number', '7']]);
      }
    });
  });
}
