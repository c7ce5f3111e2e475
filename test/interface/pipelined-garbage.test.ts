import assert from 'node:assert/strict';
import net from 'node:net';
import { it } from 'node:test';
import { assetBody, assetRow, create, entityUrl, readingsOf, timeInstant, BASE } from '../helpers/federation.js';
import { describeEachStore } from '../helpers/platform.js';

/**
 * A valid write followed, on the same connection, by bytes that do not parse:
 * the write is answered with its own outcome (never with the 400 of the bytes
 * after it), then the connection closes.
 */

const SITE = 'santander';
const id = (name: string) => `urn:oc:entity:${SITE}:environment:pipelined:${name}`;
const GARBAGE = 'NOT HTTP AT ALL \u0000\u0001\r\n\r\n';

/** Sends raw bytes at once and gives everything the server answers until it closes (bounded: 20 s). */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(20_000, () => socket.destroy());
    socket.on('data', (d) => { answer += d.toString('latin1'); });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function post(path: string, token: string, body: unknown): string {
  const text = JSON.stringify(body);
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nplatform-service: opencity\r\n`
    + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

/** The status lines of every answer in the bytes received. */
const statusLines = (answer: string) => answer.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];

describeEachStore('a write followed by bytes that do not parse', (platform) => {
  let port = 0;
  let token = '';
  it('listens on loopback', async () => {
    await platform().app.listen({ port: 0, host: '127.0.0.1' });
    port = (platform().app.server.address() as net.AddressInfo).port;
    token = await platform().siteToken(SITE);
  });

  it('answers a create with its 201 and closes the connection; the asset is stored', async () => {
    const answer = await exchange(port, post(BASE, token, assetBody(id('created'))) + GARBAGE);
    assert.deepEqual(statusLines(answer), ['HTTP/1.1 201 Created'], answer);
    assert.ok((await assetRow(platform(), id('created'))) !== undefined);
  });

  it('answers an update with its 204, and a refused create with its own 422', async () => {
    assert.equal((await create(platform(), token, assetBody(id('updated')))).statusCode, 201);
    const update = await exchange(port, post(entityUrl(id('updated'), '/attrs'), token, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 30 } }) + GARBAGE);
    assert.deepEqual(statusLines(update), ['HTTP/1.1 204 No Content'], update);
    assert.deepEqual((await readingsOf(platform(), id('updated'))).filter((r) => r.attr_name === 'temperature').map((r) => r.attr_value), ['21.5', '30']);
    const again = await exchange(port, post(BASE, token, assetBody(id('updated'))) + GARBAGE);
    assert.deepEqual(statusLines(again), ['HTTP/1.1 422 Unprocessable Entity'], again);
  });

  it('still answers garbage alone with 400, and serves the next connection', async () => {
    assert.deepEqual(statusLines(await exchange(port, GARBAGE)), ['HTTP/1.1 400 Bad Request']);
    assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
  });
});
