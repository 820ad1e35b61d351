// Concurrent refreshes share statements (src/lib/batcher.ts): while the rotation statements in flight run,
// new requests queue, and the next free slot takes up to MAX_BATCH of them in one statement. An idle service
// sends each refresh at once (no added latency); a busy one pays the per-statement and per-transaction cost
// once per batch instead of once per refresh. The same statement serves one token or many, on PGlite and on
// PostgreSQL. A failed statement fails its batch's refreshes (500), logged and counted
// (`svc_batch_failures_total{batch="refresh"}`): never retried one by one, which would hide a broken statement.
import type { Context } from '../../context.ts';
import { Batcher } from '../../lib/batcher.ts';
import { rotateRefresh, type HotOn, type RotateInput, type Rotated } from './oauth.repository.ts';

// Two cores: four statements in flight keep PostgreSQL busy while Node prepares the next batch. PGlite
// serves one statement at a time: a second in flight would only wait in its driver, and grow no batch.
const MAX_IN_FLIGHT = 4;
const MAX_BATCH = 64;

export type RefreshBatcher = Batcher<RotateInput, Rotated | undefined>;

/** Rotations on the module's pool (named prepared statements) when there is one, on the service's database otherwise. */
export function refreshBatcher(ctx: Context, on: HotOn): RefreshBatcher {
  const metrics = ctx.metrics.batch('refresh');
  return new Batcher({
    maxBatch: MAX_BATCH,
    concurrency: ctx.config.databaseUrl ? MAX_IN_FLIGHT : 1,
    // The same token twice (two racing refreshes) goes to the next batch, where it meets the rotated row.
    keyOf: (input) => input.hash.toString('base64'),
    write: (items) => {
      metrics.size.observe(items.length);
      return rotateRefresh(on, items);
    },
    onError: (err, size) => {
      metrics.failures.inc();
      ctx.log.error({ err, size }, 'refresh rotation failed: every refresh of the batch answered 500');
    },
  });
}
