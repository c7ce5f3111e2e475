import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newSecret, secretDigest, secretMatches } from '../../src/identity/secrets.js';

describe('client secrets', () => {
  it('never start with a dash, which a command line would take for an option', () => {
    // 0xf8 encodes to '-' in base64url: the first draw must be refused.
    const draws = [Buffer.alloc(32, 0xf8), Buffer.alloc(32, 0x41)];
    const secret = newSecret(() => draws.shift() ?? assert.fail('drew too often'));
    assert.equal(secret, Buffer.alloc(32, 0x41).toString('base64url'));
    assert.equal(draws.length, 0);
  });

  it('are 256 random bits, URL-safe, and match only their own digest', () => {
    const a = newSecret();
    const b = newSecret();
    assert.match(a, /^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
    assert.notEqual(a, b);
    assert.equal(secretMatches(a, secretDigest(a)), true);
    assert.equal(secretMatches(b, secretDigest(a)), false);
    assert.equal(secretMatches(a, null), false);
  });
});
