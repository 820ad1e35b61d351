// Merchant interface, the events of the account (API.md section 10): what was recorded, where each went, and
// resending one to a chosen endpoint. Mounted by the webhooks module, which joins events to deliveries.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContext } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import {
  DeliveryData,
  EventPage,
  EventParams,
  EventWithDeliveries,
  EventsQuery,
  ResendBody,
  TriggerBody,
} from './webhooks.schemas.ts';
import * as service from './deliveries.service.ts';
import type { Signal } from './signal.ts';
import { triggerEvent } from './trigger.service.ts';

const tags = ['Events'];
const security = [{ session: [] }];

/** `listeners`: the wake-up of `svc listen` streams, raised by a triggered event. */
export const merchantEventRoutes =
  (listeners: Signal): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/events',
      {
        schema: {
          tags,
          security,
          summary: "List the account's events, newest first.",
          querystring: EventsQuery,
          response: { 200: EventPage, ...errors(400, 401) },
        },
      },
      async (request) => {
        const q = request.query;
        const filter = {
          type: q.type,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
          q: q.q,
        };
        return {
          data: await service.listMerchantEvents(app.ctx, auditContext(request), filter, pageOf(q)),
        };
      },
    );

    app.post(
      '/events/trigger',
      {
        schema: {
          tags,
          security,
          summary: 'Record a test event of a type, with data from your own store.',
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
        schema: {
          tags,
          security,
          summary: 'Get an event with the deliveries it produced.',
          params: EventParams,
          response: { 200: EventWithDeliveries, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.getMerchantEvent(app.ctx, auditContext(request), request.params.eventID),
      }),
    );

    app.post(
      '/events/:eventID/resend',
      {
        schema: {
          tags,
          security,
          summary: 'Send an event again, to one chosen endpoint.',
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
