// Checkpoint keys derived from the master keys (API.md sections 9 and 11.5): a service on PostgreSQL started
// with DATABASE_URL and SVC_MASTER_KEY alone signs checkpoints that its JWKS verifies, and after a master-key
// rotation (SVC_MASTER_KEY=NEW,OLD, then NEW alone) a checkpoint signed before it still verifies against the
// JWKS, with `svc audit verify --keys URL` too. PostgreSQL only: the embedded database keeps the key it
// generates into its data directory (checkpoint.test.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, MASTER_KEY, startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { runCli } from '../cli/cli-processes.ts';
import { checkpointOf, jwks, verifies, type Checkpoint } from './chain-support.ts';
import { rotateMasterKey } from '../../src/master-keys.ts';

const NEW = randomBytes(32).toString('base64');
let first: TestService;
let m: TestMerchant;
let dir: string;

const createKey = (svc: TestService, name: string) =>
  svc.app.inject({ method: 'POST', url: '/api/v1/merchant/api-keys', headers: m.auth, payload: { name } });

describe.skipIf(DB_KIND !== 'pg')('checkpoint keys derived from the master keys', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-derived-keys-'));
    first = await startTestService();
    m = await signupMerchant(first.app);
  });
  afterAll(async () => {
    await first?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sign without SVC_AUDIT_SIGNING_KEYS, and stay published after a master-key rotation', async () => {
    expect(first.config.databaseUrl).toBeDefined();
    await createKey(first, 'before');
    const before = await checkpointOf(first, m);
    expect(before.sequence).toBeGreaterThan(0);
    expect(await jwks(first)).toHaveLength(1);
    expect(verifies(before, await jwks(first))).toBe(true);

    // Step 1: the new master key first, the old one after it; the stored secrets re-sealed under NEW.
    const both = await startTestService({
      shareWith: first,
      env: { SVC_MASTER_KEY: `${NEW},${MASTER_KEY}` },
    });
    let during: Checkpoint;
    try {
      await rotateMasterKey(both.ctx);
      await createKey(both, 'during');
      during = await checkpointOf(both, m);
      expect(during.key_id).not.toBe(before.key_id);
      const keys = await jwks(both);
      expect(keys.map((k) => k.kid)).toEqual([during.key_id, before.key_id]);
      expect(verifies(before, keys)).toBe(true);
      expect(verifies(during, keys)).toBe(true);
    } finally {
      await both.close();
    }
    // the process not restarted yet publishes the new key as soon as it was recorded
    await eventually(async () => verifies(during, await jwks(first)), {
      what: 'the new key in the JWKS of the process still on the old master key',
    });

    // Step 2: NEW alone. The key derived from the old master key is no longer configured anywhere.
    const after = await startTestService({ shareWith: first, listen: true, env: { SVC_MASTER_KEY: NEW } });
    try {
      await createKey(after, 'after');
      const now = await checkpointOf(after, m);
      expect(now.key_id).toBe(during.key_id);
      const keys = await jwks(after);
      expect(keys.map((k) => k.kid)).toEqual([during.key_id, before.key_id]);
      expect(verifies(before, keys)).toBe(true);

      // An auditor's check: the export taken now reaches the checkpoint signed before the rotation, and
      // that checkpoint verifies with the keys the service publishes at its URL.
      const exported = await after.app.inject({
        url: '/api/v1/merchant/developer/logs/export?format=jsonl',
        headers: m.auth,
      });
      expect(exported.statusCode).toBe(200);
      const exportFile = join(dir, 'export.jsonl');
      const checkpointFile = join(dir, 'checkpoint.json');
      writeFileSync(exportFile, exported.body);
      writeFileSync(checkpointFile, JSON.stringify(before));
      const run = await runCli(
        [
          'audit',
          'verify',
          exportFile,
          '--checkpoint',
          checkpointFile,
          '--keys',
          `${after.url}/.well-known/svc-audit-keys`,
        ],
        {},
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/entries verified, sequence 1 to \d+\n/);
      expect(run.stdout).toContain(`Checkpoint: sequence ${before.sequence}`);
    } finally {
      await after.close();
    }
  });
});
