import assert from 'node:assert/strict';
import dns from 'node:dns';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpConnection, requestText } from '../../src/services/http-connection.js';

/** A raw TCP receiver: each request (read up to its blank line and body) is answered with the next scripted text (END: then closes; CLOSE only closes), or not at all. */
class RawReceiver {
  readonly requests: string[] = [];
  readonly answers: Array<string | undefined> = [];
  connections = 0;
  private readonly server = net.createServer((socket) => {
    this.connections++;
    let input = '';
    socket.on('data', (chunk) => {
      input += chunk.toString('latin1');
      for (;;) {
        const end = input.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(input.slice(0, end))?.[1] ?? 0);
        if (input.length < end + 4 + length) return;
        this.requests.push(input.slice(0, end + 4 + length));
        input = input.slice(end + 4 + length);
        const answer = this.answers.shift();
        if (answer === undefined) continue;
        if (answer === 'CLOSE') socket.end();
        else if (answer.startsWith('END:')) socket.end(answer.slice(4));
        else socket.write(answer);
      }
    });
    socket.on('error', () => {});
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const lookup = dns.lookup as unknown as LookupFunction;
const exchange = (path: string, headers: Record<string, string> = {}) => ({ method: 'POST', url: new URL(path), headers, body: '{"é":1}' });

describe('notification connection', () => {
  let r: RawReceiver;
  before(async () => {
    r = await new RawReceiver().start();
  });
  after(async () => r.close());

  it('writes one request with its length in bytes, and reads framed answers on one kept connection', async () => {
    let gone = 0;
    const c = new HttpConnection(new URL(r.url), lookup, () => gone++);
    r.answers.push('HTTP/1.1 204 No Content\r\n\r\n');
    assert.equal(await c.exchange(exchange(`${r.url}/a?x=1`, { 'fiware-service': 'opencity' }), 5000), 204);
    assert.match(r.requests[0] as string, /^POST \/a\?x=1 HTTP\/1\.1\r\n/);
    assert.match(r.requests[0] as string, /content-length: 8\r\n/);
    r.answers.push('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
    assert.equal(await c.exchange(exchange(`${r.url}/b`), 5000), 200);
    r.answers.push('HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nTrailer: 1\r\n\r\n');
    assert.equal(await c.exchange(exchange(`${r.url}/c`), 5000), 500);
    assert.equal(c.usable, true);
    assert.equal(r.connections, 1);
    assert.equal(gone, 0);
    c.close();
    assert.equal(gone, 1);
  });

  it('reads an answer without framing up to the close, and does not reuse a connection the receiver closes', async () => {
    let gone = 0;
    const c = new HttpConnection(new URL(r.url), lookup, () => gone++);
    r.answers.push('END:HTTP/1.0 200 OK\r\n\r\nbody until the end');
    const answered = c.exchange(exchange(`${r.url}/d`), 5000);
    assert.equal(await answered, 200);
    assert.equal(c.usable, false);
    assert.equal(gone, 1);
    const d = new HttpConnection(new URL(r.url), lookup, () => {});
    r.answers.push('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    assert.equal(await d.exchange(exchange(`${r.url}/e`), 5000), 200);
    assert.equal(d.usable, false);
  });

  it('fails on no answer within the timeout, a closed connection, or a header that cannot be sent', async () => {
    const c = new HttpConnection(new URL(r.url), lookup, () => {});
    r.answers.push(undefined);
    await assert.rejects(c.exchange(exchange(`${r.url}/silent`), 50), { code: 'timeout' });
    const d = new HttpConnection(new URL(r.url), lookup, () => {});
    r.answers.push('CLOSE');
    await assert.rejects(d.exchange(exchange(`${r.url}/closed`), 5000), { code: 'ECONNRESET' });
    const e = new HttpConnection(new URL(r.url), lookup, () => {});
    await assert.rejects(e.exchange(exchange(`${r.url}/x`, { 'x-evil': 'a\r\nx-injected: 1' }), 5000), { code: 'invalid header' });
    e.close();
    assert.equal(requestText(exchange(`${r.url}/x`, { Host: 'receiver.example', 'Content-Length': '1' }))?.match(/host: receiver\.example\r\n/)?.length, 1);
    assert.doesNotMatch(requestText(exchange(`${r.url}/x`, { 'Content-Length': '1' })) as string, /Content-Length: 1/);
  });
});
