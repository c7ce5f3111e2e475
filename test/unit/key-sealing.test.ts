import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeySealer, SealedKeyError, isSealed } from '../../src/identity/key-sealing.js';

const CLEAR = '{"kty":"EC","crv":"P-256","d":"secret-part","x":"x","y":"y"}';
const SECRET = 'a-key-secret-of-some-length';

describe('signing keys at rest', () => {
  it('keeps keys clear without a secret, and seals them (never showing the private part) with one', () => {
    assert.equal(new KeySealer().seal('k1', CLEAR), CLEAR);
    const sealed = new KeySealer({ current: SECRET }).seal('k1', CLEAR);
    assert.ok(isSealed(sealed));
    assert.ok(!sealed.includes('secret-part'));
    assert.notEqual(new KeySealer({ current: SECRET }).seal('k1', CLEAR), sealed, 'a fresh IV each time');
    assert.deepEqual(new KeySealer({ current: SECRET }).open('k1', sealed), { clear: CLEAR, reseal: false });
  });

  it('reads clear keys and asks for them to be sealed once a secret is set', () => {
    assert.deepEqual(new KeySealer().open('k1', CLEAR), { clear: CLEAR, reseal: false });
    assert.deepEqual(new KeySealer({ current: SECRET }).open('k1', CLEAR), { clear: CLEAR, reseal: true });
  });

  it('refuses a sealed key without the secret, under a wrong secret, or moved to another kid', () => {
    const sealed = new KeySealer({ current: SECRET }).seal('k1', CLEAR);
    assert.throws(() => new KeySealer().open('k1', sealed), SealedKeyError);
    assert.throws(() => new KeySealer({ current: 'another-secret-entirely' }).open('k1', sealed), /does not open signing key k1/);
    assert.throws(() => new KeySealer({ current: SECRET }).open('k2', sealed), SealedKeyError);
    assert.throws(() => new KeySealer({ current: SECRET }).open('k1', 'sealed:v1:garbage'), SealedKeyError);
  });

  it('opens keys sealed under the previous secret while it changes, and asks for them to be sealed again', () => {
    const sealed = new KeySealer({ current: SECRET }).seal('k1', CLEAR);
    const rotating = new KeySealer({ current: 'the-next-key-secret', previous: SECRET });
    assert.deepEqual(rotating.open('k1', sealed), { clear: CLEAR, reseal: true });
    const resealed = rotating.seal('k1', CLEAR);
    assert.deepEqual(new KeySealer({ current: 'the-next-key-secret' }).open('k1', resealed), { clear: CLEAR, reseal: false });
  });
});
