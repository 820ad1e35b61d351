// The Logs tab and the audit chain in a real browser: each entry's sequence and hashes, the chain's state
// ("verified up to entry N"), an export that comes with its checkpoint and passes `svc audit verify`, and a
// row edited directly in the database shown as a broken chain. Any console error fails the test.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { runCli } from '../cli/cli-processes.ts';
import { launchBrowser, seriousViolations, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let merchant: TestMerchant;
let s: Session;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-e2e-audit-'));
  [svc, browser] = await Promise.all([startTestService({ listen: true, workers: true }), launchBrowser()]);
  merchant = await signupMerchant(svc.app, 'Ledger Lane');
  for (const name of ['Till', 'Warehouse', 'Reports']) {
    await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/api-keys',
      headers: merchant.auth,
      payload: { name },
    });
  }
  s = await browser.open();
  await signInWith(s.page, svc.url, merchant);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

const chainState = () => s.page.locator('.chain-state');

describe('the Logs tab', () => {
  it('shows each entry in the chain, the chain verified, and exports with a checkpoint that verifies', async () => {
    const { page } = s;
    await openTab(page, 'Logs');
    // the sealer loop runs in this service: the three entries are chained within seconds
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await settled(page);
        return chainState().textContent();
      })
      .toMatch(/Chain verified up to entry #3 at/);
    const rows = page.locator('table.table-logs tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.first().locator('td[data-label="#"]').textContent()).toBe('3');

    await page
      .getByRole('button', { name: /Show details of api_key.created/ })
      .first()
      .click();
    const details = page.locator('tr.row-detail');
    await details.getByText('Previous hash').waitFor();
    expect(await details.locator('dd').nth(1).textContent()).toMatch(/^[0-9a-f]{64}$/);

    const downloads: { name: string; path: string }[] = [];
    page.on('download', (d) => {
      void d.path().then((path) => downloads.push({ name: d.suggestedFilename(), path }));
    });
    await page.getByRole('button', { name: 'Export JSON Lines' }).click();
    await expect.poll(() => downloads.length).toBe(2);
    const exportFile = downloads.find((d) => d.name.endsWith('.jsonl'))!;
    const checkpointFile = downloads.find((d) => d.name.endsWith('.checkpoint.json'))!;
    expect(exportFile.name).toMatch(/^svc-logs-test-\d{4}-\d\d-\d\d\.jsonl$/);
    expect(checkpointFile.name).toBe(exportFile.name.replace('.jsonl', '.checkpoint.json'));
    // the CLI reads them under their own names, as an auditor would keep them
    copyFileSync(exportFile.path, join(dir, exportFile.name));
    copyFileSync(checkpointFile.path, join(dir, checkpointFile.name));
    const verified = await runCli(
      [
        'audit',
        'verify',
        join(dir, exportFile.name),
        '--checkpoint',
        join(dir, checkpointFile.name),
        '--keys',
        `${svc.url}/.well-known/svc-audit-keys`,
      ],
      {},
    );
    expect(verified.stderr).toBe('');
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/^4 entries verified, sequence 1 to 4\n/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  it('shows the chain broken where a row was edited in the database', async () => {
    const { page } = s;
    await sql`update audit_logs set metadata = replace(metadata, '"Warehouse"', '"Ware house"')
               where merchant_id = ${merchant.merchantId} and metadata like '%"Warehouse"%'`.execute(
      svc.ctx.db,
    );
    await page.getByRole('button', { name: 'Refresh' }).click();
    await settled(page);
    const alert = page.getByRole('alert').filter({ hasText: 'Chain broken' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /Chain broken at entry #2: its hash does not match its fields: the entry was edited\. Verified up to entry #1\./,
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });
});
