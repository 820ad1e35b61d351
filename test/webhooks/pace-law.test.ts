// The adaptive pace's law (record-outcomes.repository.ts; API.md section 11.4), step by step on both
// databases: outcomes recorded at times the test sets, as the worker records them, and the pace each leaves.
// The law at a real receiver is tested in pace.test.ts and measured in the bench.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { createWebhook, emit, INTERNAL_TOKEN } from './helpers.ts';
import {
  PACE_DECREASE,
  PACE_GROWTH,
  recordOutcomes,
  slows,
  type OutcomeRow,
} from '../../src/modules/delivery/record-outcomes.repository.ts';
import { newId } from '../../src/lib/ids.ts';

const WORKER = 'law-test';
let svc: TestService;
let m: TestMerchant;
let webhookId: string;
/** Deliveries leased to WORKER, not yet given an outcome. */
let leased: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  m = await signupMerchant(svc.app);
  webhookId = (await createWebhook(svc, m, 'https://receiver.example/law', ['product.created'])).id;
  for (let i = 0; i < 220; i++) await emit(svc, m, 'product.created', { id: `p_${i}` });
  const { rows } = await sql<{ id: string }>`
    update deliveries set locked_by = ${WORKER}, locked_until = now() + interval '1 hour'
    where webhook_id = ${webhookId} returning id`.execute(svc.ctx.db);
  leased = rows.map((r) => r.id);
  expect(leased).toHaveLength(220);
});
afterAll(async () => {
  await svc?.close();
});

const t0 = Date.parse('2030-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

/** Records `oks` successes and `refused` answers 429, the refused ones started at `startedMs`, at `nowMs`. */
async function record(nowMs: number, oks: number, refused = 0, startedMs = nowMs - 10) {
  const outcome = (ok: boolean): OutcomeRow => ({
    id: leased.shift()!,
    webhook_id: webhookId,
    attempt_id: newId('att', t0 + (ok ? nowMs - 10 : startedMs)),
    app_id: null,
    outcome: ok ? 'succeeded' : 'failed',
    test: false,
    number: 1,
    attempted: true,
    started_at: at(ok ? nowMs - 10 : startedMs),
    duration_ms: 2,
    response_status: ok ? 200 : 429,
    response_body: null,
    request_headers: null,
    response_headers: null,
    error: null,
    status: ok ? 'succeeded' : 'pending',
    step: ok ? 0 : 1,
    next_attempt_at: ok ? null : at(nowMs + 1000),
    ok,
  });
  const rows = [
    ...Array.from({ length: oks }, () => outcome(true)),
    ...Array.from({ length: refused }, () => outcome(false)),
  ];
  await recordOutcomes({ db: svc.ctx.db }, WORKER, rows, new Date(t0 + nowMs));
  const { rows: paces } = await sql<{ pace: number | null; pace_reason: string | null }>`
    select pace, pace_reason from webhook_paces where webhook_id = ${webhookId}`.execute(svc.ctx.db);
  return paces[0];
}

it('decreases from what the endpoint took, refines in the second after, then grows, and never takes back a decrease', async () => {
  // A burst: the first refusal is recorded with 40 of the burst's successes.
  expect(await record(20, 40, 1)).toEqual({ pace: expect.closeTo(PACE_DECREASE * 40), pace_reason: '429' });
  // The rest of the burst's successes and refusals: the refusals started before the second after the
  // decrease ended and slow nothing; the successes refine the pace to what the second took.
  expect((await record(100, 60, 5, 50))!.pace).toBeCloseTo(PACE_DECREASE * 100);
  // a refusal of an attempt that started 980 ms after the decrease: still its window
  expect((await record(1010, 0, 1, 1000))!.pace).toBeCloseTo(PACE_DECREASE * 100);
  // After the second: successes grow it by 2% a second since its last change.
  const grown = PACE_DECREASE * 100 * (1 + PACE_GROWTH * 2.92);
  expect((await record(3020, 100))!.pace).toBeCloseTo(grown);
  // A refusal that started 1 s or more after the decrease decreases from the least of the pace and the
  // successes of the last second (100).
  expect(await record(3500, 0, 1, 3400)).toEqual({
    pace: expect.closeTo(PACE_DECREASE * 100),
    pace_reason: '429',
  });
  // In the second after it, 110 successes counted refine it at most to the decrease from where it started
  // (the pace then), never higher.
  expect((await record(3700, 10))!.pace).toBeCloseTo(PACE_DECREASE * grown);
});

it('leaves the pace steps out of a batch only when none of its outcomes asks for a lower pace', () => {
  // the worker's choice (`slows`), by the rule of the statement's own `real.slowed`
  expect(slows({ response_status: 429, error: null })).toBe(true);
  expect(slows({ response_status: 503, error: null })).toBe(true);
  expect(slows({ response_status: null, error: 'timeout: no answer within 2 s' })).toBe(true);
  expect(slows({ response_status: 500, error: null })).toBe(false);
  expect(slows({ response_status: null, error: 'ECONNREFUSED: connection refused' })).toBe(false);
});
