import assert from 'node:assert/strict';
import net from 'node:net';
import { it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';

/** Sends raw bytes and returns everything the server answers before closing. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => { answer += d.toString(); });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

describeEachStore('HTTP limits on a listening server', (platform) => {
  let port = 0;
  it('listens on loopback', async () => {
    await platform().app.listen({ port: 0, host: '127.0.0.1' });
    port = (platform().app.server.address() as net.AddressInfo).port;
    assert.ok(port > 0);
  });

  it('answers oversized headers with 431 and a JSON error', async () => {
    const answer = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 431 /);
    assert.match(answer, /Content-Type: application\/json/);
    assert.match(answer, /"error":"RequestHeaderFieldsTooLarge"/);
  });

  it('answers garbage on the wire with 400 and a JSON error', async () => {
    const answer = await raw(port, 'NOT HTTP AT ALL\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /"error":"BadRequest"/);
  });

  it('still serves requests afterwards', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(res.status, 200);
  });
});
