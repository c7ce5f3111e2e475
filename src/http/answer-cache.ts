import { clearTimeout, setTimeout } from 'node:timers';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { seesExperimentAssets, visibleAssets } from '../domain/visible-assets.js';
import { ByteBoundedLru } from './byte-bounded-lru.js';

/** Characters of URLs remembered as asked once, at most. */
const MAX_SEEN_CHARS = 4 * 1024 * 1024;
/** The header of totals of listings (X-Total-Count), kept with the answer. */
export const TOTAL_HEADER = 'x-total-count';

interface Answer {
  body: Buffer;
  contentType: string;
  total: string | undefined;
}

/**
 * A value that changes with every commit to the store, by any process, or
 * undefined when the store cannot tell cheaply (then nothing read may be kept).
 */
export type StoreVersion = () => Promise<string | undefined>;

export interface AnswerCacheOptions {
  /** Bytes of answers kept at most, and the largest answer worth keeping. */
  maxBytes: number;
  maxAnswerBytes: number;
  /**
   * What besides the URL tells answers apart: the format Accept chose, or a
   * time window the answer depends on. The same string, the same answer.
   */
  variant?: (request: FastifyRequest) => string;
  /** Requests never answered from the cache nor kept (e.g. random samples). */
  bypass?: (request: FastifyRequest) => boolean;
  /**
   * Who is given a kept answer. `everyone` (the default): answers everyone sees alike, so callers
   * who may see experiment assets always read. `variant`: the variant names whose answer it is
   * (e.g. the caller's site), and `bypass` leaves out the requests it cannot name.
   */
  sharedBy?: 'everyone' | 'variant';
  /** The header of totals of listings, kept with the answer (default X-Total-Count). */
  totalHeader?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request's answer may be kept: the key, the store version it was read at, and the end of its read. */
    keptAnswerKey?: { key: string; version: string; done: (answer?: Answer) => void };
  }
}

/** How long a request waits for the same answer being read by another before it reads it itself. */
const WAIT_FOR_READ_MS = 2000;

/**
 * Recent public answers, kept in memory until anything is committed to the
 * store: the same page, site list, asset or range of history asked again and
 * again (the observatory's first screen, a dashboard) is then answered without
 * reading the store again. Correct because the store says when anything was
 * committed, by any process (its StoreVersion); an answer read while the store
 * moved is not kept. Only answers everyone sees alike are kept (callers who
 * may see experiment assets always read), or, where an interface answers each
 * caller its own, answers given to the same caller (named by the variant).
 * Only a URL asked again is looked up or kept: one asked once (an asset among
 * a million, a page of a long walk) costs no look at the store's version. Requests for the same answer at the
 * same version read it once: the others are given the answer of that read
 * (readUnderway).
 */
export class AnswerCache {
  private readonly answers: ByteBoundedLru<Answer>;
  private version: string | undefined;
  private seen = new Set<string>();
  private seenChars = 0;
  private nextLook: Promise<string | undefined> | undefined;
  /** Answers being read, by version and key, each settled with its answer when its read ends (undefined: none to share). */
  private readonly reading = new Map<string, Promise<Answer | undefined>>();

  constructor(
    maxBytes: number,
    maxAnswerBytes: number,
    private readonly readVersion: StoreVersion,
  ) {
    this.answers = new ByteBoundedLru<Answer>(maxBytes, maxAnswerBytes, (a) => a.body.length);
  }

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

  /**
   * The store's current version, emptying the cache when it moved; undefined:
   * nothing may be kept. Requests that arrive together share one look at the
   * store, taken once the event loop has read them all: each look begins after
   * every request it answers arrived, so none of them is answered from before
   * a write it may have seen acknowledged.
   */
  sync(): Promise<string | undefined> {
    this.nextLook ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.nextLook = undefined;
      const version = await this.readVersion();
      if (version !== this.version) {
        this.answers.clear();
        this.version = version;
      }
      return version;
    });
    return this.nextLook;
  }

  get(key: string): Answer | undefined {
    return this.answers.get(key);
  }

  /** Keeps an answer read at `version`, unless the store has moved on since. */
  set(key: string, version: string, answer: Answer): void {
    if (version === this.version) this.answers.set(key, answer);
  }

  /**
   * The read of `key` at `version` another request has under way, if any,
   * settled with its answer. While writes arrive, the cache is emptied at each
   * commit: the requests for a page asked again and again then share one read
   * of it at each version instead of each reading it. An answer read at the
   * version a request looked at is one it may be given, whether or not the
   * cache could keep it.
   */
  readUnderway(key: string, version: string): Promise<Answer | undefined> | undefined {
    return this.reading.get(`${version} ${key}`);
  }

  /** Marks `key` as being read at `version`; the returned function ends the read with its answer (once; later calls do nothing). */
  startReading(key: string, version: string): (answer?: Answer) => void {
    const id = `${version} ${key}`;
    let end: (answer: Answer | undefined) => void = () => {};
    const read = new Promise<Answer | undefined>((resolve) => {
      end = resolve;
    });
    this.reading.set(id, read);
    return (answer) => {
      if (this.reading.get(id) === read) this.reading.delete(id);
      end(answer);
    };
  }
}

/** The answer of `read`, or undefined after `ms` at most (a read that never ends must not hold others). */
function waitAtMost(read: Promise<Answer | undefined>, ms: number): Promise<Answer | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms).unref();
  });
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/**
 * Answers the GETs of an interface from the cache when it can, and keeps what
 * it answers. The interface says how to read the store's version: the cache
 * knows no store.
 */
export function registerAnswerCache(app: FastifyInstance, version: StoreVersion, options: AnswerCacheOptions): void {
  const cache = new AnswerCache(options.maxBytes, options.maxAnswerBytes, version);
  const totalHeader = options.totalHeader ?? TOTAL_HEADER;
  const cacheable = (request: FastifyRequest) => request.method === 'GET' && !options.bypass?.(request)
    && (options.sharedBy === 'variant' || !seesExperimentAssets(visibleAssets(request.caller)));

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!cacheable(request)) return;
    const key = `${options.variant?.(request) ?? ''} ${request.url}`;
    if (!cache.admits(key)) return;
    const version = await cache.sync();
    if (version === undefined) return;
    let answer = cache.get(key);
    const underway = answer ? undefined : cache.readUnderway(key, version);
    if (underway) answer = await waitAtMost(underway, WAIT_FOR_READ_MS);
    if (!answer) {
      request.keptAnswerKey = { key, version, done: cache.startReading(key, version) };
      return;
    }
    reply.header('content-type', answer.contentType);
    if (answer.total !== undefined) reply.header(totalHeader, answer.total);
    return reply.send(answer.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const keep = request.keptAnswerKey;
    if (!keep) return payload;
    if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      keep.done();
      return payload;
    }
    const total = reply.getHeader(totalHeader);
    const answer = {
      body: Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
      contentType: String(reply.getHeader('content-type') ?? 'application/json'),
      total: total === undefined ? undefined : String(total),
    };
    cache.set(keep.key, keep.version, answer);
    keep.done(answer);
    return payload;
  });
  // A read that ends without an answer to share (an error, a client gone) ends all the same.
  const endRead = async (request: FastifyRequest) => request.keptAnswerKey?.done();
  app.addHook('onResponse', endRead);
  app.addHook('onRequestAbort', endRead);
}
