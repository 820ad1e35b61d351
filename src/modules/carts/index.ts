import type { Context } from '../../context.ts';
import { purgeExpiredIdempotencyKeys } from '../../http/idempotency.ts';
import type { Module } from '../registry.ts';
import { cartRoutes } from './carts.routes.ts';
import { sweepAbandonedCarts } from './carts.service.ts';

export { createCart, presentCart, sweepAbandonedCarts } from './carts.service.ts';

// The contract: a sweep at least every min(60, abandonAfter / 2) seconds, so a cart is abandoned at most
// that late. Stored idempotent answers (24 h) are purged by the same loop: no other loop needs them.
function sweepEveryMs(ctx: Context): number {
  return Math.max(100, Math.min(60, ctx.config.cartAbandonAfter / 2) * 1000);
}

async function start(ctx: Context): Promise<() => Promise<void>> {
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= (async () => {
      try {
        await sweepAbandonedCarts(ctx);
        await purgeExpiredIdempotencyKeys(ctx);
      } catch (err) {
        ctx.log.warn({ err }, 'cart sweep failed; the next one retries');
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(sweep, sweepEveryMs(ctx));
  timer.unref();
  sweep();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

export const cartsModule: Module = { name: 'carts', publicRoutes: cartRoutes, start };
