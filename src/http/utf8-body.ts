import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../domain/errors.js';

/**
 * A request body as text, refused when its bytes are not UTF-8 (RFC 8259 §8.1).
 * Decoding leniently would turn broken bytes into U+FFFD and a malformed
 * request into a valid one, stored with characters its sender never sent.
 */
export function utf8Text(body: Buffer): string {
  if (!isUtf8(body)) throw badRequest('The request body is not valid UTF-8');
  return body.toString('utf8');
}

/** Fastify's own JSON body parser (prototype-poisoning checks and its errors), fed only UTF-8. */
export function registerUtf8JsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8Text(body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
