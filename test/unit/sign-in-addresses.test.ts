import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  KNOWN_ADDRESS_MS, KNOWN_ADDRESSES_PER_PRINCIPAL, RECORD_AGAIN_AFTER_MS, isKnownAddress, keptAddresses, needsRecording,
} from '../../src/domain/sign-in-addresses.js';

describe('addresses a principal signed in from', () => {
  it('are known for a while after the last success there', () => {
    assert.equal(isKnownAddress(undefined, 0), false);
    assert.equal(isKnownAddress(0, KNOWN_ADDRESS_MS - 1), true);
    assert.equal(isKnownAddress(0, KNOWN_ADDRESS_MS), false);
  });

  it('are written when new, or when the stored success is an hour old, not at every sign-in', () => {
    assert.equal(needsRecording(undefined, 0), true);
    assert.equal(needsRecording(0, RECORD_AGAIN_AFTER_MS - 1), false);
    assert.equal(needsRecording(0, RECORD_AGAIN_AFTER_MS), true);
    assert.ok(RECORD_AGAIN_AFTER_MS < KNOWN_ADDRESS_MS / 24, 'an address in use never falls out between two writes');
  });

  it('keeps the most recent few still known', () => {
    const now = 100 * 86_400_000;
    const addresses = new Map<string, number>();
    for (let i = 0; i < KNOWN_ADDRESSES_PER_PRINCIPAL + 5; i++) addresses.set(`192.0.2.${i}`, now - i * 1000);
    addresses.set('198.51.100.1', now - KNOWN_ADDRESS_MS);
    const kept = keptAddresses(addresses, now);
    assert.equal(kept.size, KNOWN_ADDRESSES_PER_PRINCIPAL);
    assert.equal(kept.has('192.0.2.0'), true);
    assert.equal(kept.has(`192.0.2.${KNOWN_ADDRESSES_PER_PRINCIPAL}`), false, 'the oldest went first');
    assert.equal(kept.has('198.51.100.1'), false, 'forgotten');
  });
});
