import type { Context } from '../../context.ts';
import { registerCredentialResolver } from '../../http/public-auth.ts';
import type { Module } from '../registry.ts';
import { flushKeyUses, verifyKey } from './api-keys.cache.ts';
import { apiKeyRoutes } from './api-keys.routes.ts';

export { flushKeyUses, verifyKey } from './api-keys.cache.ts';
export { createKey, revokeKey, rotateKey, statusOf, type KeyStatus } from './api-keys.service.ts';

registerCredentialResolver('secret_key', (ctx, token) => verifyKey(ctx, token, 'secret_key'));
registerCredentialResolver('publishable_key', (ctx, token) => verifyKey(ctx, token, 'publishable_key'));

// Last-use times reach the database every 5 s: a dashboard showing "last used" to the minute needs no more,
// and one batched UPDATE replaces a write per request on the hot path.
const FLUSH_EVERY_MS = 5_000;

async function start(ctx: Context): Promise<() => Promise<void>> {
  const flush = () =>
    flushKeyUses(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'could not record key last use'));
  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await flush();
  };
}

export const apiKeysModule: Module = { name: 'api-keys', merchantRoutes: apiKeyRoutes, start };
