import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration of the store bound and of the signing keys at rest', () => {
  it('reads STORE_TIMEOUT as a duration, 5 s by default, and refuses zero or nonsense', () => {
    assert.equal(loadConfig({}).storeTimeoutMs, 5000);
    assert.equal(loadConfig({ STORE_TIMEOUT: '300ms' }).storeTimeoutMs, 300);
    assert.equal(loadConfig({ STORE_TIMEOUT: '2s' }).storeTimeoutMs, 2000);
    assert.throws(() => loadConfig({ STORE_TIMEOUT: '0s' }), (e: Error) => e instanceof ConfigError && /STORE_TIMEOUT="0s".*above zero/.test(e.message));
    assert.throws(() => loadConfig({ STORE_TIMEOUT: 'soon' }), (e: Error) => e instanceof ConfigError && /STORE_TIMEOUT/.test(e.message));
  });

  it('takes OPENCITY_KEY_SECRET and its previous value, and never echoes them', () => {
    const config = loadConfig({ OPENCITY_KEY_SECRET: 'a-secret-of-enough-length', OPENCITY_KEY_SECRET_PREVIOUS: 'the-former-secret-value' });
    assert.equal(config.keySecret, 'a-secret-of-enough-length');
    assert.equal(config.previousKeySecret, 'the-former-secret-value');
    assert.equal(loadConfig({}).keySecret, undefined);
    assert.throws(() => loadConfig({ OPENCITY_KEY_SECRET: 'short-one' }), (e: Error) => e instanceof ConfigError && /value not shown/.test(e.message) && !e.message.includes('short-one'));
  });
});
