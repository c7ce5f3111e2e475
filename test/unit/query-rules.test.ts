// The rules that discovery, the datasource and the permissions API share: one
// whole-number reader, one wording for a refused query parameter, one 404 for an
// asset the caller may not see. Each caller's own ranges and messages are tested
// with that caller (discovery-rules, history-query, permissions-rules).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { parsePage } from '../../src/domain/asset-listing.js';
import type { Caller } from '../../src/domain/caller.js';
import { parseHistoryQuery } from '../../src/domain/history-query.js';
import { invalidParameter } from '../../src/domain/query-parameter.js';
import { userPage } from '../../src/domain/user-paging.js';
import { visibleOrNotFound } from '../../src/domain/visibility.js';
import { readWholeNumber, wholeNumberWithin } from '../../src/domain/whole-number.js';
import { httpStatus } from '../../src/http/error-handler.js';

const status = (f: () => unknown): number | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    assert.ok(e instanceof AppError, String(e));
    return httpStatus(e);
  }
};

describe('whole numbers', () => {
  for (const [text, value] of [['0', 0], ['7', 7], ['007', 7], ['1000', 1000], ['-3', -3], ['9007199254740991', Number.MAX_SAFE_INTEGER]] as const) {
    it(`reads ${JSON.stringify(text)} as ${value}`, () => assert.equal(readWholeNumber(text), value));
  }
  for (const value of [5, -5, 0]) it(`takes the integer ${value} given as a number`, () => assert.equal(readWholeNumber(value), value));

  // The strict rule shared by every caller (docs/decisions.md): each of these was refused by at least one of them.
  for (const text of ['', ' 5', '5 ', '+5', '-0', '-', '1.5', '5.', '.5', '1e3', '0x10', 'ten', '١٢', 'Infinity', 'NaN', '1_000', '1,000']) {
    it(`refuses ${JSON.stringify(text)}`, () => assert.equal(readWholeNumber(text), undefined));
  }
  for (const value of [1.5, Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, ['1'], { n: 1 }]) {
    it(`refuses ${String(value)} of type ${typeof value}`, () => assert.equal(readWholeNumber(value), undefined));
  }

  it('reads digits past 2^53 as a number beyond every range, never as a small one', () => {
    assert.ok((readWholeNumber('9'.repeat(20)) as number) > Number.MAX_SAFE_INTEGER);
    assert.equal(readWholeNumber('9'.repeat(400)), Number.POSITIVE_INFINITY);
    assert.equal(wholeNumberWithin('9'.repeat(20), 0, Number.MAX_SAFE_INTEGER), undefined);
  });

  it('keeps both bounds', () => {
    assert.equal(wholeNumberWithin('1', 1, 3), 1);
    assert.equal(wholeNumberWithin('3', 1, 3), 3);
    assert.equal(wholeNumberWithin('0', 1, 3), undefined);
    assert.equal(wholeNumberWithin('4', 1, 3), undefined);
  });

  // The same text is a number to one interface exactly when it is to the others.
  for (const text of [' 5', '+5', '-0', '5', '05']) {
    const accepted = readWholeNumber(text) !== undefined;
    it(`${JSON.stringify(text)} is ${accepted ? 'taken' : 'refused'} by discovery, the datasource and the user list alike`, () => {
      assert.equal(status(() => parsePage({ per: text })) === undefined, accepted);
      assert.equal(status(() => parseHistoryQuery({ limit: text }, 'asset')) === undefined, accepted);
      assert.equal(status(() => userPage('0', text)) === undefined, accepted);
    });
  }
});

describe('refused query parameters', () => {
  it('name the parameter and say why, as a 400', () => {
    const e = invalidParameter('per', 'must be a whole number between 1 and 1000');
    assert.equal(httpStatus(e), 400);
    assert.equal(e.kind, 'BadRequest');
    assert.equal(e.message, "Invalid query parameter 'per': must be a whole number between 1 and 1000");
  });
});

describe('assets the caller may not see', () => {
  const caller = (over: Partial<Caller> = {}): Caller => ({
    subject: 'u-1', clientId: undefined, tool: 'opencity-observatory', username: 'ana', email: undefined,
    roles: [], permissions: {}, experimentRoles: [], expiresAt: 0, ...over,
  });
  const city = { id: 'a', site: 'santander', experimenter: null, experiment: null };
  const experiment = { id: 'b', site: 'experimenters', experimenter: 'u-2', experiment: 'exp' };
  const notFound = (f: () => unknown) => assert.throws(f, (e: unknown) => e instanceof AppError && httpStatus(e) === 404 && /'b' has not been found/.test(e.message));

  it('gives back an asset the caller sees', () => {
    assert.equal(visibleOrNotFound(undefined, 'a', city), city);
    assert.equal(visibleOrNotFound(caller({ subject: 'u-2' }), 'b', experiment), experiment);
  });
  it('answers 404 alike for an unknown asset and for one the caller may not see', () => {
    notFound(() => visibleOrNotFound(caller(), 'b', undefined));
    notFound(() => visibleOrNotFound(caller(), 'b', experiment));
    notFound(() => visibleOrNotFound(undefined, 'b', experiment));
  });
});
