// The token endpoint's common cases share statements (src/lib/batcher.ts): while the statements in flight
// run, new requests queue, and the next free slot takes up to MAX_BATCH of them in one statement. An idle
// service sends each request at once (no added latency); a busy one pays the per-statement and
// per-transaction cost once per batch instead of once per request. Two batchers: refresh rotations, and
// first uses of codes. The same statement serves one item or many, on PGlite and on PostgreSQL. A failed
// statement fails its batch's requests (500), logged and counted (`svc_batch_failures_total{batch=...}`):
// never retried one by one, which would hide a broken statement.
import type { Context } from '../../context.ts';
import { Batcher } from '../../lib/batcher.ts';
import type { Prepared } from '../../db/prepared.ts';
import {
  issueFromCodes,
  rotateRefresh,
  type IssueInput,
  type Issued,
  type RotateInput,
  type Rotated,
} from '../oauth/index.ts';

// Two cores: four statements in flight keep PostgreSQL busy while Node prepares the next batch. PGlite
// serves one statement at a time: a second in flight would only wait in its driver, and grow no batch.
const MAX_IN_FLIGHT = 4;
const MAX_BATCH = 64;

export type RefreshBatcher = Batcher<RotateInput, Rotated | undefined>;
export type ExchangeBatcher = Batcher<IssueInput, Issued | undefined>;

/** Statements on the module's pool (named prepared statements) if there is one, else on the service's database. */
function batcher<I extends { hash: Buffer }, O>(
  ctx: Context,
  name: 'refresh' | 'exchange',
  what: string,
  write: (items: readonly I[]) => Promise<readonly O[]>,
): Batcher<I, O> {
  const metrics = ctx.metrics.batch(name);
  return new Batcher({
    maxBatch: MAX_BATCH,
    concurrency: ctx.config.databaseUrl ? MAX_IN_FLIGHT : 1,
    // The same token or code twice (two racing requests) goes to the next batch, where it meets the first's
    // result: the second use of a code, or the rotated token.
    keyOf: (item) => item.hash.toString('base64'),
    write: (items) => {
      metrics.size.observe(items.length);
      return write(items);
    },
    onError: (err, size) => {
      metrics.failures.inc();
      ctx.log.error({ err, size }, `${what} failed: every request of the batch answered 500`);
    },
  });
}

export function refreshBatcher(ctx: Context, on: Prepared): RefreshBatcher {
  return batcher(ctx, 'refresh', 'refresh rotation', (items: readonly RotateInput[]) =>
    rotateRefresh(on, items),
  );
}

export function exchangeBatcher(ctx: Context, on: Prepared): ExchangeBatcher {
  return batcher(ctx, 'exchange', 'code exchange', (items: readonly IssueInput[]) =>
    issueFromCodes(on, items),
  );
}
