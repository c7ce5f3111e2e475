import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERRORS, type ErrorCode } from '../domain/errors.js';
import { statusOfCode } from './error-handler.js';

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The response Node is writing on this connection, if any (it attaches it to the socket). */
const responseUnderWay = (socket: Socket): ServerResponse | undefined => {
  const attached = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
  return attached && !attached.writableEnded ? attached : undefined;
};

/**
 * Errors Node raises before a request reaches Fastify (oversized headers, a
 * client too slow to send its request, garbage on the wire): answered in the
 * platform's JSON error shape, then the connection is closed.
 *
 * Bytes that do not parse may follow, on the same connection, a whole request
 * that is still being answered (a write whose batch has not committed yet).
 * An error written then would reach the client as that request's answer, and
 * tell it a write it made was refused: instead the request's own answer is
 * sent, and the connection closes after it, the bytes unanswered.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = responseUnderWay(socket);
  if (inFlight && (inFlight.req as { complete?: boolean } | undefined)?.complete === true) {
    socket.pause();
    // Node closes the connection after a response that does not keep it alive; one whose headers are already out is ended here.
    inFlight.shouldKeepAlive = false;
    inFlight.once('finish', () => socket.end());
    return;
  }
  const code: ErrorCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'TIMEOUT' : 'BAD_REQUEST';
  const entry = ERRORS[code];
  const status = statusOfCode(code);
  const body = JSON.stringify({ error: entry.kind, description: code === 'BAD_REQUEST' ? 'Malformed HTTP request' : entry.message });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
