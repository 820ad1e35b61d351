// Concurrent refreshes share statements: while up to MAX_IN_FLIGHT rotation statements run, new requests
// queue, and the next free slot takes up to MAX_BATCH of them in one statement. An idle service sends each
// refresh at once (no added latency); a busy one pays PostgreSQL's per-statement and per-transaction cost
// once per batch instead of once per refresh. PostgreSQL only (PGlite runs one statement at a time anyway).
import type pg from 'pg';
import type { Context } from '../../context.ts';
import { rotateRefresh, rotateRefreshBatch, type RotateInput, type Rotated } from './oauth.repository.ts';

// Two cores: four statements in flight keep PostgreSQL busy while Node prepares the next batch.
const MAX_IN_FLIGHT = 4;
const MAX_BATCH = 64;

interface Pending {
  input: RotateInput;
  key: string;
  resolve: (rotated: Rotated | undefined) => void;
  reject: (err: unknown) => void;
}

interface State {
  queue: Pending[];
  inFlight: number;
}

const states = new WeakMap<Context, State>();

function take(queue: Pending[]): Pending[] {
  const batch: Pending[] = [];
  const keys = new Set<string>();
  const rest: Pending[] = [];
  for (const p of queue) {
    // The same token twice (two racing refreshes) goes to the next batch, where it meets the rotated row.
    if (batch.length < MAX_BATCH && !keys.has(p.key)) {
      batch.push(p);
      keys.add(p.key);
    } else rest.push(p);
  }
  queue.length = 0;
  queue.push(...rest);
  return batch;
}

async function run(pool: pg.Pool, batch: Pending[]): Promise<void> {
  if (batch.length === 1) {
    const only = batch[0]!;
    only.resolve(await rotateRefresh(undefined, pool, only.input));
    return;
  }
  try {
    const rotated = await rotateRefreshBatch(
      pool,
      batch.map((p) => p.input),
    );
    for (const p of batch) {
      const row = rotated.get(p.key);
      p.resolve(row && row.access_hash.equals(p.input.accessHash) ? row : undefined);
    }
  } catch {
    // One bad item must not fail the others: each is retried alone.
    await Promise.all(batch.map((p) => rotateRefresh(undefined, pool, p.input).then(p.resolve, p.reject)));
  }
}

function pump(state: State, pool: pg.Pool): void {
  while (state.inFlight < MAX_IN_FLIGHT && state.queue.length > 0) {
    const batch = take(state.queue);
    state.inFlight++;
    run(pool, batch)
      .catch((err: unknown) => batch.forEach((p) => p.reject(err)))
      .finally(() => {
        state.inFlight--;
        pump(state, pool);
      });
  }
}

export function rotateRefreshBatched(
  ctx: Context,
  pool: pg.Pool,
  input: RotateInput,
): Promise<Rotated | undefined> {
  let state = states.get(ctx);
  if (!state) states.set(ctx, (state = { queue: [], inFlight: 0 }));
  const s = state;
  return new Promise((resolve, reject) => {
    s.queue.push({ input, key: input.hash.toString('base64'), resolve, reject });
    pump(s, pool);
  });
}
