import type { Module } from '../module.ts';
import { eventRoutes } from './events.routes.ts';

export { emitEvent, ingestEvent, recordEvent, type EmittedEvent, type NewEvent } from './events.service.ts';
export {
  DELIVERY_CHANNEL,
  LISTEN_CHANNEL,
  isOwnListenSignal,
  isOwnSignal,
  onDeliveriesCreated,
  onTestEventsRecorded,
  testEventsRecorded,
} from './delivery-signal.ts';
export {
  eventsAfter,
  findEvent,
  listEvents,
  type EventFilter,
  type StoredEvent,
} from './events.repository.ts';
export {
  EVENT_CATALOG,
  PUBLISHED_CATALOG,
  isEventType,
  sampleData,
  type EventDefinition,
} from './event-catalog.ts';
export { CartItem, EVENT_PAYLOADS, type EventPayload } from './event-payloads.ts';
export { eventWebhooks } from './event-webhooks.ts';
export { checkPayload, mergeData, payloadProblems } from './event-validation.ts';

export function createEvents(): Module {
  return { name: 'events', routes: eventRoutes };
}
