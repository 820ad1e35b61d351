// Merchant interface, the events of the account (API.md section 10): what was recorded, where each went, and
// resending one to a chosen endpoint. Mounted by the dev-loop module, which joins events to deliveries.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import type { Signal } from '../outbox/index.ts';
import { DeliveryData } from './deliveries.schemas.ts';
import {
  EventPage,
  EventParams,
  EventWithDeliveries,
  EventsQuery,
  ResendBody,
  ResendTargetPage,
  TriggerBody,
} from './events.schemas.ts';
import * as service from './events.service.ts';
import { triggerEvent } from './trigger.service.ts';

/** `listeners`: the wake-up of `svc listen` streams, raised by a triggered event. */
export const merchantEventRoutes =
  (listeners: Signal): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/events',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listEvents',
          summary: "List the account's events",
          tags: ['Events'],
          description:
            'Newest first; with `after_sequence`, the events after that sequence, oldest first, so that a receiver ' +
            'that sees a gap in `sequence` can fetch what it missed.',
          querystring: EventsQuery,
          response: { 200: EventPage, ...errors(400, 401) },
        },
      },
      async (request) => {
        const q = request.query;
        const events = await service.listMerchantEvents(app.ctx, merchantScope(request), {
          ...pageOf(q),
          type: q.type,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
          q: q.q,
          afterSequence: q.after_sequence,
        });
        return { data: events };
      },
    );

    app.post(
      '/events/trigger',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'triggerEvent',
          summary: 'Trigger a test event',
          tags: ['Events'],
          description:
            'Test mode only (live: 403 forbidden). Records a real event of the type whose data comes from your ' +
            "own store: its `store_id`, fresh ids and the current time, valid against the type's schema. " +
            '`object` names the object the event is about (`ord_...` of an earlier order.created continues that ' +
            'order); `data` is merged over it field by field, and a field the schema does not name is refused ' +
            '(400, `details` with its path). Every subscribed test webhook and every listener receives it.',
          body: TriggerBody,
          response: { 201: EventWithDeliveries, ...errors(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const { type, data, object } = request.body;
        const input = { type, data: data as Record<string, unknown> | undefined, object };
        const event = await triggerEvent(app.ctx, listeners, auditContext(request), input);
        return reply.code(201).send({ data: event });
      },
    );

    app.get(
      '/events/:eventID',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getEvent',
          summary: 'Get an event and its deliveries',
          tags: ['Events'],
          params: EventParams,
          response: { 200: EventWithDeliveries, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.getMerchantEvent(app.ctx, auditContext(request), request.params.eventID),
      }),
    );

    app.get(
      '/events/:eventID/resend-targets',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listResendTargets',
          summary: 'List the endpoints an event may be resent to',
          tags: ['Events'],
          description:
            "The account's endpoints that subscribe to the event's type and may receive it (enabled; an app " +
            'webhook only if the event reached it through an installation), newest first, up to 500; all in ' +
            'one page. A resend to any other endpoint answers 409 conflict naming why.',
          params: EventParams,
          response: { 200: ResendTargetPage, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.listResendTargets(app.ctx, merchantScope(request), {
          eventId: request.params.eventID,
        }),
      }),
    );

    app.post(
      '/events/:eventID/resend',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'resendEvent',
          summary: 'Send an event again to one endpoint',
          tags: ['Events'],
          description:
            "Only to an endpoint that subscribes to the event's type and may receive it (GET " +
            '`/events/{eventID}/resend-targets` lists them); any other answers 409 conflict naming why.',
          params: EventParams,
          body: ResendBody,
          response: { 202: DeliveryData, ...errors(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const data = await service.resendEvent(
          app.ctx,
          auditContext(request),
          request.params.eventID,
          request.body.webhook_id,
        );
        return reply.code(202).send({ data });
      },
    );
  };
