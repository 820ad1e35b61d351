import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import { createKeyState, verifyKey, type KeyState } from './api-keys.cache.ts';
import { apiKeyRoutes } from './api-keys.routes.ts';

export { verifyKey, type KeyState } from './api-keys.cache.ts';
export { createKey, revokeKey, rotateKey, statusOf, type KeyStatus } from './api-keys.service.ts';
export { newestPublishableKey } from './api-keys.repository.ts';
export { keyPairsById } from './exposure.repository.ts';

export interface ApiKeysModule extends Module {
  /** The verification cache and the last-use buffer of this process. */
  readonly keys: KeyState;
}

export function createApiKeys(ctx: Context): ApiKeysModule {
  const keys = createKeyState(ctx);
  return {
    name: 'api-keys',
    keys,
    merchantRoutes: apiKeyRoutes(keys),
    credentials: {
      secret_key: (c, token) => verifyKey(keys, c, token, 'secret_key'),
      publishable_key: (c, token) => verifyKey(keys, c, token, 'publishable_key'),
    },
    // Last uses gathered since the last write reach the database before the process ends.
    stop: () => keys.uses.stop(),
  };
}
