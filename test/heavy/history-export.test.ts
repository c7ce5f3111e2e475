import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { parseAssetUrn } from '../../src/domain/urn.js';
import { bulkLoad, type BulkReading } from '../../src/storage/repositories/bulk-load.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';
import { createTestDatabase, STORES, type TestDatabase } from '../helpers/stores.js';

/**
 * A 1,000,000-reading export streamed from a real server, on each store: every
 * row arrives, oldest first, and the server's memory stays bounded while it
 * streams (a body buffered whole would be about 200 MB).
 */

const READINGS = 1_000_000;
const ID = 'urn:oc:entity:heavyexport:environment:archive:1';
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const TYPE = 'urn:oc:attributeType:temperature:ambient';
/**
 * How much higher the server's resident memory may peak in the second half of
 * the export than in the first: memory that grew with the rows streamed would
 * peak ever higher (the garbage collector's own rise and fall stays below).
 */
const MAX_GROWTH = 32 * 2 ** 20;

async function rssOf(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^process_resident_memory_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(text)?.[1] ?? NaN);
}

for (const kind of STORES) {
  describe(`export of ${READINGS.toLocaleString('en-US')} readings [${kind}]`, () => {
    let db: TestDatabase;
    let server: ServerProcess;

    before(async () => {
      db = await createTestDatabase(kind);
      await bulkLoad(db.url, async (writer) => {
        const seq = writer.firstSeq;
        const attrs = JSON.stringify({ 'temperature:ambient': { type: TYPE, value: '1', metadata: {} } });
        await writer.addAssets([{
          ...parseAssetUrn(ID, 'heavyexport'), seq, id: ID, type: 'urn:oc:entityType:iotdevice', attrs, latitude: 43.46, longitude: -3.8,
          recordedAt: T0 + READINGS * 1000, lastReadingAt: T0 + READINGS * 1000, createdAt: T0, attributeTypes: [['temperature:ambient', TYPE]],
        }]);
        for (let start = 0; start < READINGS; start += 50_000) {
          const rows: BulkReading[] = [];
          for (let i = start; i < Math.min(READINGS, start + 50_000); i++) {
            rows.push({ assetSeq: seq, name: 'temperature:ambient', type: TYPE, value: `${(i % 400) / 10}`, recvTime: T0 + i * 1000, observedTime: T0 + i * 1000 - 500 });
          }
          await writer.addReadings(rows);
        }
      });
      server = await startServer({ DATABASE_URL: db.url });
    });

    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    it('streams every row, oldest first, with bounded memory', async () => {
      const samples: number[] = [];
      const url = new URL(`${server.url}/datasource/${ID}/export?attr=temperature:ambient`);
      const { rows, ordered } = await new Promise<{ rows: number; ordered: boolean }>((resolve, reject) => {
        const req = http.get({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { accept: 'text/csv' } }, (res) => {
          assert.equal(res.statusCode, 200);
          assert.match(String(res.headers['content-disposition']), /^attachment; filename=".*\.csv"$/);
          let lines = 0;
          let last = '';
          let inOrder = true;
          let carry = '';
          let sampled = 0;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const parts = (carry + chunk).split('\r\n');
            carry = parts.pop() ?? '';
            for (const line of parts) {
              lines++;
              if (lines === 1) continue;
              const at = line.slice(0, 24);
              if (at < last) inOrder = false;
              last = at;
            }
            // The server's memory, looked at now and then while it streams (the request is paused meanwhile).
            if (lines - sampled > 100_000) {
              sampled = lines;
              res.pause();
              rssOf(server).then((rss) => {
                samples.push(rss);
                res.resume();
              }, reject);
            }
          });
          res.on('end', () => resolve({ rows: lines - 1, ordered: inOrder }));
          res.on('error', reject);
        });
        req.setTimeout(300_000, () => req.destroy(new Error('export timed out')));
        req.on('error', reject);
      });
      assert.equal(rows, READINGS);
      assert.ok(ordered, 'rows oldest first');
      const mib = (n: number) => (n / 2 ** 20).toFixed(0);
      assert.ok(samples.length >= 6, `${samples.length} samples`);
      const half = Math.floor(samples.length / 2);
      const first = Math.max(...samples.slice(0, half));
      const second = Math.max(...samples.slice(half));
      assert.ok(second - first < MAX_GROWTH, `the server's memory peaked at ${mib(first)} MiB, then at ${mib(second)} MiB (samples: ${samples.map(mib).join(', ')})`);
    });
  });
}
