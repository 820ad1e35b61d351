// `Idempotency-Key` on every POST of both interfaces that creates or changes something (API.md section 1).
// The first request with a key claims it (a row in idempotency_keys, per merchant, mode and principal); its
// answer is stored before it is sent, and the same key with the same method, path and body replays that
// answer for 24 h with `Idempotent-Replayed: true`. The same key with anything different, or while the first
// request still runs, answers 409 `idempotency_conflict`. A 5xx first answer is not stored: the retry the
// client will make runs again.
// The principal is the credential's owner: the key pair for API keys, the app for access tokens, the user
// for a merchant session; so two apps installed by one merchant have separate key spaces (API.md section 1).
// Installed per route in both interfaces' scopes (this module's `interfaceHooks`, mounted by src/app.ts), so a
// new POST route gets it without asking.
// Checked after authentication (an onRequest hook) and before the route's own checks (validation, handler).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { sameHash } from '../../lib/credentials.ts';
import { AppError } from '../../lib/errors.ts';
import { addRouteHook, methodsOf } from '../../http/route-hooks.ts';
import { decryptSecret, encryptSecret } from '../../lib/secrets.ts';
import * as repo from './idempotency.repository.ts';

const HEADER = 'idempotency-key';
const KEEP_MS = 24 * 3600 * 1000;
// A claim whose request has not answered after 60 s is taken to be dead (its process crashed): requests
// answer in milliseconds (a webhook test, the slowest, is bounded by its 15 s delivery timeout), and a key
// must not stay blocked for long after a crash.
const LOCK_MS = 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    /** The key this request claimed, whose answer `storeAnswer` keeps; null when it claimed none. */
    idempotencyClaim: repo.KeyRef | null;
  }
}

/** Objects with sorted keys, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same body. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprint(request: FastifyRequest): Buffer {
  return createHash('sha256')
    .update(`${request.method}\n${request.url}\n${canonical(request.body ?? {})}`)
    .digest();
}

function keyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (key.length < 1 || key.length > 255) {
    throw new AppError('validation_failed', 'Idempotency-Key must be 1 to 255 characters.', {
      details: [{ field: 'Idempotency-Key', issue: 'must be 1 to 255 characters' }],
    });
  }
  return key;
}

const conflict = (why: string) => new AppError('idempotency_conflict', why);

/** Whose key space the request is in; undefined for a request with no principal (sign-up, sign-in). */
function refOf(request: FastifyRequest, key: string): repo.KeyRef | undefined {
  const p = request.principal;
  if (p) {
    const principal =
      p.kind === 'access_token' ? `app:${p.appId ?? p.credentialId}` : `key:${p.credentialId}`;
    return { merchantId: p.merchantId, mode: p.mode, principal, key };
  }
  const m = request.merchant;
  if (m) return { merchantId: m.merchantId, mode: request.mode, principal: `user:${m.userId}`, key };
  return undefined;
}

async function claimKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.method !== 'POST') return undefined;
  const key = keyOf(request);
  const ref = key === undefined ? undefined : refOf(request, key);
  if (!ref) return undefined;
  const { db, config, clock } = request.server.ctx;
  const now = new Date(clock.now());
  const fields = {
    fingerprint: fingerprint(request),
    lockedUntil: new Date(now.getTime() + LOCK_MS),
    expiresAt: new Date(now.getTime() + KEEP_MS),
  };
  // Twice: the row found taken by the first insert may be gone by the read (a failed first request).
  let row: repo.IdempotencyRow | undefined;
  for (let attempt = 0; attempt < 2 && !row; attempt++) {
    if (await repo.insertRunning(db, ref, fields)) {
      request.idempotencyClaim = ref;
      return undefined;
    }
    row = await repo.findKey(db, ref);
  }
  if (!row) throw conflict('Another request with this Idempotency-Key is in progress; retry later.');
  const expired = row.expires_at <= now;
  const abandoned = row.response_status === null && row.locked_until <= now;
  if (expired || abandoned) {
    if (await repo.takeOver(db, ref, fields, now)) {
      request.idempotencyClaim = ref;
      return undefined;
    }
    throw conflict('Another request with this Idempotency-Key is in progress; retry later.');
  }
  if (!sameHash(row.fingerprint, fields.fingerprint)) {
    throw conflict('This Idempotency-Key was used with a different request.');
  }
  if (row.response_status === null || row.response_body === null) {
    throw conflict('The first request with this Idempotency-Key is still in progress; retry later.');
  }
  if (row.response_type) void reply.type(row.response_type);
  return reply
    .code(row.response_status)
    .headers({ 'idempotent-replayed': 'true', 'cache-control': 'no-store' })
    .send(decryptSecret(config.masterKeys, row.response_body));
}

async function storeAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const ref = request.idempotencyClaim;
  if (!ref) return payload;
  request.idempotencyClaim = null;
  const { db, config } = request.server.ctx;
  try {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
    if (reply.statusCode >= 500 || body === null) {
      await repo.deleteKey(db, ref);
    } else {
      const type = reply.getHeader('content-type');
      await repo.storeAnswer(db, ref, {
        status: reply.statusCode,
        type: typeof type === 'string' ? type : null,
        // Sealed: a replayed key creation or secret rotation carries the secret it made.
        body: encryptSecret(config.masterKey, body),
      });
    }
  } catch (err) {
    // The answer goes out regardless; the claim lapses after LOCK_MS and a retry then runs again.
    request.log.warn({ err }, 'could not store the idempotent answer');
  }
  return payload;
}

/**
 * Installs the hooks on the POST routes of a scope (both interfaces). Per route rather than per scope: the
 * read routes, the hot path, then run no idempotency code at all. Routes that need no credential (sign-up,
 * sign-in) have no principal to scope a key to, and are left out.
 */
export function registerIdempotency(scope: FastifyInstance): void {
  scope.decorateRequest('idempotencyClaim', null);
  scope.addHook('onRoute', (route) => {
    const methods = methodsOf(route);
    if (!methods.includes('POST') || route.config?.anonymous === true) return;
    addRouteHook(route, 'preValidation', claimKey);
    addRouteHook(route, 'onSend', storeAnswer);
  });
}

export async function purgeExpiredIdempotencyKeys(ctx: Context): Promise<number> {
  return repo.deleteExpired(ctx.db, new Date(ctx.clock.now()));
}
