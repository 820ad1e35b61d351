// Access tokens as public-interface credentials (API.md section 6). A token's row is cached per process by
// its hash, so a warm bearer check costs no query; the app (scopes, rotation cut-off) comes from the app
// cache. A cached token holds its scopes already bound by its grant's: revocations and new consents (which
// replace the grant's scopes) notify GRANTS_CHANNEL with the grant id in their transaction, and every process
// drops that grant's tokens when it hears it (within a second; at once in the process that made the change).
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { notify } from '../../db/bus.ts';
import { hashCredential, type Mode } from '../../lib/credentials.ts';
import type { PublicPrincipal } from '../../http/request.ts';
import { APPS_CHANNEL, appById, intersect, splitScopes } from '../oauth-apps/index.ts';
import { findAccessToken, touchGrants } from './oauth.repository.ts';

export const GRANTS_CHANNEL = 'svc_oauth_grants';
const MAX_ENTRIES = 100_000;
// A grant's last_used_at is written at most once a minute per process, in one UPDATE per 5 s for all
// grants used meanwhile: per-request writes would double the cost of a bearer check.
const TOUCH_EVERY_MS = 60_000;
const FLUSH_AFTER_MS = 5_000;
// Unknown hashes are remembered briefly: a token is never presented before its insert commits, so a miss
// cannot turn into a hit later; the bound only limits memory.
const MISS_TTL_MS = 60_000;

interface Entry {
  grantId: string;
  appId: string;
  merchantId: string;
  mode: Mode;
  /** The token's scopes within its grant's, as they were read; the app's allowed scopes bound them at use. */
  scopes: readonly string[];
  createdAt: number;
  expiresAt: number;
}
type Slot = Entry | { missUntil: number };

interface State {
  tokens: Map<string, Slot>;
  byGrant: Map<string, Set<string>>;
  epoch: number;
  ready: Promise<void>;
  touched: Map<string, number>;
  pending: Set<string>;
  flushTimer: NodeJS.Timeout | undefined;
}

const states = new WeakMap<Context, State>();

function dropGrant(state: State, grantId: string): void {
  state.epoch++;
  for (const key of state.byGrant.get(grantId) ?? []) state.tokens.delete(key);
  state.byGrant.delete(grantId);
}

function stateOf(ctx: Context): State {
  const existing = states.get(ctx);
  if (existing) return existing;
  const state: State = {
    tokens: new Map(),
    byGrant: new Map(),
    epoch: 0,
    ready: Promise.resolve(),
    touched: new Map(),
    pending: new Set(),
    flushTimer: undefined,
  };
  // A deleted or rotated app's tokens fail the app check anyway; dropping them spares a query per call.
  const dropApp = (appId: string) => {
    const grants = new Set<string>();
    for (const slot of state.tokens.values())
      if ('appId' in slot && slot.appId === appId) grants.add(slot.grantId);
    for (const grantId of grants) dropGrant(state, grantId);
  };
  state.ready = Promise.all([
    ctx.bus.listen(GRANTS_CHANNEL, (grantId) => dropGrant(state, grantId)),
    ctx.bus.listen(APPS_CHANNEL, dropApp),
  ]).then(() => undefined);
  ctx.bus.onReset(() => {
    state.epoch++;
    state.tokens.clear();
    state.byGrant.clear();
  });
  states.set(ctx, state);
  return state;
}

/** In the revoking transaction: every process forgets the grant's tokens at its commit. */
export async function announceGrantRevocation(trx: Executor, grantId: string): Promise<void> {
  await notify(trx, GRANTS_CHANNEL, grantId);
}

/** A grant's scopes changed (a new consent): its tokens are read again, with the new bound, everywhere. */
export const announceGrantChange = announceGrantRevocation;

/** After the commit, in the process that revoked: forget at once rather than when the notification lands. */
export function forgetGrant(ctx: Context, grantId: string): void {
  dropGrant(stateOf(ctx), grantId);
}

function remember(state: State, key: string, slot: Slot): void {
  if (state.tokens.size >= MAX_ENTRIES) {
    state.tokens.clear();
    state.byGrant.clear();
  }
  state.tokens.set(key, slot);
  if ('grantId' in slot) {
    let keys = state.byGrant.get(slot.grantId);
    if (!keys) state.byGrant.set(slot.grantId, (keys = new Set()));
    keys.add(key);
  }
}

async function lookup(ctx: Context, state: State, key: string, hash: Buffer): Promise<Slot> {
  await state.ready;
  const epoch = state.epoch;
  const row = await findAccessToken(ctx.db, hash);
  const slot: Slot = row
    ? {
        grantId: row.grant_id,
        appId: row.app_id,
        merchantId: row.merchant_id,
        mode: row.mode,
        scopes: intersect(splitScopes(row.scopes), splitScopes(row.grant_scopes)),
        createdAt: row.created_at.getTime(),
        expiresAt: row.expires_at.getTime(),
      }
    : { missUntil: ctx.clock.now() + MISS_TTL_MS };
  if (state.epoch === epoch) remember(state, key, slot);
  return slot;
}

function touch(ctx: Context, state: State, grantId: string, now: number): void {
  const last = state.touched.get(grantId) ?? 0;
  if (now - last < TOUCH_EVERY_MS) return;
  state.touched.set(grantId, now);
  state.pending.add(grantId);
  if (state.flushTimer) return;
  state.flushTimer = setTimeout(() => {
    state.flushTimer = undefined;
    const ids = [...state.pending];
    state.pending.clear();
    if (state.touched.size > MAX_ENTRIES) state.touched.clear();
    touchGrants(ctx.db, ids).catch(() => {}); // best effort: a lost last_used_at is not worth an error
  }, FLUSH_AFTER_MS);
  state.flushTimer.unref();
}

/** A grant was used outside a bearer check (a code exchange): recorded in the next batched write. */
export function noteGrantUse(ctx: Context, grantId: string): void {
  touch(ctx, stateOf(ctx), grantId, ctx.clock.now());
}

/** The `access_token` resolver of public auth, which has already checked the token's shape and checksum. */
export async function resolveAccessToken(ctx: Context, token: string): Promise<PublicPrincipal | undefined> {
  const state = stateOf(ctx);
  const hash = hashCredential(token);
  const key = hash.toString('base64');
  const now = ctx.clock.now();
  let slot = state.tokens.get(key);
  if (!slot || ('missUntil' in slot && slot.missUntil <= now)) {
    ctx.metrics.cacheMiss.access_token.inc();
    slot = await lookup(ctx, state, key, hash);
  } else ctx.metrics.cacheHit.access_token.inc();
  if ('missUntil' in slot || slot.expiresAt <= now) return undefined;
  const app = await appById(ctx, slot.appId);
  if (!app || slot.createdAt < app.tokensValidAfter) return undefined;
  touch(ctx, state, slot.grantId, now);
  return {
    merchantId: slot.merchantId,
    mode: slot.mode,
    kind: 'access_token',
    credentialId: slot.grantId,
    scopes: intersect(slot.scopes, app.allowedScopes),
    appId: slot.appId,
    issuedAt: slot.createdAt,
    expiresAt: slot.expiresAt,
  };
}
