import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';

/**
 * One HTTP/1.1 connection to a notification receiver, kept open between
 * exchanges, one exchange at a time. Notifications are small requests whose
 * answer is only a status, sent by the thousand a second: this writes each
 * request in one piece and reads just enough of each answer (status line,
 * framing headers, body skipped) to know where it ends, which costs the
 * server a fraction of what a general-purpose client does per request.
 * Anything it does not understand closes the connection.
 */

export interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/** An error with the code reasons are named from (./notifier.ts). */
function failure(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** A header name (an RFC 9110 token) and value (no control character but tab): nothing a receiver could read as another header or request. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The request as written on the wire, or undefined when a header could not be sent as given. */
export function requestText(exchange: Exchange): string | undefined {
  const { url, method, headers, body } = exchange;
  let text = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  let host = url.host;
  for (const name in headers) {
    const value = headers[name] as string;
    if (!TOKEN.test(name) || !VALUE.test(value)) return undefined;
    const lower = name.toLowerCase();
    // The framing is this connection's; a Host given replaces the URL's.
    if (lower === 'content-length' || lower === 'transfer-encoding') continue;
    if (lower === 'host') host = value;
    else text += `${name}: ${value}\r\n`;
  }
  text += `host: ${host}\r\n`;
  return `${text}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Longest answer head read. */
const MAX_HEAD = 64 * 1024;

type Phase = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'trailers' | 'until-close';

interface Waiting {
  method: string;
  resolve(status: number): void;
  reject(error: Error): void;
}

export class HttpConnection {
  private readonly socket: net.Socket;
  private waiting: Waiting | undefined;
  /** Unread bytes of the answer, one character per byte. */
  private input = '';
  private phase: Phase = 'head';
  private remaining = 0;
  private status = 0;
  private keepAlive = true;
  private gone = false;

  /** @param onGone called once the connection can no longer be used (closed by either side, or failed). */
  constructor(url: URL, lookup: LookupFunction, private readonly onGone: (connection: HttpConnection) => void) {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.socket = url.protocol === 'https:'
      ? tls.connect({ host, port, lookup, ...(net.isIP(host) === 0 ? { servername: host } : {}) })
      : net.connect({ host, port, lookup });
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, 1000);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.end(error));
    this.socket.on('close', () => {
      // An answer without framing ends with its connection.
      if (this.waiting && this.phase === 'until-close') this.answered();
      else this.end(failure('connection closed before the answer ended', 'ECONNRESET'));
    });
  }

  /** Can it take another exchange? */
  get usable(): boolean {
    return !this.gone && this.waiting === undefined;
  }

  /** Sends one request; resolves with the answer's status once the answer has ended. */
  exchange(exchange: Exchange, timeoutMs: number): Promise<number> {
    const text = requestText(exchange);
    if (text === undefined) return Promise.reject(failure('a header cannot be sent as given', 'invalid header'));
    if (!this.usable) return Promise.reject(failure('connection not usable', 'ECONNRESET'));
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => this.end(failure('timeout', 'timeout')), timeoutMs);
      this.waiting = {
        method: exchange.method,
        resolve: (status) => {
          clearTimeout(timer);
          resolve(status);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.phase = 'head';
      this.socket.ref();
      this.socket.write(text);
    });
  }

  close(): void {
    this.end(failure('closed', 'ECONNRESET'));
  }

  /** The connection ends: what waits fails (or, read until the close, is answered), and it is no longer used. */
  private end(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
    if (this.gone) return;
    this.gone = true;
    this.socket.destroy();
    this.onGone(this);
  }

  private read(chunk: Buffer): void {
    if (!this.waiting) {
      // Nothing was asked: a receiver that talks out of turn is not talked to again.
      this.end(failure('unexpected data', 'ECONNRESET'));
      return;
    }
    this.input += chunk.toString('latin1');
    try {
      this.parse();
    } catch (error) {
      this.end(error as Error);
    }
  }

  private parse(): void {
    for (;;) {
      switch (this.phase) {
        case 'head': {
          const end = this.input.indexOf('\r\n\r\n');
          if (end < 0) {
            if (this.input.length > MAX_HEAD) throw failure('answer head too long', 'HPE_HEADER_OVERFLOW');
            return;
          }
          const lines = this.input.slice(0, end).split('\r\n');
          this.input = this.input.slice(end + 4);
          this.head(lines);
          break;
        }
        case 'body':
        case 'chunk-data': {
          const take = Math.min(this.remaining, this.input.length);
          this.input = this.input.slice(take);
          this.remaining -= take;
          if (this.remaining > 0) return;
          if (this.phase === 'body') this.answered();
          else this.phase = 'chunk-size';
          break;
        }
        case 'chunk-size': {
          const end = this.input.indexOf('\r\n');
          if (end < 0) return;
          const size = Number.parseInt((this.input.slice(0, end).split(';')[0] as string).trim(), 16);
          this.input = this.input.slice(end + 2);
          if (!Number.isInteger(size) || size < 0) throw failure('bad chunk size', 'HPE_INVALID_CHUNK_SIZE');
          if (size === 0) this.phase = 'trailers';
          else {
            this.remaining = size + 2;
            this.phase = 'chunk-data';
          }
          break;
        }
        case 'trailers': {
          const end = this.input.indexOf('\r\n');
          if (end < 0) return;
          const line = this.input.slice(0, end);
          this.input = this.input.slice(end + 2);
          if (line === '') this.answered();
          break;
        }
        case 'until-close':
          this.input = '';
          return;
      }
      if (!this.waiting) return;
    }
  }

  /** Reads an answer's head: its status and how its body is framed. */
  private head(lines: string[]): void {
    const start = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0] ?? '');
    if (!start) throw failure('not an HTTP/1.x answer', 'HPE_INVALID_CONSTANT');
    const status = Number(start[2]);
    let length: number | undefined;
    let chunked = false;
    let connection = '';
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw failure('bad header line', 'HPE_INVALID_HEADER_TOKEN');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value))) throw failure('bad content-length', 'HPE_INVALID_CONTENT_LENGTH');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = value.toLowerCase().split(',').map((v) => v.trim()).includes('chunked');
      else if (name === 'connection') connection = value.toLowerCase();
    }
    // An interim answer (100 Continue, 102, 103) is followed by the real one.
    if (status >= 100 && status < 200 && status !== 101) return;
    if (status === 101) throw failure('the receiver switched protocols', 'HPE_UNEXPECTED_UPGRADE');
    this.status = status;
    this.keepAlive = start[1] === '1' ? !connection.split(',').map((v) => v.trim()).includes('close') : connection === 'keep-alive';
    const waiting = this.waiting as Waiting;
    if (waiting.method === 'HEAD' || status === 204 || status === 304) this.answered();
    else if (chunked) this.phase = 'chunk-size';
    else if (length !== undefined) {
      this.remaining = length;
      this.phase = 'body';
      if (length === 0) this.answered();
    } else {
      // No framing: the answer ends with the connection.
      this.keepAlive = false;
      this.phase = 'until-close';
    }
  }

  /** The answer has ended. */
  private answered(): void {
    const waiting = this.waiting as Waiting;
    this.waiting = undefined;
    this.phase = 'head';
    if (!this.keepAlive || this.input.length > 0) {
      if (!this.gone) {
        this.gone = true;
        this.socket.destroy();
        this.onGone(this);
      }
    } else {
      this.socket.unref();
    }
    waiting.resolve(this.status);
  }
}
