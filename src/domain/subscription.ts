import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SubscriptionInput, SubscriptionPatch, type AlterationType } from '../contracts/subscriptions.js';
import { badRequest } from './errors.js';
import { parseIsoDate } from './history-dates.js';
import { parseGeoRelation } from './ngsi-georel.js';
import { parseSimpleQuery } from './ngsi-simple-query.js';
import { formatInstant } from './time-instant.js';

/**
 * An NGSI v2 subscription as its owner writes it, the checks it must pass
 * (each refusal names the member at fault), how a PATCH changes it, and how
 * it is read back with Orion's status fields.
 */

export type SubscriptionDefinition = SubscriptionInput;
export type SubscriptionStatus = 'active' | 'inactive' | 'oneshot';

/** Orion's own wording (orion-api.md, "covered"). */
export const COVERED_WITHOUT_ATTRS = 'covered true cannot be used if notification attributes list is empty';

export const DEFAULT_ALTERATION_TYPES: readonly AlterationType[] = ['entityCreate', 'entityChange'];

const checkInput = TypeCompiler.Compile(SubscriptionInput);
const checkPatch = TypeCompiler.Compile(SubscriptionPatch);

/** `/notification/http/url` → `notification.http.url`; array indexes as `[0]`. */
function fieldName(path: string): string {
  return path.split('/').filter((p) => p !== '').reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`), '');
}

function firstSchemaError(checker: typeof checkInput | typeof checkPatch, body: unknown): string | undefined {
  const error = checker.Errors(body).First();
  if (!error) return undefined;
  const field = fieldName(error.path);
  if (field === '') return 'Invalid subscription: expected a JSON object';
  if (error.message === 'Unexpected property') return `Invalid subscription: unknown member ${field}`;
  return `Invalid subscription: ${field}: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`;
}

function compilePattern(field: string, source: string): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch {
    throw badRequest(`Invalid subscription: ${field} is not a valid regular expression`);
  }
}

/** The notification's URL: absolute http(s), nothing else. */
export function notificationUrl(definition: Pick<SubscriptionDefinition, 'notification'>): URL {
  const field = definition.notification.httpCustom ? 'notification.httpCustom.url' : 'notification.http.url';
  const text = definition.notification.httpCustom?.url ?? definition.notification.http?.url ?? '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(`Invalid subscription: ${field} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`Invalid subscription: ${field} must be an http or https URL`);
  if (url.username !== '' || url.password !== '') throw badRequest(`Invalid subscription: ${field} must not carry credentials`);
  return url;
}

/** The checks beyond the shape: one of each pair, patterns, query, geometry, URL, dates. */
function checkMeaning(definition: SubscriptionDefinition, now: number): void {
  definition.subject.entities.forEach((entity, i) => {
    const at = `subject.entities[${i}]`;
    if ((entity.id === undefined) === (entity.idPattern === undefined)) throw badRequest(`Invalid subscription: ${at} needs exactly one of id and idPattern`);
    if (entity.type !== undefined && entity.typePattern !== undefined) throw badRequest(`Invalid subscription: ${at} has both type and typePattern`);
    if (entity.idPattern !== undefined) compilePattern(`${at}.idPattern`, entity.idPattern);
    if (entity.typePattern !== undefined) compilePattern(`${at}.typePattern`, entity.typePattern);
  });
  const expression = definition.subject.condition?.expression;
  if (expression?.q !== undefined) prefixed('subject.condition.expression.q', () => parseSimpleQuery(expression.q as string));
  if (expression) prefixed('subject.condition.expression', () => parseGeoRelation(expression));
  const n = definition.notification;
  if ((n.http === undefined) === (n.httpCustom === undefined)) throw badRequest('Invalid subscription: notification needs exactly one of http and httpCustom');
  notificationUrl(definition);
  if (n.attrs !== undefined && n.exceptAttrs !== undefined) throw badRequest('Invalid subscription: notification has both attrs and exceptAttrs');
  if (n.covered === true && (n.attrs === undefined || n.attrs.length === 0)) throw badRequest(COVERED_WITHOUT_ATTRS);
  if (definition.expires !== undefined) {
    const expires = parseIsoDate(definition.expires);
    if (expires === undefined) throw badRequest('Invalid subscription: expires is not an ISO 8601 date');
    if (expires <= now) throw badRequest('Invalid subscription: expires is in the past');
  }
  if (definition.throttling !== undefined && !(definition.throttling >= 0)) throw badRequest('Invalid subscription: throttling must not be negative');
}

/** Runs a parser whose errors do not know the member they read, and names it. */
function prefixed(field: string, parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    if (error instanceof Error) throw badRequest(`Invalid subscription: ${field}: ${error.message}`);
    throw error;
  }
}

/** A new subscription's definition, checked whole. */
export function readSubscription(body: unknown, now: number): SubscriptionDefinition {
  const problem = firstSchemaError(checkInput, body);
  if (problem) throw badRequest(problem);
  const definition = body as SubscriptionDefinition;
  checkMeaning(definition, now);
  return definition;
}

/** The definition a PATCH makes: the members it gives replace the stored ones; the result is checked whole. */
export function patchSubscription(stored: SubscriptionDefinition, body: unknown, now: number): SubscriptionDefinition {
  const problem = firstSchemaError(checkPatch, body);
  if (problem) throw badRequest(problem);
  const patch = body as SubscriptionPatch;
  const next: SubscriptionDefinition = { ...stored, ...patch } as SubscriptionDefinition;
  // A PATCH's `expires` may not lie in the past either; a stored one that has passed stays as it was.
  checkMeaning({ ...next, expires: patch.expires }, now);
  return next;
}

/** What delivery adds to a subscription (Orion's read-only members), as stored. */
export interface DeliveryState {
  status: SubscriptionStatus;
  expiresAt: number | null;
  timesSent: number;
  lastNotification: number | null;
  lastSuccess: number | null;
  lastSuccessCode: number | null;
  lastFailure: number | null;
  lastFailureReason: string | null;
  failsCounter: number;
}

/** Epoch ms of `expires`, or null when the subscription is permanent. */
export function expiresAt(definition: SubscriptionDefinition): number | null {
  return definition.expires === undefined ? null : parseIsoDate(definition.expires) ?? null;
}

/** The status a reader sees: `expired` once the expiry has passed. */
export function effectiveStatus(state: Pick<DeliveryState, 'status' | 'expiresAt'>, now: number): SubscriptionStatus | 'expired' {
  return state.expiresAt !== null && state.expiresAt <= now ? 'expired' : state.status;
}

/** The subscription as GET answers it: the definition, then the status fields Orion adds. */
export function renderSubscription(id: string, definition: SubscriptionDefinition, state: DeliveryState, now: number): Record<string, unknown> {
  const { status: _status, ...rest } = definition;
  const notification: Record<string, unknown> = { ...definition.notification, attrsFormat: definition.notification.attrsFormat ?? 'normalized' };
  if (state.timesSent > 0) notification.timesSent = state.timesSent;
  if (state.lastNotification !== null) notification.lastNotification = formatInstant(state.lastNotification);
  if (state.lastSuccess !== null) notification.lastSuccess = formatInstant(state.lastSuccess);
  if (state.lastSuccessCode !== null) notification.lastSuccessCode = state.lastSuccessCode;
  if (state.lastFailure !== null) notification.lastFailure = formatInstant(state.lastFailure);
  if (state.lastFailureReason !== null) notification.lastFailureReason = state.lastFailureReason;
  if (state.failsCounter > 0) notification.failsCounter = state.failsCounter;
  return { id, ...rest, notification, status: effectiveStatus(state, now) };
}
