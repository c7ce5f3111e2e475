import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectionTerms, termNumbers, type TermsNumbered } from '../../src/storage/reading-terms.js';

/** A dialect's numbering that records what it was asked, and answers `answer` for it. */
function numbering(answer: (terms: string[]) => TermsNumbered) {
  const asked: string[][] = [];
  return { asked, number: async (terms: string[]) => (asked.push(terms), answer(terms)) };
}

const reading = (name: string, type = 'Number') => ({ name, type });

describe('numbering the terms of readings', () => {
  it('asks only for terms the connection has not seen committed, and gives every number', async () => {
    const known = new ConnectionTerms<number>();
    const ids: Record<string, number> = { temperature: 1, Number: 2, humidity: 3 };
    const { asked, number } = numbering((terms) => ({ transaction: 'tx1', added: [], numbers: terms.map((t) => [t, ids[t] as number] as const) }));
    const first = await termNumbers(known, [reading('temperature'), reading('humidity')], number);
    assert.deepEqual([first('temperature'), first('Number'), first('humidity')], [1, 2, 3]);
    const second = await termNumbers(known, [reading('temperature')], number);
    assert.deepEqual([second('temperature'), second('Number')], [1, 2]);
    assert.deepEqual(asked, [['temperature', 'Number', 'humidity']]);
  });

  it('keeps a term numbered by the transaction under way only for that write, since a rollback may take its number back', async () => {
    const known = new ConnectionTerms<number>();
    const { asked, number } = numbering((terms) => ({ transaction: 'tx1', added: ['fresh'], numbers: terms.map((t) => [t, t === 'fresh' ? 7 : 2] as const) }));
    const write = await termNumbers(known, [reading('fresh')], number);
    assert.equal(write('fresh'), 7);
    await termNumbers(known, [reading('fresh')], number);
    assert.deepEqual(asked, [['fresh', 'Number'], ['fresh']]);
  });

  it('asks nothing for a write with no readings', async () => {
    const known = new ConnectionTerms<number>();
    const { asked, number } = numbering(() => ({ transaction: 'tx1', added: [], numbers: [] }));
    const ids = await termNumbers(known, [], number);
    assert.equal(ids('anything'), undefined);
    assert.deepEqual(asked, []);
  });
});
