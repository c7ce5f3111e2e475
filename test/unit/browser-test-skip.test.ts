import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipWithoutChromium } from '../helpers/chromium.js';

describe('browser tests without Chromium', () => {
  it('are skipped, with the reason, on a developer machine', () => {
    assert.match(String(skipWithoutChromium({}, () => false)), /no Chromium at /);
  });

  it('are not skipped under CI, so that they fail instead', () => {
    assert.equal(skipWithoutChromium({ CI: 'true' }, () => false), false);
    assert.equal(skipWithoutChromium({ CI: '1' }, () => false), false);
  });

  it('run when Chromium is there', () => {
    assert.equal(skipWithoutChromium({}, () => true), false);
  });
});
