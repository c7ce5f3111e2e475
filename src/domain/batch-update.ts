import { AppError, badRequest } from './errors.js';

/**
 * The body of `POST /v2/op/update` (and the entities of `POST /v2/op/notify`),
 * as Orion's manual gives it: an action type and the entities it applies to.
 * Only the shape is judged here; each entity is then judged as its own single
 * operation, so that one bad entity fails alone.
 */

export type BatchAction = 'append' | 'appendStrict' | 'update' | 'delete' | 'replace';

/** Entities per request at most; beyond, the request is refused whole (413), never cut. */
export const MAX_BATCH_ENTITIES = 1000;

/** Action types by name, the deprecated upper-case ones included. */
const ACTIONS: Record<string, BatchAction> = {
  append: 'append', appendStrict: 'appendStrict', update: 'update', delete: 'delete', replace: 'replace',
  APPEND: 'append', APPEND_STRICT: 'appendStrict', UPDATE: 'update', DELETE: 'delete', REPLACE: 'replace',
};

/** An entity of a write: an object with a string id; everything else is judged by its single operation. */
export interface BatchEntity {
  id: string;
  type: string | undefined;
  /** The whole entity, as a create reads it. */
  body: Record<string, unknown>;
  /** Its attributes, as an update of attributes reads them. */
  attributes: Record<string, unknown>;
}

const ENTITY_FIELDS = new Set(['id', 'type']);

/** The attributes of an entity: all but id and type. */
export function attributesOf(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(body)) if (!ENTITY_FIELDS.has(name)) out[name] = body[name];
  return out;
}

export interface BatchUpdate {
  action: BatchAction;
  entities: BatchEntity[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entities of a list (`entities` of a batch, `data` of a notification). */
export function readBatchEntities(list: unknown, field: string): BatchEntity[] {
  if (!Array.isArray(list)) throw badRequest(`${field} must be an array of entities`);
  if (list.length === 0) throw badRequest(`${field} must not be empty`);
  if (list.length > MAX_BATCH_ENTITIES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${field} holds ${list.length} entities: at most ${MAX_BATCH_ENTITIES} are accepted per request; send the rest in further requests`);
  }
  return list.map((entity, i) => {
    if (!isObject(entity)) throw badRequest(`${field}[${i}] must be an object`);
    const { id, type } = entity;
    if (typeof id !== 'string' || id === '') throw badRequest(`${field}[${i}].id must be a non-empty string`);
    if (type !== undefined && (typeof type !== 'string' || type === '')) throw badRequest(`${field}[${i}].type must be a non-empty string`);
    return { id, type, body: entity, attributes: attributesOf(entity) };
  });
}

/** `{"actionType", "entities"}`: 400 naming the field, 413 beyond the entity limit. */
export function readBatchUpdate(body: unknown): BatchUpdate {
  if (!isObject(body)) throw badRequest('HTTP body must be a JSON object with actionType and entities');
  const { actionType } = body;
  if (actionType === undefined) throw badRequest('actionType not provided');
  const action = typeof actionType === 'string' && Object.hasOwn(ACTIONS, actionType) ? ACTIONS[actionType] : undefined;
  if (!action) throw badRequest(`actionType ${JSON.stringify(String(actionType).slice(0, 64))} not valid: expected one of append, appendStrict, update, delete, replace`);
  if (body.entities === undefined) throw badRequest('entities not provided');
  const unknown = Object.keys(body).find((k) => k !== 'actionType' && k !== 'entities');
  if (unknown !== undefined) throw badRequest(`Field ${JSON.stringify(unknown.slice(0, 64))} not allowed in a batch update: only actionType and entities`);
  return { action, entities: readBatchEntities(body.entities, 'entities') };
}

/** A notification as an Orion broker sends it: `{"subscriptionId", "data": [entities]}`. */
export function readNotification(body: unknown): BatchEntity[] {
  if (!isObject(body)) throw badRequest('HTTP body must be a JSON object with subscriptionId and data');
  if (typeof body.subscriptionId !== 'string' || body.subscriptionId === '') throw badRequest('subscriptionId must be a non-empty string');
  if (body.data === undefined) throw badRequest('data not provided');
  return readBatchEntities(body.data, 'data');
}
