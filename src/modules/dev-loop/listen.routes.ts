// GET /webhooks/listen (API.md section 10): Server-Sent Events for `svc listen`. Frames:
//   event: secret   data: {"secret":"whsec_...","webhook_id":"wh_..."}           (first, once)
//   event: webhook  id: <event id>  data: {"delivery_id","webhook_id","event_type","headers":{webhook-*},"body"}
// and a comment every 15 s. Each body is the exact payload a delivery sends, signed by the secret; `id` is the
// event id, so a reconnect's Last-Event-ID resumes after it. The stream wakes on the LISTEN/NOTIFY signal of
// test-mode ingestion (any process), at once for ingestion in this process, and polls every second for events
// recorded without the signal (in a caller's transaction).
// POST /webhooks/{id}/deliveries/{deliveryID}/report: the client's local answer, recorded as the attempt.
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContext, merchantOf } from '../../http/request.ts';
import { errors } from '../../http/schemas.ts';
import { openListener, parseEventFilter, reportListenerDelivery } from './listen.service.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { Signal } from '../outbox/index.ts';
import { DeliveryData, DeliveryParams } from './deliveries.schemas.ts';
import { ListenQuery, ListenReportBody } from './events.schemas.ts';

const POLL_MS = 1000;
const KEEPALIVE_MS = 15_000;

/**
 * `listeners`: raised when test-mode events were recorded, here (in memory) or elsewhere (NOTIFY); `apps`:
 * the oauth-apps module's apps, for an app's stream.
 */
export const listenRoutes =
  (listeners: Signal, apps: AppsCache): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // Open streams end when the server closes, or it would wait for them forever.
    const open = new Set<() => void>();
    app.addHook('preClose', async () => {
      for (const end of [...open]) end();
    });

    app.get(
      '/webhooks/listen',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'listenToEvents',
          summary: "Stream the account's test-mode events, signed (svc listen)",
          tags: ['Webhooks'],
          description:
            'Server-Sent Events, test mode only (live: 403). First `secret` (the whsec_ secret of this ' +
            'session), then one `webhook` event per recorded event with the exact body and webhook-* headers ' +
            'of a delivery. While open, the stream is a webhook of kind `listener`. Last-Event-ID replays up ' +
            'to one hour. With `app_id`, the events that test-mode app receives from its installations, as its ' +
            'webhooks get them.',
          querystring: ListenQuery,
          produces: ['text/event-stream'],
          response: {
            200: {
              description:
                'event `secret` first, then one event `webhook` per recorded event (id = event id); reconnect with Last-Event-ID to replay up to one hour.',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            ...errors(400, 401, 403),
          },
        },
      },
      async (request, reply) => {
        const audit = auditContext(request);
        const types = parseEventFilter(request.query.events);
        const header = request.headers['last-event-id'];
        const listener = await openListener(app.ctx, apps, audit, {
          sessionId: merchantOf(request).sessionId,
          types,
          lastEventId: typeof header === 'string' ? header : undefined,
          ...(request.query.forward_to ? { forwardTo: request.query.forward_to } : {}),
          appId: request.query.app_id,
        });
        const ctx = app.ctx;
        const stream = new PassThrough();
        let ended = false;
        let pumping = false;
        let again = false;

        const write = async (text: string) => {
          if (!stream.write(text)) await new Promise((r) => stream.once('drain', r));
        };

        async function pump(): Promise<void> {
          if (ended) return;
          if (pumping) {
            again = true;
            return;
          }
          pumping = true;
          try {
            do {
              again = false;
              for (const f of await listener.next()) {
                if (ended) break;
                const data = {
                  delivery_id: f.deliveryId,
                  webhook_id: listener.webhookId,
                  event_type: f.type,
                  headers: f.headers,
                  body: f.body,
                };
                await write(`id: ${f.eventId}\nevent: webhook\ndata: ${JSON.stringify(data)}\n\n`);
              }
            } while (again && !ended);
          } catch (err) {
            ctx.log.warn({ err, webhook: listener.webhookId }, 'listen stream read failed');
          } finally {
            pumping = false;
          }
        }
        const wake = () => void pump();

        const unlisten = await listeners.listen(wake);
        const poll = setInterval(wake, POLL_MS);
        const keepalive = setInterval(() => {
          void write(': keep-alive\n\n');
          listener.touch().catch(() => {});
        }, KEEPALIVE_MS);

        function end(): void {
          if (ended) return;
          ended = true;
          open.delete(end);
          clearInterval(poll);
          clearInterval(keepalive);
          unlisten();
          stream.end();
          listener.close().catch((err: unknown) => {
            ctx.log.warn({ err, webhook: listener.webhookId }, 'closing a listener failed');
          });
        }
        open.add(end);
        reply.raw.once('close', end);

        stream.write(
          `retry: 1000\nevent: secret\ndata: ${JSON.stringify({ secret: listener.secret, webhook_id: listener.webhookId })}\n\n`,
        );
        wake();
        return (
          reply
            .header('cache-control', 'no-store')
            .header('x-accel-buffering', 'no')
            .type('text/event-stream; charset=utf-8')
            // a stream of the documented text, which the schema can only describe as a string
            .send(stream as unknown as string)
        );
      },
    );

    app.post(
      '/webhooks/:webhookID/deliveries/:deliveryID/report',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'reportListenerDelivery',
          summary: "Record the local answer to a listener's delivery",
          tags: ['Webhooks'],
          description: 'For `svc listen`: the status and duration of the local endpoint become the attempt.',
          params: DeliveryParams,
          body: ListenReportBody,
          response: { 200: DeliveryData, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await reportListenerDelivery(
          app.ctx,
          auditContext(request),
          request.params.webhookID,
          request.params.deliveryID,
          request.body,
        ),
      }),
    );
  };
