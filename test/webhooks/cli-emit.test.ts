// `npx svc events emit` against the test's database: the same ingestion as the internal route.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DB_KIND, MASTER_KEY, startTestService, type TestService } from '../support/service.ts';

let svc: TestService | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-emit-'));
beforeAll(async () => {
  if (DB_KIND === 'pg') svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function svcCommand(args: string[]) {
  const env: Record<string, string> = { PATH: process.env.PATH!, SVC_MASTER_KEY: MASTER_KEY };
  if (svc?.databaseUrl) env.DATABASE_URL = svc.databaseUrl;
  else env.SVC_DATA_DIR = dataDir;
  return spawnSync(process.execPath, ['bin/svc.js', ...args], { env, encoding: 'utf8', timeout: 60_000 });
}

it('emits an event, idempotently by id', () => {
  const created = svcCommand([
    'merchant',
    'create',
    '--name',
    'Emitter',
    '--email',
    `emit-${Date.now()}@example.com`,
    '--password',
    'long enough pw',
    '--json',
  ]);
  expect(created.status).toBe(0);
  const merchant = JSON.parse(created.stdout).merchant_id as string;
  const emit = (...extra: string[]) =>
    svcCommand([
      'events',
      'emit',
      '--merchant',
      merchant,
      '--mode',
      'test',
      '--type',
      'order.paid',
      '--json',
      ...extra,
    ]);
  const first = emit('--data', '{"id":"ord_1"}', '--id', 'evt_cli_1');
  expect(first.stderr).toBe('');
  expect(JSON.parse(first.stdout)).toEqual({ id: 'evt_cli_1', deliveries: 0, duplicate: false });
  const again = emit('--id', 'evt_cli_1');
  expect(JSON.parse(again.stdout)).toMatchObject({ id: 'evt_cli_1', duplicate: true });
  const bad = svcCommand(['events', 'emit', '--merchant', merchant, '--mode', 'test', '--type', 'nope.nope']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/validation_failed/);
}, 120_000); // each embedded run opens and migrates PGlite: several seconds apiece
