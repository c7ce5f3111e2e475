import { Type, type Static } from '@sinclair/typebox';
import { QueryObject } from './query.js';
import { bearerRequired } from './security.js';

/**
 * NGSI v2 subscriptions (/federation/v2/subscriptions), the resource as
 * Orion's manual gives it. The definition is checked against these schemas
 * (src/domain/subscription.ts), which also give its type and its OpenAPI
 * document; members they do not name are refused.
 */

const strict = { additionalProperties: false } as const;
const name = Type.String({ minLength: 1, maxLength: 256 });
const names = Type.Array(name, { minItems: 1, maxItems: 256 });

export const EntitySelector = Type.Object({
  id: Type.Optional(name),
  idPattern: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'A regular expression an entity id must match' })),
  type: Type.Optional(name),
  typePattern: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'A regular expression an entity type must match' })),
}, { ...strict, description: 'Exactly one of id and idPattern; at most one of type and typePattern' });

export const ALTERATION_TYPES = ['entityCreate', 'entityChange', 'entityUpdate', 'entityDelete'] as const;
export type AlterationType = (typeof ALTERATION_TYPES)[number];

export const Condition = Type.Object({
  attrs: Type.Optional(Type.Array(name, { maxItems: 256, description: 'Notify only when one of these attributes changed' })),
  expression: Type.Optional(Type.Object({
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'NGSI v2 simple query language' })),
    georel: Type.Optional(Type.String({ minLength: 1, description: 'near;maxDistance:M, near;minDistance:M, coveredBy, intersects, disjoint, equals' })),
    geometry: Type.Optional(Type.String({ minLength: 1, description: 'point, line, polygon, box' })),
    coords: Type.Optional(Type.String({ minLength: 1, description: '"lat,lon;lat,lon…"' })),
  }, strict)),
  alterationTypes: Type.Optional(Type.Array(Type.Union(ALTERATION_TYPES.map((t) => Type.Literal(t))), { minItems: 1, maxItems: 4, description: 'Default entityCreate and entityChange' })),
}, strict);

const url = Type.String({ minLength: 1, maxLength: 2048, description: 'An absolute http(s) URL' });

export const HttpCustom = Type.Object({
  url,
  headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 4096 }))),
  qs: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 4096 }))),
  method: Type.Optional(Type.Union(['POST', 'PUT', 'PATCH'].map((m) => Type.Literal(m)))),
}, strict);

export const ATTRS_FORMATS = ['normalized', 'keyValues', 'values'] as const;

export const Notification = Type.Object({
  http: Type.Optional(Type.Object({ url }, strict)),
  httpCustom: Type.Optional(HttpCustom),
  attrs: Type.Optional(Type.Array(name, { maxItems: 256 })),
  exceptAttrs: Type.Optional(names),
  attrsFormat: Type.Optional(Type.Union(ATTRS_FORMATS.map((f) => Type.Literal(f)), { description: 'Default normalized' })),
  onlyChangedAttrs: Type.Optional(Type.Boolean()),
  covered: Type.Optional(Type.Boolean()),
  maxFailsLimit: Type.Optional(Type.Integer({ minimum: 1 })),
}, { ...strict, description: 'Exactly one of http and httpCustom' });

/** A subscription as its owner writes it (POST; PATCH sends any part of it). */
export const SubscriptionInput = Type.Object({
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  subject: Type.Object({
    entities: Type.Array(EntitySelector, { minItems: 1, maxItems: 100 }),
    condition: Type.Optional(Condition),
  }, strict),
  notification: Notification,
  expires: Type.Optional(Type.String({ description: 'ISO 8601; omitted: permanent' })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('oneshot')])),
  throttling: Type.Optional(Type.Number({ description: 'Seconds between two notifications of the subscription; changes meanwhile are coalesced' })),
}, strict);
export type SubscriptionInput = Static<typeof SubscriptionInput>;

export const SubscriptionPatch = Type.Partial(SubscriptionInput, strict);
export type SubscriptionPatch = Static<typeof SubscriptionPatch>;

const NotificationStatus = Type.Object({
  timesSent: Type.Optional(Type.Integer()),
  lastNotification: Type.Optional(Type.String()),
  lastSuccess: Type.Optional(Type.String()),
  lastSuccessCode: Type.Optional(Type.Integer()),
  lastFailure: Type.Optional(Type.String()),
  lastFailureReason: Type.Optional(Type.String({ description: 'e.g. "HTTP 500", "timeout", "connection refused"' })),
  failsCounter: Type.Optional(Type.Integer({ description: 'Consecutive failures; 0 after a success' })),
});

export const Subscription = Type.Object({
  id: Type.String(),
  description: Type.Optional(Type.String()),
  subject: SubscriptionInput.properties.subject,
  notification: Type.Intersect([Notification, NotificationStatus]),
  expires: Type.Optional(Type.String()),
  status: Type.Union(['active', 'inactive', 'oneshot', 'expired'].map((s) => Type.Literal(s))),
  throttling: Type.Optional(Type.Number()),
}, { description: 'A subscription with its read-only status fields' });

const SubscriptionError = Type.Object({ error: Type.String(), description: Type.String() });
const errors = {
  400: { ...SubscriptionError, description: 'Malformed subscription (the description names the field)' },
  401: { ...SubscriptionError, description: 'No valid bearer token' },
};
const notFound = { 404: { ...SubscriptionError, description: 'No such subscription of the caller' } };
const Params = Type.Object({ subscriptionId: Type.String() });
const tags = ['subscriptions'];

export const ListQuery = QueryObject({
  limit: Type.Optional(Type.String({ description: 'At most 1000; default 20' })),
  offset: Type.Optional(Type.String({ description: 'Default 0' })),
  options: Type.Optional(Type.String({ description: 'count: the total in Fiware-Total-Count' })),
});

export const createSubscriptionSchema = {
  tags, summary: 'Create a subscription', security: bearerRequired, body: SubscriptionInput,
  response: {
    201: { type: 'null', description: 'Created; Location: /v2/subscriptions/<id>' }, ...errors,
    403: { ...SubscriptionError, description: 'SUBSCRIPTION_QUOTA reached' },
  },
};
export const listSubscriptionsSchema = {
  tags, summary: "The caller's subscriptions (an administrator's: all)", security: bearerRequired, querystring: ListQuery,
  response: { 200: Type.Array(Subscription), ...errors },
};
export const getSubscriptionSchema = {
  tags, summary: 'A subscription', security: bearerRequired, params: Params,
  response: { 200: Subscription, ...errors, ...notFound },
};
export const updateSubscriptionSchema = {
  tags, summary: 'Change the members given', security: bearerRequired, params: Params, body: SubscriptionPatch,
  response: { 204: { type: 'null', description: 'Changed' }, ...errors, ...notFound },
};
export const deleteSubscriptionSchema = {
  tags, summary: 'Delete a subscription', security: bearerRequired, params: Params,
  response: { 204: { type: 'null', description: 'Deleted' }, ...errors, ...notFound },
};
