// The event catalog: the types of events, the JSON Schema and example of each type's `data`, and the checks
// against them. Data only, with no table and no state: the events themselves are the outbox module's
// (src/modules/outbox/index.ts), which records and fans them out; the delivery module delivers and purges
// them.
export {
  EVENT_CATALOG,
  PUBLISHED_CATALOG,
  isEventType,
  isServiceRecorded,
  reachesAnyScope,
  sampleData,
  type EventDefinition,
} from './event-catalog.ts';
export { CartItem, EVENT_PAYLOADS, type EventPayload } from './event-payloads.ts';
export { eventWebhooks } from './event-webhooks.ts';
export { checkPayload, mergeData, payloadProblems } from './event-validation.ts';
export { objectPrefix, sampleFor, type SampleSource } from './event-samples.ts';
