// The pool of the rotation statement plans each execution with its values: a generic plan fixed while
// oauth_tokens was small kept a sequential scan of the whole table for the connection's life.
import { afterAll, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { hotPool } from '../../src/modules/oauth/oauth.pool.ts';

let svc: TestService | undefined;
afterAll(async () => svc?.close());

it.skipIf(DB_KIND === 'pglite')('plans every execution of the rotation with its values', async () => {
  svc = await startTestService();
  const pool = hotPool(svc.ctx.config)!;
  try {
    const { rows } = await pool.query<{ plan_cache_mode: string }>('show plan_cache_mode');
    expect(rows[0]!.plan_cache_mode).toBe('force_custom_plan');
  } finally {
    await pool.end();
  }
});
