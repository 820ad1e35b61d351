// A webhook receiver for svc, runnable as is on the project's own Node (24, which `npm ci` installs; it runs
// this TypeScript directly), with the endpoint secret in WEBHOOK_SECRET. On a clean machine, in the project
// with the service running (`npm ci && npm start`) and signed in once (`npx svc login`):
//
//   WEBHOOK_SECRET=$(npx svc listen --print-secret) PORT=8787 node_modules/.bin/node examples/webhook-receiver.ts
//
// then, in a second terminal, forward your test-mode events to it and make one happen:
//
//   npx svc listen --forward-to http://127.0.0.1:8787/webhooks
//   npx svc trigger order.created
//
// Or create a test-mode webhook for http://127.0.0.1:8787/webhooks (local targets need
// SVC_WEBHOOK_ALLOW_PRIVATE=1 on the service) with its own secret, and press "Send test event".
//
// It does what docs/webhooks.md asks of every receiver:
// 1. verifies the signature over the raw body (the `standardwebhooks` package, which also enforces the
//    300 s replay window on webhook-timestamp),
// 2. processes each event once, keyed by webhook-id (here a JSON-lines file stands in for a database table
//    with a unique key on the event id),
// 3. answers 2xx only after the event is durably stored, and fast: real work happens after the answer,
// 4. ignores fields it does not know.
import { createServer } from 'node:http';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  process.stderr.write('Set WEBHOOK_SECRET to the whsec_... secret shown when the webhook was created.\n');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 8787);
const store = process.env.EVENTS_FILE ?? './received-events.jsonl';
const verifier = new Webhook(secret);

// Event ids already accepted: the idempotency key of every delivery is its webhook-id (= the event id),
// the same on every retry.
const seen = new Set<string>(
  existsSync(store)
    ? readFileSync(store, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: string }).id)
    : [],
);

interface SvcEvent {
  id: string;
  type: string;
  timestamp: string;
  mode: 'test' | 'live';
  merchant_id: string;
  data: Record<string, unknown>;
}

function handle(event: SvcEvent): void {
  // Real work (fulfilment, sync, e-mail) belongs in a queue of your own, after the 2xx; here, a log line.
  process.stdout.write(`${event.type} ${event.id} (${event.mode}) ${JSON.stringify(event.data)}\n`);
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/webhooks') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8'); // verify the bytes as received, never re-serialised
    let event: SvcEvent;
    try {
      event = verifier.verify(raw, {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      }) as SvcEvent;
    } catch (err) {
      // A bad signature or a timestamp outside the 300 s window: refuse, never process.
      res.writeHead(err instanceof WebhookVerificationError ? 400 : 500).end();
      return;
    }
    if (seen.has(event.id)) {
      res.writeHead(200).end('duplicate'); // already accepted: a retry of a delivery we answered too late
      return;
    }
    try {
      appendFileSync(
        store,
        `${JSON.stringify({ id: event.id, type: event.type, received_at: new Date() })}\n`,
      );
      seen.add(event.id);
    } catch {
      res.writeHead(503).end(); // not stored: svc retries later
      return;
    }
    res.writeHead(204).end(); // durably accepted
    setImmediate(() => handle(event));
  });
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${port}/webhooks\n`);
});
