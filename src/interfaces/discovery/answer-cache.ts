import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { onlineSince } from '../../domain/activity.js';
import { seesExperimentAssets, visibleAssets } from '../../domain/visible-assets.js';
import { ByteBoundedLru } from '../../http/byte-bounded-lru.js';
import { storeVersion } from '../../storage/repositories/discovery-freshness.js';
import { TOTAL_HEADER } from './listing.js';

/** Bytes of answers kept at most, and the largest answer worth keeping. */
const MAX_BYTES = 8 * 1024 * 1024;
const MAX_ANSWER_BYTES = 512 * 1024;
/** Characters of URLs remembered as asked once, at most. */
const MAX_SEEN_CHARS = 4 * 1024 * 1024;

interface Answer {
  body: Buffer;
  contentType: string;
  total: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request's answer may be kept: the key and the store version it was read at. */
    discoveryAnswerKey?: { key: string; version: string };
  }
}

/**
 * Recent public answers of discovery, kept in memory until anything is
 * committed to the store: the same page, site list or asset asked again and
 * again (the observatory's first screen) is then answered without reading the
 * store again. Correct because the store says when anything was committed, by
 * any process (storeVersion); an answer read while the store moved is not
 * kept. Only answers everyone sees alike are kept:
 * callers who may see experiment assets, and random samples, always read.
 * Only a URL asked again is looked up or kept: one asked once (an asset among a
 * million, a page of a long walk) costs no look at the store's version.
 */
export class AnswerCache {
  private answers = new ByteBoundedLru<Answer>(MAX_BYTES, MAX_ANSWER_BYTES, (a) => a.body.length);
  private version: string | undefined;
  private seen = new Set<string>();
  private seenChars = 0;

  /** Whether the cache takes part in answering this key: it holds its answer, or the key was asked before. */
  admits(key: string): boolean {
    if (this.answers.has(key) || this.seen.has(key)) return true;
    if (this.seenChars + key.length > MAX_SEEN_CHARS) {
      this.seen.clear();
      this.seenChars = 0;
    }
    this.seen.add(key);
    this.seenChars += key.length;
    return false;
  }

  /** The store's current version, emptying the cache when it moved; undefined: nothing may be kept. */
  async sync(ctx: AppContext): Promise<string | undefined> {
    const version = await storeVersion(ctx.store);
    if (version !== this.version) {
      this.answers.clear();
      this.version = version;
    }
    return version;
  }

  get(key: string): Answer | undefined {
    return this.answers.get(key);
  }

  /** Keeps an answer read at `version`, unless the store has moved on since. */
  set(key: string, version: string, answer: Answer): void {
    if (version === this.version) this.answers.set(key, answer);
  }
}

function cacheable(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  if ((request.query as Record<string, unknown> | undefined)?.sample !== undefined) return false;
  return !seesExperimentAssets(visibleAssets(request.caller));
}

/** Answers discovery GETs from the cache when it can, and keeps what it answers. */
export function registerAnswerCache(app: FastifyInstance, ctx: AppContext): void {
  const cache = new AnswerCache();

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!cacheable(request)) return;
    // Online counts move with time alone: answers are kept within one hour of the online window.
    const key = `${onlineSince(ctx.clock.now(), ctx.config.onlineWindowMs)} ${request.url}`;
    if (!cache.admits(key)) return;
    const version = await cache.sync(ctx);
    if (version === undefined) return;
    const answer = cache.get(key);
    if (!answer) {
      request.discoveryAnswerKey = { key, version };
      return;
    }
    reply.header('content-type', answer.contentType);
    if (answer.total !== undefined) reply.header(TOTAL_HEADER, answer.total);
    return reply.send(answer.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const keep = request.discoveryAnswerKey;
    if (!keep || reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    const total = reply.getHeader(TOTAL_HEADER);
    cache.set(keep.key, keep.version, {
      body: Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
      contentType: String(reply.getHeader('content-type') ?? 'application/json'),
      total: total === undefined ? undefined : String(total),
    });
    return payload;
  });
}
