import assert from 'node:assert/strict';
import type { TestPlatform } from './platform.js';
import { assetBody, create, timeInstant, update } from './federation.js';

/** A site pushing readings at controlled receive and observation times. */
export class HistorySite {
  constructor(private readonly platform: () => TestPlatform, readonly site: string) {}

  async register(): Promise<void> {
    await this.platform().siteToken(this.site);
  }

  /** A token valid at the platform's current time (tokens live minutes). */
  private token(): Promise<string> {
    return this.platform().clientToken(`ocsite-${this.site}`);
  }

  /** Creates `id` received at `receivedAt`, observed at `observedAt` (default: the same time). */
  async create(id: string, attrs: Record<string, unknown>, receivedAt: number, observedAt = receivedAt, expected = 201) {
    const p = this.platform();
    p.clock.set(receivedAt);
    const body = { ...assetBody(id), temperature: undefined, ...attrs, TimeInstant: timeInstant(new Date(observedAt).toISOString()) };
    const res = await create(p, await this.token(), JSON.parse(JSON.stringify(body)));
    assert.equal(res.statusCode, expected, res.body);
    return res;
  }

  async update(id: string, attrs: Record<string, unknown>, receivedAt: number, observedAt = receivedAt, expected = 204) {
    const p = this.platform();
    p.clock.set(receivedAt);
    const res = await update(p, await this.token(), id, { ...attrs, TimeInstant: timeInstant(new Date(observedAt).toISOString()) });
    assert.equal(res.statusCode, expected, res.body);
    return res;
  }
}

/** `temperature:ambient` as a site sends it. */
export const temperature = (value: unknown) => ({ 'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value } });
