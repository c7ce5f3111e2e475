import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Caller } from '../domain/caller.js';
import { badRequest, forbidden, notFound } from '../domain/errors.js';
import { bareHost, refusedDestination, type DestinationPolicy } from '../domain/notify-destination.js';
import type { Page } from '../domain/page.js';
import {
  expiresAt, notificationUrl, patchSubscription, readSubscription, renderSubscription, type SubscriptionDefinition,
} from '../domain/subscription.js';
import { isAdministrator } from '../domain/visibility.js';
import { visibleAssets } from '../domain/visible-assets.js';
import {
  countSubscriptions, deleteSubscription, findSubscription, insertSubscription, listSubscriptions, updateSubscription, type SubscriptionRow,
} from '../storage/repositories/subscriptions.js';

/**
 * What the subscription routes ask: a caller manages its own subscriptions
 * (an administrator everyone's); another owner's is not found. Every change
 * is handed to delivery at once (and other processes see it within a second).
 */

/** Refuses a URL whose host resolves to an address NOTIFY_ALLOWED_HOSTS does not let notifications reach. */
async function checkDestination(policy: DestinationPolicy, definition: SubscriptionDefinition): Promise<void> {
  const url = notificationUrl(definition);
  const host = bareHost(url.hostname);
  const field = definition.notification.httpCustom ? 'notification.httpCustom.url' : 'notification.http.url';
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      // A name that resolves to nothing reaches nothing; it is judged again at each delivery.
      addresses = [];
    }
  }
  for (const address of addresses) {
    const refused = refusedDestination(policy, host, address);
    if (refused) throw badRequest(`Invalid subscription: ${field}: ${refused}`);
  }
}

function stateOf(row: SubscriptionRow) {
  return {
    status: row.status, expiresAt: row.expires_at, timesSent: row.times_sent, lastNotification: row.last_notification,
    lastSuccess: row.last_success, lastSuccessCode: row.last_success_code, lastFailure: row.last_failure,
    lastFailureReason: row.last_failure_reason, failsCounter: row.fails_counter,
  };
}

const render = (ctx: AppContext, row: SubscriptionRow) => renderSubscription(row.id, JSON.parse(row.definition) as SubscriptionDefinition, stateOf(row), ctx.clock.now());

/** The definition as stored: the status has a column of its own. */
function stored(definition: SubscriptionDefinition): string {
  const { status: _status, ...rest } = definition;
  return JSON.stringify(rest);
}

async function ownSubscription(ctx: AppContext, caller: Caller, id: string): Promise<SubscriptionRow> {
  const row = await findSubscription(ctx.store, id);
  if (!row || (row.owner !== caller.subject && !isAdministrator(caller))) throw notFound('The requested subscription has not been found. Check id');
  return row;
}

export async function createSubscription(ctx: AppContext, caller: Caller, body: unknown): Promise<string> {
  const now = ctx.clock.now();
  const definition = readSubscription(body, now);
  await checkDestination(ctx.delivery.policy, definition);
  if (await countSubscriptions(ctx.store, caller.subject) >= ctx.config.subscriptionQuota) {
    throw forbidden(`Subscription quota reached: an owner may hold at most ${ctx.config.subscriptionQuota} subscriptions (SUBSCRIPTION_QUOTA); delete one first`);
  }
  const id = randomBytes(12).toString('hex');
  await insertSubscription(ctx.store, {
    id, owner: caller.subject, visible: JSON.stringify(visibleAssets(caller)), definition: stored(definition),
    status: definition.status ?? 'active', expires_at: expiresAt(definition), created_at: now,
    // No initial notification: the subscription starts with the changes after its creation.
    cursor: await ctx.store.changes.latest(),
    times_sent: 0, last_notification: null, last_success: null, last_success_code: null, last_failure: null, last_failure_reason: null, fails_counter: 0,
  });
  void ctx.delivery.refresh();
  return id;
}

export async function listOwnSubscriptions(ctx: AppContext, caller: Caller, page: Page, withCount: boolean) {
  const owner = isAdministrator(caller) ? undefined : caller.subject;
  const rows = await listSubscriptions(ctx.store, owner, page.limit, page.offset);
  const total = withCount ? await countSubscriptions(ctx.store, owner) : undefined;
  return { subscriptions: rows.map((r) => render(ctx, r)), total };
}

export async function getSubscription(ctx: AppContext, caller: Caller, id: string): Promise<Record<string, unknown>> {
  return render(ctx, await ownSubscription(ctx, caller, id));
}

export async function changeSubscription(ctx: AppContext, caller: Caller, id: string, body: unknown): Promise<void> {
  const row = await ownSubscription(ctx, caller, id);
  const now = ctx.clock.now();
  const current = { ...(JSON.parse(row.definition) as SubscriptionDefinition), status: row.status };
  const next = patchSubscription(current, body, now);
  await checkDestination(ctx.delivery.policy, next);
  const status = next.status ?? 'active';
  const changed = await updateSubscription(ctx.store, id, {
    definition: stored(next), status, expires_at: expiresAt(next),
    // The owner's sight is taken again: it may have joined or left experiments since.
    visible: row.owner === caller.subject ? JSON.stringify(visibleAssets(caller)) : row.visible,
    // Made active again, it starts afresh with its failures forgotten.
    ...(row.status === 'inactive' && status !== 'inactive' ? { fails_counter: 0 } : {}),
  });
  if (!changed) throw notFound('The requested subscription has not been found. Check id');
  void ctx.delivery.refresh();
}

export async function removeSubscription(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  await ownSubscription(ctx, caller, id);
  if (!(await deleteSubscription(ctx.store, id))) throw notFound('The requested subscription has not been found. Check id');
  void ctx.delivery.refresh();
}
