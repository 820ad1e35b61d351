import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Module } from '../module.ts';
import { createKeyState, flushKeyUses, verifyKey, type KeyState } from './api-keys.cache.ts';
import { apiKeyRoutes } from './api-keys.routes.ts';

export { flushKeyUses, verifyKey, type KeyState } from './api-keys.cache.ts';
export { createKey, revokeKey, rotateKey, statusOf, type KeyStatus } from './api-keys.service.ts';
export { newestPublishableKey } from './api-keys.repository.ts';

// Last-use times reach the database every 5 s: a dashboard showing "last used" to the minute needs no more,
// and one batched UPDATE replaces a write per request on the hot path.
const FLUSH_EVERY_MS = 5_000;

export interface ApiKeysModule extends Module {
  /** The verification cache and the last-use buffer of this process. */
  readonly keys: KeyState;
}

export function createApiKeys(ctx: Context): ApiKeysModule {
  const keys = createKeyState(ctx.bus);
  const flush = new Loop({
    name: 'key last-use flush',
    everyMs: FLUSH_EVERY_MS,
    run: () => flushKeyUses(keys, ctx),
    onError: warnOnFailure(ctx.log),
  });
  return {
    name: 'api-keys',
    keys,
    merchantRoutes: apiKeyRoutes(keys),
    credentials: {
      secret_key: (c, token) => verifyKey(keys, c, token, 'secret_key'),
      publishable_key: (c, token) => verifyKey(keys, c, token, 'publishable_key'),
    },
    background: [flush],
    // Last uses gathered since the loop's last run reach the database before the process ends.
    stop: () => flushKeyUses(keys, ctx),
  };
}
