// The OpenAPI 3.1 `webhooks` section: one entry per event type, the request the service makes to an endpoint
// (the Standard Webhooks headers, the event envelope of API.md section 7 with the typed `data`), built from
// the catalog and the payload schemas so the document cannot drift from what is validated and sent.
import { EVENT_CATALOG } from './event-catalog.ts';
import { EVENT_PAYLOADS } from './event-payloads.ts';

type Json = Record<string, unknown>;

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

const header = (name: string, description: string, example: string): Json => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

const HEADERS = [
  header(
    'webhook-id',
    'The event id; the same on every attempt: the receiver’s idempotency key.',
    'evt_01jd8z…',
  ),
  header(
    'webhook-timestamp',
    'Unix seconds of this attempt; refuse it beyond 300 s of your clock.',
    '1763719200',
  ),
  header(
    'webhook-signature',
    'v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">, keyed by the endpoint secret; two entries, space ' +
      'separated, while a rotated secret overlaps. Verify with a Standard Webhooks library.',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
];

const answer = (description: string): Json => ({ description });

// Only in deliveries to an app's webhook (API.md section 11.1): the installation the event reached it through.
const onlyForApps = (description: string): Json => ({
  type: ['string', 'null'],
  description: `${description} Only in deliveries to an app's webhook; null in its test deliveries.`,
});
const INSTALLATION: Json = {
  app_id: onlyForApps('The app whose webhook this is.'),
  grant_id: onlyForApps('The installation (grant) of the app by merchant_id.'),
  store_id: onlyForApps('The store the installation acts on.'),
};

/** The `webhooks` object of the OpenAPI document, keyed by event type. */
export function eventWebhooks(): Json {
  const out: Json = {};
  for (const def of EVENT_CATALOG) {
    const payload = EVENT_PAYLOADS[def.id]!;
    const name = pascal(def.id);
    out[def.id] = {
      post: {
        operationId: `on${name}`,
        summary: def.name,
        description:
          `Sent when ${def.description}. \`data\` is the object the event is about; receivers ignore fields ` +
          'they do not know (new optional fields may appear within v1).',
        tags: ['Event payloads'],
        security: [],
        parameters: HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                title: `${name}Event`,
                type: 'object',
                required: ['id', 'type', 'timestamp', 'api_version', 'mode', 'merchant_id', 'data'],
                properties: {
                  id: { type: 'string', description: 'The event id (evt_...), as in webhook-id.' },
                  type: { type: 'string', const: def.id },
                  timestamp: {
                    type: 'string',
                    format: 'date-time',
                    description: 'When the event was recorded.',
                  },
                  api_version: { type: 'string', const: 'v1' },
                  mode: { type: 'string', enum: ['test', 'live'] },
                  merchant_id: {
                    type: 'string',
                    description:
                      'The merchant the event is about (for an app webhook: the one that installed it).',
                  },
                  ...INSTALLATION,
                  data: payload.schema,
                },
              },
              example: {
                id: 'evt_01jd8z6q4m5x2c7k9h3t0w1bca',
                type: def.id,
                timestamp: '2026-11-21T10:00:00.000Z',
                api_version: 'v1',
                mode: 'test',
                merchant_id: 'mer_01jd8x0a1b2c3d4e5f6g7h8j9k',
                data: payload.example,
              },
            },
          },
        },
        responses: {
          '200': answer('Any 2xx within 15 s acknowledges the event; a redirect is a failure.'),
          '410': answer('Gone: the webhook is disabled at once and receives nothing more.'),
          '429': answer('Retried no sooner than Retry-After (capped at the next-but-one step).'),
          '503': answer('Retried no sooner than Retry-After (capped at the next-but-one step).'),
        },
      },
    };
  }
  return out;
}
