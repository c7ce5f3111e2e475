/**
 * The live event stream's request schema (discovery, `assets/events`),
 * written once: it types the route, validates and makes the OpenAPI document.
 */
import { Type } from '@sinclair/typebox';
import { QueryObject } from './query.js';

const text = (description: string, examples?: string[]) => Type.Optional(Type.String({ description, ...(examples ? { examples } : {}) }));

export const EventsQuery = QueryObject({
  site: text('Only assets of these sites (comma-separated alternatives)', ['santander']),
  service: text('Only assets of these services (the URN segment after the site)', ['environmental']),
  provider: text('Only assets of these providers (the URN segment after the service)', ['fixed']),
  type: text('Only assets of these types (full URN, or the short name after urn:oc:entityType:)', ['urn:oc:entityType:iotdevice']),
  urn: text('Only assets whose id starts with this', ['urn:oc:entity:santander:environmental:']),
  bbox: text('Only assets in this box, minLon,minLat,maxLon,maxLat (and those leaving it)', ['-3.84,43.44,-3.77,43.48']),
  lastEventId: text('Resume after this event id, where a Last-Event-ID header cannot be sent (the header wins)', ['1234']),
});

export const EventsHeaders = Type.Object({
  'last-event-id': text('Resume right after this event id (EventSource sends it when it connects again)'),
});

export const EventStreamAnswer = Type.String({
  description: 'text/event-stream: events `create`, `update`, `delete` (id: the change\'s sequence number; data: {id, type, site, position, attributes, time}), `reset` and `overflow`, and a comment every 15 s',
});
