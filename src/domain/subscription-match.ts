import type { AlterationType } from '../contracts/subscriptions.js';
import type { NgsiAttributes } from './asset-body.js';
import type { Change } from './changes.js';
import type { Point } from './geo.js';
import { positionFromAttributes } from './position.js';
import { renderEntity, type AttrsFormat } from './ngsi-entity-format.js';
import { matchesGeoRelation, parseGeoRelation, type GeoRelation } from './ngsi-georel.js';
import { matchesSimpleQuery, parseSimpleQuery, type SimpleQuery } from './ngsi-simple-query.js';
import { DEFAULT_ALTERATION_TYPES, type SubscriptionDefinition } from './subscription.js';
import type { VisibilityScope } from './visibility.js';
import { isVisibleIn, type VisibleAssets } from './visible-assets.js';

/**
 * Which changes of the change log a subscription notifies, and the
 * notification each one makes (one entity per notification, as Orion sends
 * them). Every update carries a new TimeInstant, so an update always changes
 * the entity: `entityChange` and `entityUpdate` fire alike.
 */

/** An asset as a notification shows it: the change's attributes over its last known state. */
export interface AssetState extends VisibilityScope {
  attributes: NgsiAttributes;
  position: Point | undefined;
}

interface EntityMatcher {
  id?: string;
  idPattern?: RegExp;
  type?: string;
  typePattern?: RegExp;
}

/** A subscription's conditions, compiled once. */
export interface CompiledSubscription {
  entities: EntityMatcher[];
  alterationTypes: ReadonlySet<AlterationType>;
  conditionAttrs: readonly string[];
  query: SimpleQuery | undefined;
  geo: GeoRelation | undefined;
  visible: VisibleAssets;
}

export function compileSubscription(definition: SubscriptionDefinition, visible: VisibleAssets): CompiledSubscription {
  const condition = definition.subject.condition;
  const expression = condition?.expression;
  return {
    entities: definition.subject.entities.map((e) => ({
      ...(e.id !== undefined ? { id: e.id } : {}),
      ...(e.idPattern !== undefined ? { idPattern: new RegExp(e.idPattern, 'u') } : {}),
      ...(e.type !== undefined ? { type: e.type } : {}),
      ...(e.typePattern !== undefined ? { typePattern: new RegExp(e.typePattern, 'u') } : {}),
    })),
    alterationTypes: new Set(condition?.alterationTypes ?? DEFAULT_ALTERATION_TYPES),
    conditionAttrs: condition?.attrs ?? [],
    query: expression?.q !== undefined ? parseSimpleQuery(expression.q) : undefined,
    geo: expression ? parseGeoRelation(expression) : undefined,
    visible,
  };
}

function alterationsOf(change: Change): AlterationType[] {
  switch (change.kind) {
    case 'create': return ['entityCreate'];
    case 'update': return ['entityChange', 'entityUpdate'];
    case 'delete': return ['entityDelete'];
  }
}

/** The alteration type a notification of this change reports. */
export function alterationOf(change: Change, subscription: CompiledSubscription): AlterationType {
  return alterationsOf(change).find((a) => subscription.alterationTypes.has(a)) ?? (alterationsOf(change)[0] as AlterationType);
}

function entityMatches(matchers: readonly EntityMatcher[], id: string, type: string): boolean {
  return matchers.some((m) => (m.id !== undefined ? m.id === id : m.idPattern?.test(id) ?? true)
    && (m.type !== undefined ? m.type === type : m.typePattern?.test(type) ?? true));
}

/** Does the subscription notify this change of an asset whose state (after the change) is `state`? */
export function notifies(subscription: CompiledSubscription, change: Change, state: AssetState): boolean {
  if (!alterationsOf(change).some((a) => subscription.alterationTypes.has(a))) return false;
  if (!entityMatches(subscription.entities, change.assetId, change.assetType)) return false;
  if (!isVisibleIn(subscription.visible, state)) return false;
  // A deletion ignores condition.attrs (Orion's rule); creates and updates need one of them among what they set.
  if (change.kind !== 'delete' && subscription.conditionAttrs.length > 0
    && !subscription.conditionAttrs.some((a) => Object.hasOwn(change.attributes, a))) return false;
  if (subscription.query && !matchesSimpleQuery(subscription.query, state.attributes)) return false;
  if (subscription.geo && !matchesGeoRelation(subscription.geo, state.position)) return false;
  return true;
}

/** The attributes a notification shows: the asset's state over which the change is laid. */
export function stateAfter(change: Change, known: NgsiAttributes | undefined): NgsiAttributes {
  return Object.assign(Object.create(null) as NgsiAttributes, known ?? {}, change.attributes);
}

/** The asset's position after the change: the one the change set, else the last known one. */
export function positionAfter(change: Change, known: Point | undefined): Point | undefined {
  try {
    return positionFromAttributes(change.attributes, known ?? { latitude: 0, longitude: 0 }) ?? known;
  } catch {
    // The write was accepted, so its position was read then; a reading that fails now keeps the last known one.
    return known;
  }
}

export interface NotificationBody {
  format: AttrsFormat;
  body: { subscriptionId: string; data: unknown[] };
}

/** The body of the notification of one entity, in the subscription's format. */
export function notificationBody(subscriptionId: string, definition: SubscriptionDefinition, change: Change, attributes: NgsiAttributes): NotificationBody {
  const n = definition.notification;
  const format = n.attrsFormat ?? 'normalized';
  let shown = attributes;
  if (n.onlyChangedAttrs === true) {
    shown = Object.create(null) as NgsiAttributes;
    for (const name of Object.keys(change.attributes)) if (Object.hasOwn(attributes, name)) shown[name] = attributes[name] as NgsiAttributes[string];
  }
  if (n.covered === true) {
    // Every listed attribute appears, a missing one as null (Orion's "covered").
    shown = Object.assign(Object.create(null) as NgsiAttributes, shown);
    for (const name of n.attrs ?? []) if (!Object.hasOwn(shown, name)) shown[name] = { type: 'None', value: null, metadata: {} };
  }
  const entity = renderEntity({ id: change.assetId, type: change.assetType, attributes: shown }, format, { attrs: n.attrs, exceptAttrs: n.exceptAttrs });
  return { format, body: { subscriptionId, data: [entity] } };
}
