// The retention module: how long the webhook rooms keep their history and in what order it goes (purge.ts):
// deliveries with their attempts, a day later their events, then webhooks deleted before the period, and the
// filtered counts of health after two days, each by its owner's statement (delivery, outbox, webhooks). It owns
// no table and holds no SQL of its own; its one loop runs where the loops run
// (docs/decisions/0202-retention-as-a-room.md).
import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import { purgeLoop } from './purge.ts';

export { purgeExpired } from './purge.ts';

export function createRetention(ctx: Context): Module {
  return { name: 'retention', background: [purgeLoop(ctx)] };
}
