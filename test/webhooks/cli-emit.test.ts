// `npx svc events emit` against the test's database: the same ingestion as the internal route.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { runSvc } from '../support/processes.ts';
import { sampleData } from '../../src/modules/events/index.ts';

let svc: TestService | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-emit-'));
beforeAll(async () => {
  if (DB_KIND === 'pg') svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('emits an event, idempotently by id', () => {
  const created = runSvc(
    [
      'merchant',
      'create',
      '--name',
      'Emitter',
      '--email',
      `emit-${Date.now()}@example.com`,
      '--password',
      'long enough pw',
      '--json',
    ],
    { databaseUrl: svc?.databaseUrl, dataDir },
  );
  expect(created.status).toBe(0);
  const merchant = JSON.parse(created.stdout).merchant_id as string;
  const emit = (...extra: string[]) =>
    runSvc(
      [
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
      ],
      { databaseUrl: svc?.databaseUrl, dataDir },
    );
  // A valid order.paid: the data is checked against the schema of its type.
  const data = JSON.stringify({ ...sampleData('order.paid'), id: 'ord_1' });
  const first = emit('--data', data, '--id', 'evt_cli_1');
  expect(first.stderr).toBe('');
  expect(JSON.parse(first.stdout)).toEqual({ id: 'evt_cli_1', deliveries: 0, duplicate: false });
  const again = emit('--data', data, '--id', 'evt_cli_1');
  expect(JSON.parse(again.stdout)).toMatchObject({ id: 'evt_cli_1', duplicate: true });
  const bad = runSvc(['events', 'emit', '--merchant', merchant, '--mode', 'test', '--type', 'nope.nope'], {
    databaseUrl: svc?.databaseUrl,
    dataDir,
  });
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/validation_failed/);
}, 120_000); // each embedded run opens and migrates PGlite: several seconds apiece
