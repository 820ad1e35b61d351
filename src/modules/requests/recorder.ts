// The recorder (API.md section 11.6): one onResponse hook on every route of the public interface (the OAuth
// token, revoke and introspection endpoints included) turns an answered call into an entry, in memory, for
// the merchant and mode its credential names (`request.caller`, set where the credential verified); a call
// whose credential verified nothing is not recorded. Entries are written from a bounded buffer (entry-buffer.ts)
// that holds them as COPY text: a batch at least every second (and at once when full), COPY on PostgreSQL.
// Recording never delays or fails the call: the hook runs after the answer is sent, and when the writer falls
// behind, what its buffer cannot hold is dropped and counted (`svc_request_log_dropped_total`), never queued
// without limit.
// An app's call (API.md section 12.3) is one more entry, in the same buffer: an access token's call on a store
// of another merchant than the app's owner is offered again for the owner (`forOwner`); an access token that
// did not verify, but that the bearer check's cache still knows as the app's (expired, or of a removed
// installation), is recorded for the owner only, once that cache has said whose it is.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import type { Mode } from '../../lib/credentials.ts';
import { openApiPath } from '../../http/openapi.ts';
import type { AppInstallation, Caller } from '../../http/request.ts';
import { addRouteHook } from '../../http/route-hooks.ts';
import type { RequestEntry } from './request-entry.ts';
import { EntryBuffer } from './entry-buffer.ts';
import { writeBatch, type WriteTarget } from './record.repository.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error body this call answered with, kept for its request log entry. */
    errorBody: string | null;
  }
}

const PUBLIC = '/api/public/v1/';
// A crash (SIGKILL) loses what waits in the buffer: at most this long of calls, and the batch in flight.
export const FLUSH_EVERY_MS = 1000;
// A batch of 5,000 costs PostgreSQL about 30 ms (COPY, 5.5 us an entry, measured; the COPY text is made as
// each entry is offered); bigger batches only hold more in memory at once.
const MAX_BATCH = 5000;
// What may wait: one to two seconds of what one recorder writes on the bench machine (10,000-22,000 entries
// a second); a few MB of COPY text, about 120 MB were each at its largest (see MAX_ERROR).
export const CAPACITY = 20_000;
// A batch's COPY text: room for MAX_BATCH entries of the usual 600 bytes; a batch of larger entries (error
// bodies, long paths) closes when it is full. At most CAPACITY entries wait, in a few such buffers.
const BATCH_BYTES = 4 * 1024 * 1024;
const MAX_PATH = 1024;
const MAX_USER_AGENT = 512;
const MAX_IDEMPOTENCY_KEY = 255;
// A body's field names: enough for any form of the public API; a body of thousands of keys keeps its first.
const MAX_FIELDS = 50;
const MAX_FIELD_NAME = 64;
// Error envelopes are a few hundred bytes; a validation error listing many fields is cut here (a 20,000-entry
// buffer of the largest entries stays near 120 MB).
const MAX_ERROR = 4 * 1024;

export type RequestBatch = EntryBuffer;

/** Whose app a refused access token belongs to (the oauth module's `refusedTokenCall`). */
export type RefusedTokenOwner = (
  token: string,
) => Promise<{ mode: Mode; installation: AppInstallation } | undefined>;

// An access token as either scheme sends it (RFC 6750 Bearer, RFC 9449 DPoP).
const ACCESS_TOKEN = /^(?:Bearer|DPoP)[ ]+(svc_oat_\S+)\s*$/i;

/** The access token of a call refused before any credential verified (401), if it sent one. */
function refusedAccessToken(request: FastifyRequest, reply: FastifyReply): string | undefined {
  if (request.caller !== null || reply.statusCode !== 401) return undefined;
  const header = request.headers.authorization;
  return header === undefined ? undefined : ACCESS_TOKEN.exec(header)?.[1];
}

export function requestBatch(ctx: Context, target: WriteTarget): RequestBatch {
  const metrics = ctx.metrics.batch('request_log');
  return new EntryBuffer({
    maxBatch: MAX_BATCH,
    lingerMs: FLUSH_EVERY_MS,
    capacity: CAPACITY,
    batchBytes: BATCH_BYTES,
    write: async (batch) => {
      metrics.size.observe(batch.size);
      await writeBatch(target, ctx.db, batch);
      ctx.metrics.requestLog.written.inc(batch.size);
    },
    onError: (err, size) => {
      metrics.failures.inc();
      ctx.metrics.requestLog.writeFailed.inc(size);
      ctx.log.warn({ err, entries: size }, 'writing request log entries failed: they are dropped');
    },
  });
}

function keepErrorBody(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (reply.statusCode >= 400 && (request.caller !== null || refusedAccessToken(request, reply))) {
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
    request.errorBody = text === null ? null : text.slice(0, MAX_ERROR);
  }
  done(null, payload);
}

/**
 * The top-level names of a JSON object or form body (both arrive parsed as an object), never a value: a
 * developer sees which fields a refused call sent without the log ever holding what a secret field held.
 */
export function bodyFieldNames(body: unknown): string[] | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) return null;
  return Object.keys(body)
    .slice(0, MAX_FIELDS)
    .map((name) => name.slice(0, MAX_FIELD_NAME));
}

function entryOf(
  ctx: Context,
  request: FastifyRequest,
  reply: FastifyReply,
  route: string,
  caller: Caller,
): RequestEntry {
  const url = request.url;
  const query = url.indexOf('?');
  const elapsed = reply.elapsedTime;
  const userAgent = request.headers['user-agent'];
  const key = request.headers['idempotency-key'];
  return {
    createdAt: Math.round(ctx.clock.now() - elapsed),
    merchantId: caller.merchantId,
    mode: caller.mode,
    requestId: request.id,
    method: request.method,
    path: (query < 0 ? url : url.slice(0, query)).slice(0, MAX_PATH),
    route,
    status: reply.statusCode,
    durationMs: Math.round(elapsed * 100) / 100,
    credentialType: caller.type,
    credentialId: caller.id,
    credentialLast4: caller.last4,
    ip: request.ip ?? null,
    userAgent: userAgent === undefined ? null : userAgent.slice(0, MAX_USER_AGENT),
    idempotencyKey: typeof key === 'string' ? key.slice(0, MAX_IDEMPOTENCY_KEY) : null,
    replayed: reply.getHeader('idempotent-replayed') === 'true',
    error: request.errorBody,
    appId: caller.type === 'access_token' || caller.type === 'client_secret' ? caller.id : null,
    storeId: caller.installation?.storeId ?? null,
    forOwner: false,
    bodyFields: bodyFieldNames(request.body),
  };
}

/** The entries of a call made with a credential that verified: its merchant's, and the app owner's copy. */
function offerCall(batch: RequestBatch, entry: RequestEntry, caller: Caller): boolean {
  const owner = caller.installation?.ownerId;
  if (!batch.offer(entry)) return false;
  return (
    owner === undefined ||
    owner === entry.merchantId ||
    batch.offer({ ...entry, merchantId: owner, forOwner: true })
  );
}

/** A refused access token's call, for the app's owner once the oauth module said whose it is. */
function offerRefused(
  ctx: Context,
  batch: RequestBatch,
  whose: RefusedTokenOwner,
  entry: RequestEntry,
  token: string,
): void {
  const arriving = whose(token).then(
    (owned) => {
      if (!owned) return;
      const { appId, ownerId, storeId } = owned.installation;
      const forOwner = { merchantId: ownerId, mode: owned.mode, credentialId: appId, appId, storeId };
      if (!batch.offer({ ...entry, ...forOwner, forOwner: true })) ctx.metrics.requestLog.bufferFull.inc();
    },
    (err: unknown) => ctx.log.warn({ err }, 'whose access token a refused call sent is unknown'),
  );
  batch.arriveLater(arriving);
}

/**
 * Installs the recorder's hooks on every route of the public interface declared after this call. `whose`
 * names the app of a refused access token; without it, refused calls are not recorded.
 */
export function recordPublicCalls(
  app: FastifyInstance,
  ctx: Context,
  batch: RequestBatch,
  whose?: RefusedTokenOwner,
): void {
  app.decorateRequest('errorBody', null);
  const { requestLog } = ctx.metrics;
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(PUBLIC)) return;
    const pattern = openApiPath(route.url);
    addRouteHook(route, 'onSend', keepErrorBody);
    addRouteHook(route, 'onResponse', (request, reply, done) => {
      const caller = request.caller;
      if (caller !== null) {
        if (!offerCall(batch, entryOf(ctx, request, reply, pattern, caller), caller)) {
          requestLog.bufferFull.inc();
        }
      } else if (whose !== undefined) {
        const token = refusedAccessToken(request, reply);
        if (token !== undefined) {
          // whose it is comes later: the entry, made now, keeps the call's own time
          const unknown: Caller = {
            merchantId: '',
            mode: request.mode,
            type: 'access_token',
            id: '',
            last4: token.slice(-4),
          };
          offerRefused(ctx, batch, whose, entryOf(ctx, request, reply, pattern, unknown), token);
        }
      }
      done();
    });
  });
}
