// Apps as the token endpoint and the bearer check need them, cached per process: client authentication
// and access-token checks then cost no query once warm. Every change to an app (update, rotation, delete)
// notifies APPS_CHANNEL in its transaction, and every process drops the app on hearing it.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { notify } from '../../db/bus.ts';
import { hashCredential, sameHash, type Mode } from '../../lib/credentials.ts';
import { findAppByClientId, findAppById, type AppRow } from './oauth-apps.repository.ts';
import { splitScopes } from '../../lib/scopes.ts';

export const APPS_CHANNEL = 'svc_oauth_apps';

export interface ClientApp {
  id: string;
  merchantId: string;
  mode: Mode;
  clientId: string;
  name: string;
  redirectUris: readonly string[];
  allowedScopes: readonly string[];
  /** Codes and tokens created before this instant (ms) no longer verify. */
  tokensValidAfter: number;
  secretHash: Buffer;
  previousSecretHash: Buffer | null;
  previousSecretExpiresAt: number | null;
}

interface State {
  byClientId: Map<string, ClientApp>;
  byId: Map<string, ClientApp>;
  /** Bumped by every invalidation: a lookup that raced one does not cache what it read. */
  epoch: number;
  ready: Promise<void>;
}

const states = new WeakMap<Context, State>();
const MAX_ENTRIES = 10_000;

function stateOf(ctx: Context): State {
  let state = states.get(ctx);
  if (state) return state;
  const s: State = { byClientId: new Map(), byId: new Map(), epoch: 0, ready: Promise.resolve() };
  const drop = (appId: string) => {
    s.epoch++;
    const app = s.byId.get(appId);
    s.byId.delete(appId);
    if (app) s.byClientId.delete(app.clientId);
  };
  s.ready = ctx.bus.listen(APPS_CHANNEL, drop).then(() => undefined);
  ctx.bus.onReset(() => {
    s.epoch++;
    s.byId.clear();
    s.byClientId.clear();
  });
  states.set(ctx, s);
  state = s;
  return state;
}

export function toClientApp(row: AppRow): ClientApp {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
    clientId: row.client_id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    allowedScopes: splitScopes(row.allowed_scopes),
    tokensValidAfter: row.tokens_valid_after.getTime(),
    secretHash: row.secret_hash,
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt: row.previous_secret_expires_at?.getTime() ?? null,
  };
}

async function load(ctx: Context, read: () => Promise<AppRow | undefined>): Promise<ClientApp | undefined> {
  const state = stateOf(ctx);
  await state.ready;
  const epoch = state.epoch;
  const row = await read();
  if (!row) return undefined;
  const app = toClientApp(row);
  if (state.epoch === epoch) {
    if (state.byId.size >= MAX_ENTRIES) {
      state.byId.clear();
      state.byClientId.clear();
    }
    state.byId.set(app.id, app);
    state.byClientId.set(app.clientId, app);
  }
  return app;
}

export async function clientById(ctx: Context, clientId: string): Promise<ClientApp | undefined> {
  const cached = stateOf(ctx).byClientId.get(clientId);
  return cached ?? load(ctx, () => findAppByClientId(ctx.db, clientId));
}

export async function appById(ctx: Context, appId: string): Promise<ClientApp | undefined> {
  const cached = stateOf(ctx).byId.get(appId);
  return cached ?? load(ctx, () => findAppById(ctx.db, appId));
}

/** SHA-256 and a constant-time compare: client secrets carry 178 random bits, so a slow KDF buys nothing. */
export function secretMatches(app: ClientApp, secret: string, now = Date.now()): boolean {
  const hash = hashCredential(secret);
  if (sameHash(hash, app.secretHash)) return true;
  return (
    app.previousSecretHash !== null &&
    app.previousSecretExpiresAt !== null &&
    now < app.previousSecretExpiresAt &&
    sameHash(hash, app.previousSecretHash)
  );
}

/** Inside the transaction of the change: heard by every process at its commit. */
export async function announceAppChange(trx: Executor, appId: string): Promise<void> {
  await notify(trx, APPS_CHANNEL, appId);
}

/** Makes sure this process listens before it serves from the cache. */
export async function watchApps(ctx: Context): Promise<void> {
  await stateOf(ctx).ready;
}

/** The process that made a change forgets at once, without waiting for its own notification. */
export function forgetApp(ctx: Context, appId: string): void {
  const state = stateOf(ctx);
  state.epoch++;
  const app = state.byId.get(appId);
  state.byId.delete(appId);
  if (app) state.byClientId.delete(app.clientId);
}
