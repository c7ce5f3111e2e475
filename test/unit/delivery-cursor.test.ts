import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveryCursor } from '../../src/domain/delivery-cursor.js';

describe('delivery cursor', () => {
  it('moves past a change only once it and every change before it are settled', () => {
    const order = new DeliveryCursor(10);
    const a = order.add(11);
    const b = order.add(13);
    const c = order.add(14);
    assert.equal(order.settle(b), 10, 'an answer out of order holds the cursor');
    assert.equal(order.settle(c), 10);
    assert.equal(order.settle(a), 14, 'the first one answered releases the whole run');
    assert.equal(order.cursor, 14);
    assert.equal(order.outstanding, 0);
  });

  it('passes the changes that need no notification, behind those still under way', () => {
    const order = new DeliveryCursor(0);
    const a = order.add(3);
    assert.equal(order.pass(9), 0, 'the rest of a page waits for the one under way');
    assert.equal(order.settle(a), 9);
    assert.equal(order.pass(12), 12, 'nothing under way: the cursor moves at once');
    assert.equal(order.pass(5), 12, 'never back');
  });

  it('stays before a change never settled (a failure), whatever is answered after it', () => {
    const order = new DeliveryCursor(100);
    const tickets = [101, 102, 103, 104].map((seq) => order.add(seq));
    order.settle(tickets[0] as number);
    order.settle(tickets[2] as number);
    order.settle(tickets[3] as number);
    assert.equal(order.cursor, 101);
    assert.equal(order.outstanding, 3);
  });

  it('refuses a change handed out of order, and keeps its tickets across a long run', () => {
    const order = new DeliveryCursor(0);
    order.add(5);
    assert.throws(() => order.add(5));
    const late = new DeliveryCursor(0);
    const first = late.add(1);
    const tickets: number[] = [];
    for (let seq = 2; seq <= 5000; seq++) tickets.push(late.add(seq));
    assert.equal(late.settle(first), 1);
    for (const t of tickets.slice(0, 3000)) late.settle(t);
    assert.equal(late.cursor, 3001);
    for (const t of tickets.slice(3000).reverse()) late.settle(t);
    assert.equal(late.cursor, 5000);
    assert.equal(late.outstanding, 0);
  });
});
