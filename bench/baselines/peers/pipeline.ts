// What the three job-queue peers share, so that only the queue differs from one to the next and from the
// service: the ingestion route (the service's body schema, internal token, event-type and payload checks,
// and payload bytes), and each attempt (the service's signing, sender and retry policy, imported from src/).
// Each peer is a process of its own, as `npm start` is: it serves ingestion and runs its worker, and a
// SIGKILL takes both down at once.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import { isEventType, checkPayload } from '../../../src/modules/events/index.ts';
import { IngestBody } from '../../../src/modules/outbox/ingest.schemas.ts';
import { createAgent, sendOnce } from '../../../src/modules/webhooks/sender.ts';
import { signedHeaders, signingKey } from '../../../src/modules/webhooks/signing.ts';
import { decide } from '../../../src/modules/delivery/retry-schedule.ts';
import { newId } from '../../../src/lib/ids.ts';
import { systemClock } from '../../../src/lib/time.ts';
import { serveCalls } from '../../lib/child.ts';

export interface PeerWebhook {
  id: string;
  merchantId: string;
  mode: 'test' | 'live';
  url: string;
  /** `whsec_` + base64, as the service's API returned it. */
  secret: string;
  events: string[];
}

/** Everything a peer is started with, in BENCH_PEER (JSON). The same values configure the service. */
export interface PeerSettings {
  port: number;
  internalToken: string;
  webhooks: PeerWebhook[];
  /** Seconds before each retry: SVC_WEBHOOK_RETRY_SCHEDULE. */
  schedule: number[];
  /** SVC_WEBHOOK_TIMEOUT_MS. */
  timeoutMs: number;
  /** Attempts in flight at once: the service's PER_WEBHOOK. */
  concurrency: number;
  /** How long a job taken by a worker stays its own before another may take it: the service's lease. */
  leaseMs: number;
  /** The queue's store: a PostgreSQL database or a Redis server. */
  storeUrl: string;
}

/** One job: one event to one webhook. `step` is the retry step reached, as the service's deliveries keep it. */
export interface Delivery {
  webhookId: string;
  eventId: string;
  payload: string;
  step: number;
}

export function settings(): PeerSettings {
  const raw = process.env.BENCH_PEER;
  if (!raw) throw new Error('BENCH_PEER is not set');
  return JSON.parse(raw) as PeerSettings;
}

/** The wait before the next attempt of a failed one (`null`: none left), the service's policy with its jitter. */
export type Outcome = { ok: true } | { ok: false; retryInMs: number | null; status: number | null };

/** Sends one attempt exactly as the service would: same headers, same signature, same sender and timeout. */
export function attempts(s: PeerSettings) {
  const agent = createAgent({ timeoutMs: s.timeoutMs, allowPrivate: true });
  const hooks = new Map(s.webhooks.map((w) => [w.id, { ...w, key: signingKey(w.secret) }]));
  return {
    async send(d: Delivery): Promise<Outcome> {
      const hook = hooks.get(d.webhookId);
      if (!hook) throw new Error(`unknown webhook ${d.webhookId}`);
      const headers = signedHeaders([hook.key], d.eventId, d.payload, new Date());
      const result = await sendOnce(agent, hook.url, { ...headers }, d.payload, s.timeoutMs, systemClock);
      const now = new Date();
      const decision = decide(s.schedule, d.step, result, now);
      if (decision.status === 'succeeded') return { ok: true };
      const retryInMs = decision.nextAttemptAt ? decision.nextAttemptAt.getTime() - now.getTime() : null;
      return { ok: false, retryInMs, status: result.status };
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function authorised(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const given = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

interface IngestRequest {
  merchant_id: string;
  mode: 'test' | 'live';
  type: string;
  data: Record<string, unknown>;
  id?: string;
  ordering_key?: string;
}

/**
 * `POST /internal/v1/events` as the service answers it (202 with the event id and the number of deliveries),
 * over a peer's `enqueue`, which must have made every job durable when it resolves. The service also records
 * the event itself and checks the merchant in the same statement; a peer keeps its webhooks in memory.
 */
export async function servePeer(
  s: PeerSettings,
  queue: { enqueue(jobs: Delivery[]): Promise<void> },
): Promise<void> {
  const app = Fastify({ logger: false });
  // The sequence per merchant and mode, in this process's memory: the same bytes as the service's body, though
  // the service's counter is a row every process shares and a restart keeps.
  const sequences = new Map<string, number>();
  app.post<{ Body: IngestRequest }>(
    '/internal/v1/events',
    { schema: { body: IngestBody } },
    async (req, reply) => {
      if (!authorised(req, s.internalToken))
        return reply.code(401).send({ error: { code: 'unauthenticated' } });
      const b = req.body;
      if (!isEventType(b.type)) return reply.code(400).send({ error: { code: 'validation_failed' } });
      checkPayload(b.type, b.data);
      const hooks = s.webhooks.filter((w) => w.merchantId === b.merchant_id);
      if (hooks.length === 0) return reply.code(400).send({ error: { code: 'validation_failed' } });
      const now = new Date();
      const id = b.id ?? newId('evt', now.getTime());
      // The service's payload, field for field (outbox.service.ts buildEvent), serialised once for every attempt.
      const counter = `${b.merchant_id} ${b.mode}`;
      const sequence = (sequences.get(counter) ?? 0) + 1;
      sequences.set(counter, sequence);
      const objectId = b.data.id;
      const payload = JSON.stringify({
        id,
        type: b.type,
        timestamp: now.toISOString(),
        api_version: 'v1',
        mode: b.mode,
        merchant_id: b.merchant_id,
        ordering_key:
          b.ordering_key ??
          (typeof objectId === 'string' || typeof objectId === 'number' ? String(objectId) : null),
        data: b.data,
        sequence,
      });
      const jobs = hooks
        .filter((w) => w.mode === b.mode && w.events.includes(b.type))
        .map((w) => ({ webhookId: w.id, eventId: id, payload, step: 0 }));
      if (jobs.length > 0) await queue.enqueue(jobs);
      return reply.code(202).send({ data: { id, deliveries: jobs.length } });
    },
  );
  // A payload that does not fit its type (AppError 400) or a body the schema refuses (Fastify's 400).
  app.setErrorHandler((err: { status?: number; statusCode?: number }, _req, reply) => {
    const status = err.status ?? err.statusCode ?? 500;
    return reply.code(status).send({ error: { code: status < 500 ? 'validation_failed' : 'internal' } });
  });
  await app.listen({ port: s.port, host: '127.0.0.1' });
  // Stopped by SIGTERM or the bench going away (serveCalls), like a killed process: no drain, as nothing is
  // measured after.
  serveCalls({ port: s.port }, {});
}
