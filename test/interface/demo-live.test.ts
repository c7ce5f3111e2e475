import assert from 'node:assert/strict';
import { it } from 'node:test';
import { pushLiveUpdates } from '../../src/demo/live.js';
import { loadDemo } from '../../src/demo/loader.js';
import { EventStreamClient, listenOnLoopback } from '../helpers/event-stream.js';
import { describeEachStore } from '../helpers/platform.js';

describeEachStore('demo: the live city', (platform) => {
  it('refuses to run before the demo city is loaded', async () => {
    const p = platform();
    await assert.rejects(pushLiveUpdates(p.app, { ...p.ctx, clock: p.clock }, { rate: 100, count: 1 }), /opencity demo first/);
  });

  it('pushes the asked number of updates through federation, each site with its own token, and they reach the event stream', async () => {
    const p = platform();
    await loadDemo({ ...p.ctx, clock: p.clock }, { days: 1, stepMinutes: 720, maxAssets: 60 });
    const stream = await EventStreamClient.open(await listenOnLoopback(p.app), '/discovery/v0/assets/events');
    try {
      const lines: string[] = [];
      const summary = await pushLiveUpdates(p.app, { ...p.ctx, clock: p.clock }, { rate: 200, count: 12, maxAssets: 60, log: (l) => lines.push(l) });
      assert.deepEqual(summary, { updates: 12, refused: 0, firstRefusal: undefined });
      const events = await stream.waitForEvents(12);
      assert.deepEqual(new Set(events.map((e) => e.event)), new Set(['update']));
      assert.equal(new Set(events.map((e) => e.data.id)).size, 12, 'twelve different assets in turn');
      for (const e of events) {
        const attributes = e.data.attributes as Record<string, { value: unknown }>;
        assert.ok(Object.keys(attributes).length >= 2, 'a TimeInstant and values');
        assert.ok(Math.abs(Date.parse(String((attributes.TimeInstant as { value: string }).value)) - Date.now()) < 60_000, 'observed now');
      }
      const clients = await p.ctx.store.read.selectFrom('clients').select('id').where('id', 'like', 'ocsite-%').execute();
      assert.ok(clients.length >= 1, 'the sites\' own clients sent them');
    } finally {
      stream.close();
    }
  });
});
