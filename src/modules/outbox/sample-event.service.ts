// The data of the sample events a merchant makes happen (a triggered event, a webhook's test event): the
// example of the type from the merchant's own store, at the context's time (events/event-samples.ts).
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { Scope } from '../../lib/scope.ts';
import { sampleFor } from '../events/index.ts';
import { firstStore } from '../merchants/index.ts';
import { latestDataAbout } from './events.repository.ts';

/** The data of a sample event of `type` from the merchant's own store, at the context's time. */
export async function sampleEvent(
  ctx: Context,
  db: Executor,
  scope: Scope,
  type: string,
  object?: string,
): Promise<Record<string, unknown>> {
  const store = await firstStore(db, scope.merchantId);
  // Every merchant has a store from sign-up on (API.md section 2): anything else is a bug.
  if (!store) throw new Error(`merchant ${scope.merchantId} has no store`);
  const previous = object === undefined ? undefined : await latestDataAbout(db, scope, object);
  return sampleFor(type, { storeId: store.id, now: ctx.clock.now(), object, previous });
}
