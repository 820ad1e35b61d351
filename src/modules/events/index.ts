export { emitEvent, type EmittedEvent, type NewEvent } from './events.service.ts';
