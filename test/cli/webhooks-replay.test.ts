// `svc webhooks replay` and `svc attempts` against running services (API.md section 12.2): the preview's count,
// a replay of what failed run by the service's own loop to its end, a progress bar that follows a replay batch
// by batch, Ctrl-C cancelling a running replay, and the attempts table with its filters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/outbox/index.ts';
import { advanceReplays } from '../../src/modules/replays/index.ts';
import { mergeData, sampleData } from '../../src/modules/events/index.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit } from '../webhooks/helpers.ts';
import { runCli, startCli, type Cli } from './cli-processes.ts';

// `live` runs its loops (the replay loop among them); on `idle` nothing runs until the test advances it.
let live: TestService;
let idle: TestService;
let rx: Receiver;
let m: TestMerchant;
let quiet: TestMerchant;
const homes = {
  live: mkdtempSync(join(tmpdir(), 'svc-cli-replay-')),
  idle: mkdtempSync(join(tmpdir(), 'svc-cli-replay-')),
};
const envOf = (home: string, s: () => TestService) => () => ({
  XDG_CONFIG_HOME: home,
  HOME: home,
  SVC_API_URL: s().url,
});
const liveEnv = envOf(homes.live, () => live);
const idleEnv = envOf(homes.idle, () => idle);
const children: Cli[] = [];

beforeAll(async () => {
  const env = { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '3600' };
  [live, idle, rx] = await Promise.all([
    startTestService({ listen: true, workers: true, env }),
    startTestService({ listen: true, env }),
    startReceiver((r) => ({ status: r.path === '/broken' ? 500 : 200 })),
  ]);
  m = await signupMerchant(live.app, 'Replay CLI');
  quiet = await signupMerchant(idle.app, 'Replay CLI idle');
  for (const [who, env] of [
    [m, liveEnv],
    [quiet, idleEnv],
  ] as const) {
    const login = await runCli(['login', '--email', who.email], env(), `${who.password}\n`);
    expect(login.status, login.stderr).toBe(0);
  }
}, 180_000);
afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await live?.close();
  await idle?.close();
  await rx?.close();
  for (const home of Object.values(homes)) rmSync(home, { recursive: true, force: true });
});

const idOf = (r: { headers: Record<string, unknown> }) => String(r.headers['webhook-id']);

/** `n` order.created events of the merchant on `idle`, recorded in one statement, as a backlog to replay. */
async function recordMany(n: number) {
  const events = Array.from({ length: n }, (_, i) => ({
    merchantId: quiet.merchantId,
    mode: 'test' as const,
    type: 'order.created',
    data: mergeData(sampleData('order.created'), { id: `ord_cli_${i}` }),
  }));
  return idle.ctx.db.transaction().execute((trx) => emitEvents(trx, events, new Date()));
}

async function replayOf(s: TestService, who: TestMerchant, webhookId: string, id: string) {
  const res = await s.app.inject({ url: `${base}/${webhookId}/replays/${id}`, headers: who.auth });
  return res.json<{ data: { status: string; queued: number; skipped: number; matched: number } }>().data;
}

describe('on a service that runs its loops', () => {
  let hookId: string;
  let failedIds: string[];
  beforeAll(async () => {
    hookId = (await createWebhook(live, m, `${rx.url}/broken`, ['order.created', 'order.paid'])).id;
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await emit(live, m, 'order.created', { id: `ord_c${i}` }));
    for (let i = 0; i < 2; i++) await emit(live, m, 'order.paid', { id: `ord_p${i}` });
    failedIds = created.map((e) => e.id);
    // each tried once and refused (500), its retry an hour away: failed, with a retry to come
    await rx.waitFor(5, 20_000, (r) => r.path === '/broken');
    await eventually(
      async () => (await deliveries(live, m, hookId)).items.every((d) => d.attempt_count === 1),
      { what: 'the five first attempts recorded' },
    );
  }, 60_000);

  it('previews the count of what failed, by type', async () => {
    const all = await runCli(['webhooks', 'replay', hookId, '--since', '10m', '--preview'], liveEnv());
    expect(all.stderr).toBe('');
    expect(all.stdout).toBe('5 events match.\n');
    expect(all.status).toBe(0);
    const paid = await runCli(
      ['webhooks', 'replay', hookId, '--since', '10m', '--type', 'order.paid', '--preview', '--json'],
      liveEnv(),
    );
    expect(JSON.parse(paid.stdout)).toEqual({ matched: 2 });
  });

  it('starts a replay, draws its progress until done, and the endpoint gets each event again', async () => {
    const before = rx.received.length;
    const run = await runCli(
      ['webhooks', 'replay', hookId, '--since', '10m', '--type', 'order.created'],
      liveEnv(),
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const id = /^Replay (rpl_\S+) started: 3 events matched\.$/m.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBeDefined();
    expect(run.stdout).toContain(`[${'#'.repeat(30)}] 100%  3 of 3 walked: 3 queued, 0 skipped\n`);
    expect(run.stdout).toMatch(new RegExp(`Replay ${id!} done: 3 queued, 0 skipped of 3\\.\\n$`));
    expect(await replayOf(live, m, hookId, id!)).toMatchObject({ status: 'done', queued: 3, matched: 3 });
    const again = await rx.waitFor(before + 3, 20_000);
    expect(new Set(again.slice(before).map(idOf))).toEqual(new Set(failedIds));
  });

  it('refuses what the service refuses, naming it', async () => {
    const bad = await runCli(
      ['webhooks', 'replay', hookId, '--since', '10m', '--type', 'order.nope'],
      liveEnv(),
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('validation_failed');
    expect(bad.stderr).toContain('event_types[0]');
    const noSince = await runCli(['webhooks', 'replay', hookId], liveEnv());
    expect(noSince.status).toBe(1);
    expect(noSince.stderr).toContain('--since is required');
  });

  it('lists the attempts as a table, filtered', async () => {
    const paid = await runCli(['attempts', '--webhook', hookId, '--type', 'order.paid'], liveEnv());
    expect(paid.stderr).toBe('');
    const lines = paid.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+EVENT\s+#\s+OUTCOME\s+STATUS\s+DURATION\s+WEBHOOK\s+STORE\s+ID$/);
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(1))
      expect(line).toMatch(
        new RegExp(`order\\.paid\\s+1\\s+failed\\s+500\\s+\\d+ ms\\s+${hookId}\\s+-\\s+att_`),
      );
    // the five first attempts and the replay's three, every one refused with a 500
    await eventually(
      async () => {
        const now = await runCli(['attempts', '--status-class', '5xx', '--json'], liveEnv());
        return (JSON.parse(now.stdout) as { items: unknown[] }).items.length === 8;
      },
      { what: 'eight attempts answered 5xx' },
    );
    const failed = await runCli(['attempts', '--outcome', 'failed', '--json'], liveEnv());
    const page = JSON.parse(failed.stdout) as { items: { outcome: string; response_status: number }[] };
    expect(page.items).toHaveLength(8);
    expect(page.items.every((a) => a.outcome === 'failed' && a.response_status === 500)).toBe(true);
    const none = await runCli(['attempts', '--status-class', '2xx'], liveEnv());
    expect(none.stdout).toBe('No attempts match.\n');
    const wrong = await runCli(['attempts', '--status-class', '6xx'], liveEnv());
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('validation_failed');
  });
});

describe('on a service whose replays the test advances', () => {
  it('follows the replay batch by batch with its bar, to the end', async () => {
    const events = await recordMany(250);
    const hook = await createWebhook(idle, quiet, `${rx.url}/batches`);
    const cli = startCli(['webhooks', 'replay', hook.id, '--since', '5m', '--status', 'all'], idleEnv());
    children.push(cli);
    const id = (await cli.waitFor(/^Replay (rpl_\S+) started: 250 events matched\.$/m))[1]!;
    await cli.waitFor(/^\[\.{30}\]\s+0%\s+0 of 250 walked: 0 queued, 0 skipped$/m);
    expect(await advanceReplays(idle.ctx, 100)).toMatchObject({ id, status: 'running', queued: 100 });
    await cli.waitFor(/^\[#{12}\.{18}\]\s+40%\s+100 of 250 walked: 100 queued, 0 skipped$/m);
    expect(await advanceReplays(idle.ctx, 1000)).toMatchObject({ id, status: 'done' });
    await cli.waitFor(/^Replay \S+ done: 250 queued, 0 skipped of 250\.$/m);
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toBe('');
    // one delivery of each event, made by the replay
    const made = await idle.ctx.db
      .selectFrom('deliveries')
      .select('event_id')
      .where('webhook_id', '=', hook.id)
      .execute();
    expect(made.map((d) => d.event_id).toSorted()).toEqual(events.map((e) => e.id).toSorted());
  });

  it('cancels the replay on Ctrl-C, leaving queued what it queued', async () => {
    await recordMany(20);
    const hook = await createWebhook(idle, quiet, `${rx.url}/interrupted`);
    const cli = startCli(['webhooks', 'replay', hook.id, '--since', '5m', '--status', 'all'], idleEnv());
    children.push(cli);
    const id = (await cli.waitFor(/^Replay (rpl_\S+) started: (\d+) events matched\.$/m))[1]!;
    await cli.waitFor(/0 queued, 0 skipped$/m);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(130);
    expect(cli.stdout()).toMatch(new RegExp(`Replay ${id} cancelled: 0 queued, 0 skipped of \\d+\\.\\n$`));
    expect(await replayOf(idle, quiet, hook.id, id)).toMatchObject({ status: 'cancelled', queued: 0 });
    expect(await advanceReplays(idle.ctx)).toBeUndefined();
  });
});
