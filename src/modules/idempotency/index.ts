// Idempotency-Key (API.md section 1): the owner of idempotency_keys. It contributes the hooks that both
// interfaces install on their POST routes, and the loop that purges expired answers.
import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Module } from '../module.ts';
import { purgeExpiredIdempotencyKeys, registerIdempotency } from './idempotency.hooks.ts';

export { purgeExpiredIdempotencyKeys } from './idempotency.hooks.ts';

// An expired answer is already ignored (a new request with its key takes it over), so the purge only keeps
// the table from growing: every 10 minutes, as the session purge, and once at start.
const PURGE_EVERY_MS = 10 * 60 * 1000;

export function createIdempotency(ctx: Context): Module {
  const purge = new Loop({
    name: 'idempotency purge',
    everyMs: PURGE_EVERY_MS,
    runAtStart: true,
    run: () => purgeExpiredIdempotencyKeys(ctx).then(() => undefined),
    onError: warnOnFailure(ctx.log),
  });
  return { name: 'idempotency', interfaceHooks: registerIdempotency, background: [purge] };
}
