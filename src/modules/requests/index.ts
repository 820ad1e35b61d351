// Request logs (API.md section 11.6): the owner of request_logs and request_log_counts. It contributes the
// recorder's hooks on every public route, the merchant routes that read the log, and the loop that makes
// and drops its day partitions. Its state: the recorder's batcher, and on PostgreSQL a connection of its own
// for COPY, so that writing the log never waits for, or holds, a connection of the requests it records.
import type { Context } from '../../context.ts';
import { createPool } from '../../db/pg-pool.ts';
import type { Module } from '../module.ts';
import { recordPublicCalls, requestBatch, type RefusedTokenOwner, type RequestBatch } from './recorder.ts';
import { retentionLoop } from './retention.ts';
import { requestRoutes } from './requests.routes.ts';

export { keepDays } from './retention.ts';
export { CAPACITY, FLUSH_EVERY_MS, type RefusedTokenOwner } from './recorder.ts';
export type { RequestEntry } from './request-entry.ts';

export interface Requests extends Module {
  /** The recorder's buffer: tests and the bench flush it, or offer entries to it directly. */
  readonly batch: RequestBatch;
  stop(): Promise<void>;
}

export interface RequestsDeps {
  /** Whose app a refused access token belongs to: its call is recorded for the app's owner. */
  readonly refusedTokenOwner?: RefusedTokenOwner;
}

export function createRequests(ctx: Context, deps: RequestsDeps = {}): Requests {
  const pool = ctx.config.databaseUrl
    ? createPool(ctx.config.databaseUrl, { max: 1, allowExitOnIdle: true })
    : undefined;
  const batch = requestBatch(ctx, pool ? { pool } : { db: ctx.db });
  return {
    name: 'requests',
    ...(ctx.config.requestLog
      ? { appHooks: (app) => recordPublicCalls(app, ctx, batch, deps.refusedTokenOwner) }
      : {}),
    merchantRoutes: requestRoutes,
    background: [retentionLoop(ctx)],
    batch,
    // After HTTP drained: what the buffer holds is written, then the connection closes.
    async stop() {
      try {
        await batch.flush();
      } finally {
        await pool?.end();
      }
    },
  };
}
