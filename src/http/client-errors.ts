import type { Socket } from 'node:net';
import { ERRORS, type ErrorCode } from '../domain/errors.js';
import { statusOfCode } from './error-handler.js';

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Errors Node raises before a request reaches Fastify (oversized headers, a
 * client too slow to send its request, garbage on the wire): answered in the
 * platform's JSON error shape, then the connection is closed.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'TIMEOUT' : 'BAD_REQUEST';
  const entry = ERRORS[code];
  const status = statusOfCode(code);
  const body = JSON.stringify({ error: entry.kind, description: code === 'BAD_REQUEST' ? 'Malformed HTTP request' : entry.message });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
