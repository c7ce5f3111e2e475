import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressToLocate, positionOfIpRecord } from '../../src/domain/ip-location.js';

describe('IP location records', () => {
  it('reads the position under location, as MaxMind and DB-IP city databases hold it', () => {
    assert.deepEqual(positionOfIpRecord({ city: { names: { en: 'Santander' } }, location: { latitude: 43.4623, longitude: -3.80998, accuracy_radius: 20 } }),
      { latitude: 43.4623, longitude: -3.80998 });
  });

  it('reads the position at the top of the record, as the ip-location-db builds hold it', () => {
    assert.deepEqual(positionOfIpRecord({ country_code: 'GB', city: 'London', latitude: 51.5072, longitude: -0.1275 }), { latitude: 51.5072, longitude: -0.1275 });
  });

  it('gives no position for records without a usable one', () => {
    for (const record of [
      null, undefined, 'Santander', 42, { country: { iso_code: 'ES' } }, { location: { latitude: 43.4 } }, { latitude: '43.4', longitude: '-3.8' },
      { latitude: 91, longitude: 0 }, { latitude: 0, longitude: -180.5 }, { location: { latitude: Number.NaN, longitude: 0 } }, { location: null },
    ]) {
      assert.equal(positionOfIpRecord(record), undefined, JSON.stringify(record));
    }
  });

  it('looks up an IPv4 address written as IPv6 as the IPv4 address', () => {
    assert.equal(addressToLocate('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressToLocate('::FFFF:198.51.100.1'), '198.51.100.1');
    assert.equal(addressToLocate('203.0.113.7'), '203.0.113.7');
    assert.equal(addressToLocate('2001:db8::1'), '2001:db8::1');
    assert.equal(addressToLocate('::ffff:c000:0201'), '::ffff:c000:0201');
  });
});
