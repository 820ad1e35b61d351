import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Module } from '../module.ts';
import { cartRoutes } from './carts.routes.ts';
import { sweepAbandonedCarts } from './carts.service.ts';

export { createCart, presentCart, sweepAbandonedCarts } from './carts.service.ts';

// The contract: a sweep at least every min(60, abandonAfter / 2) seconds, so a cart is abandoned at most
// that late.
function sweepEveryMs(ctx: Context): number {
  return Math.max(100, Math.min(60, ctx.config.cartAbandonAfter / 2) * 1000);
}

export function createCarts(ctx: Context): Module {
  const sweep = new Loop({
    name: 'cart sweep',
    everyMs: sweepEveryMs(ctx),
    runAtStart: true,
    run: () => sweepAbandonedCarts(ctx).then(() => undefined),
    onError: warnOnFailure(ctx.log),
  });
  return { name: 'carts', publicRoutes: cartRoutes, background: [sweep] };
}
