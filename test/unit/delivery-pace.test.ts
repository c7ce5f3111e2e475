import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveryPace } from '../../src/services/delivery-pace.js';

/** The pace's view of the loop, set by the test. */
const signals = () => {
  const s = { at: 0, load: 0, writing: 0, now: () => s.at, busy: () => s.load, writes: () => s.writing };
  return s;
};

describe('delivery pace', () => {
  it('holds nothing while the event loop has room', () => {
    const loop = signals();
    const pace = new DeliveryPace(loop);
    for (let i = 0; i < 1000; i++) assert.equal(pace.take(), undefined);
    loop.at += 100;
    pace.look();
    assert.equal(pace.allowed, Number.POSITIVE_INFINITY);
    pace.close();
  });

  it('holds nothing back for a busy moment: two saturated looks between looks with room', () => {
    const loop = signals();
    const pace = new DeliveryPace(loop);
    for (const load of [1, 1, 0.5, 1, 1, 0.5]) {
      for (let i = 0; i < 500; i++) assert.equal(pace.take(), undefined);
      loop.at += 100;
      loop.load = load;
      pace.look();
      assert.equal(pace.allowed, Number.POSITIVE_INFINITY);
    }
    pace.close();
  });

  it('lowers the rate below what started while the loop stays saturated, never under its floor, and raises it again once the loop has room', async () => {
    const loop = signals();
    const pace = new DeliveryPace(loop);
    loop.load = 1;
    for (let look = 0; look < 3; look++) {
      for (let i = 0; i < 500; i++) pace.take();
      loop.at += 100;
      pace.look();
    }
    assert.ok(pace.allowed < 5000, `${pace.allowed} a second after 5,000 a second saturated the loop for three looks`);
    // Beyond the rate, a start waits (and its turn comes, in order).
    const held: Array<Promise<void> | undefined> = [];
    for (let k = 0; k < 50; k++) {
      for (let i = 0; i < 100; i++) held.push(pace.take());
      loop.at += 100;
      pace.look();
    }
    assert.equal(pace.allowed, 200);
    assert.ok(held.some((h) => h instanceof Promise));
    loop.load = 0;
    for (let k = 0; k < 40 && pace.allowed !== Number.POSITIVE_INFINITY; k++) {
      loop.at += 100;
      pace.look();
    }
    assert.equal(pace.allowed, Number.POSITIVE_INFINITY);
    await Promise.all(held);
    pace.close();
  });

  it('gives way sooner while writes pile up: a loop 80% busy holds delivery back only then', () => {
    const loop = signals();
    const pace = new DeliveryPace(loop);
    loop.load = 0.8;
    loop.writing = 3;
    const threeLooks = () => {
      for (let look = 0; look < 3; look++) {
        for (let i = 0; i < 500; i++) pace.take();
        loop.at += 100;
        pace.look();
      }
    };
    threeLooks();
    assert.equal(pace.allowed, Number.POSITIVE_INFINITY, 'a few writes under way: the loop has room for its requests');
    loop.writing = 60;
    threeLooks();
    assert.ok(pace.allowed < 5000, `${pace.allowed} a second with 60 writes under way and the loop 80% busy`);
    pace.close();
  });
});
