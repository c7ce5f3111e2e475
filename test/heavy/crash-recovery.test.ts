import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORES, createTestDatabase } from '../helpers/stores.js';
import { startServer } from '../helpers/hardening-server.js';
import { federationWrite, fetchToken, prepareSite, storedState } from '../helpers/hardening-load.js';

/**
 * Crashes under load: the real server is killed with SIGKILL at random moments
 * while sites push creates and updates; after each restart every write that was
 * acknowledged with 2xx is there with its readings, no write is half there, and
 * the change log holds exactly the writes that reached the store, in order.
 */

const KILLS = Number(process.env.CRASH_KILLS ?? 5);
const WORKERS = 16;
const SITE = 'crashcity';

interface Ledger {
  /** Assets whose creation was acknowledged. */
  created: Set<string>;
  /** Per asset, the values of acknowledged writes (create included). */
  acked: Map<string, number[]>;
  /** Per asset, the values of writes whose outcome is unknown (connection cut by the kill). */
  inDoubt: Map<string, number[]>;
  /** Creations whose outcome is unknown. */
  createsInDoubt: Set<string>;
}

const push = (m: Map<string, number[]>, id: string, v: number) => m.set(id, [...(m.get(id) ?? []), v]);

for (const kind of STORES) {
  describe(`SIGKILL under federation load [${kind}]`, () => {
    it(`loses no acknowledged write over ${KILLS} kills`, async () => {
      const db = await createTestDatabase(kind);
      const secret = await prepareSite(db.url, SITE);
      const ledger: Ledger = { created: new Set(), acked: new Map(), inDoubt: new Map(), createsInDoubt: new Set() };
      let nextValue = 1;
      let nextAsset = 0;
      let acknowledged = 0;
      const report: string[] = [];
      try {
        for (let round = 0; round <= KILLS; round++) {
          const server = await startServer({ DATABASE_URL: db.url });
          try {
            const token = await fetchToken(server.url, `ocsite-${SITE}`, secret);
            if (round === KILLS) break; // the last start only proves the store opens again
            // Kill after a random number of acknowledged writes in this round (80 to 600).
            const killAfter = 80 + Math.floor(Math.random() * 520);
            let ackedThisRound = 0;
            let killed = false;
            const deadline = Date.now() + 60_000;
            const worker = async () => {
              for (let i = 0; i < 5000 && !killed && Date.now() < deadline; i++) {
                const known = [...ledger.created];
                const update = known.length > 20 && Math.random() < 0.6;
                const id = update ? known[Math.floor(Math.random() * known.length)] as string : `urn:oc:entity:${SITE}:load:sensor:${round}-${nextAsset++}`;
                const value = nextValue++;
                const status = await federationWrite(server.url, token, update ? 'update' : 'create', id, value);
                if (status === 201 || status === 204) {
                  if (!update) ledger.created.add(id);
                  push(ledger.acked, id, value);
                  acknowledged++;
                  if (++ackedThisRound === killAfter && !killed) {
                    killed = true;
                    process.kill(server.pid, 'SIGKILL');
                  }
                } else if (status === 0) {
                  if (!update) ledger.createsInDoubt.add(id);
                  push(ledger.inDoubt, id, value);
                } else {
                  assert.fail(`write refused with ${status} while the server was up`);
                }
              }
            };
            await Promise.all(Array.from({ length: WORKERS }, worker));
            assert.ok(killed, `round ${round}: the server was not killed (only ${ackedThisRound} writes acknowledged)`);
            assert.equal(await server.exited, 'SIGKILL');
            report.push(`round ${round}: killed after ${ackedThisRound} acknowledged writes`);
          } finally {
            await server.stop('SIGKILL');
          }
        }

        const state = await storedState(db.url, SITE);
        let lost = 0;
        for (const id of ledger.created) if (!state.assets.has(id)) lost++;
        for (const [id, values] of ledger.acked) {
          const stored = new Set(state.readings.get(id)?.get('temperature') ?? []);
          for (const v of values) if (!stored.has(String(v))) lost++;
        }
        // Nothing half-written: each write appends one reading per attribute (TimeInstant, temperature, serial).
        for (const [id, attrs] of state.readings) {
          const t = attrs.get('temperature') ?? [];
          assert.deepEqual((attrs.get('serial') ?? []).map((s) => s.slice(1)).sort(), [...t].sort(), `${id}: readings of one write are not all there`);
          assert.equal((attrs.get('TimeInstant') ?? []).length, t.length, `${id}: TimeInstant readings`);
          const allowed = new Set([...(ledger.acked.get(id) ?? []), ...(ledger.inDoubt.get(id) ?? [])].map(String));
          for (const v of t) assert.ok(allowed.has(v), `${id}: a reading nobody sent: ${v}`);
          // The current state is one of the writes that reached the store.
          assert.ok(t.includes(String(state.assets.get(id)?.attrs.temperature?.value)), `${id}: current state without its reading`);
        }
        // The change log and the assets agree exactly: each write that reached the store has its change, in order, and no change is without its write.
        const logged = new Map<string, Array<string>>();
        for (const change of state.changes) logged.set(change.id, [...(logged.get(change.id) ?? []), String(change.temperature)]);
        assert.deepEqual([...logged.keys()].sort(), [...state.assets.keys()].sort(), 'assets with changes are the assets');
        for (const [id, attrs] of state.readings) {
          assert.deepEqual(logged.get(id), attrs.get('temperature'), `${id}: the change log and the readings differ`);
          // A write may reach the store after one sent later (16 workers race); its older TimeInstant makes it
          // history only, so the current state is the change of the latest TimeInstant (the greatest value), not the last one.
          const latest = Math.max(...(logged.get(id) ?? []).map(Number));
          assert.equal(String(state.assets.get(id)?.attrs.temperature?.value), String(latest), `${id}: the current state is not the write of the latest TimeInstant`);
        }
        assert.deepEqual(state.changes.filter((c) => c.kind === 'create').map((c) => c.id).sort(), [...state.assets.keys()].sort(), 'one create change per asset');
        for (const id of state.assets.keys()) assert.ok(ledger.created.has(id) || ledger.createsInDoubt.has(id), `${id}: an asset nobody created`);
        assert.equal(state.counted, state.assets.size, 'the asset counters match the assets');
        assert.equal(lost, 0, `${lost} acknowledged writes lost`);
        process.stdout.write(`# crash [${kind}] kills=${KILLS} acknowledged=${acknowledged} inDoubt=${[...ledger.inDoubt.values()].flat().length} lost=${lost} assets=${state.assets.size}\n# ${report.join('; ')}\n`);
      } finally {
        await db.drop();
      }
    });
  });
}
