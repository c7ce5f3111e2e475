import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MIN_PASSWORD_LENGTH, passwordProblem } from '../../src/domain/password.js';

describe('passwords', () => {
  it('refuses fewer than 8 characters, saying how many it wants and got', () => {
    assert.equal(MIN_PASSWORD_LENGTH, 8);
    assert.equal(passwordProblem('ab'), 'the password is too short: at least 8 characters, got 2');
    assert.equal(passwordProblem(''), 'the password is too short: at least 8 characters, got 0');
    assert.match(String(passwordProblem('1234567')), /got 7/);
  });

  it('accepts 8 characters or more, counted as characters, not bytes', () => {
    assert.equal(passwordProblem('12345678'), undefined);
    assert.equal(passwordProblem('a long demo passphrase'), undefined);
    assert.match(String(passwordProblem('ééééééé')), /got 7/);
  });
});
