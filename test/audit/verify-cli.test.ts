// `svc audit verify` over real exports (API.md section 11.5): a clean export of 10,000 entries verifies, in
// either order, with its checkpoint and the published keys (from a file or the service's URL); each kind of
// tampering exits 1 naming the line and what is wrong; a row changed in the database shows in a fresh export
// and in the service's own chain check; rows inserted by hand, outside the chain, exit 1 naming their lines.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { runCli } from '../cli/cli-processes.ts';
import { insertByHand, sealAll, type ChainedEntry } from './chain-support.ts';
import { insertEntries } from '../../src/modules/audit/audit.repository.ts';
import { newId } from '../../src/lib/ids.ts';

let svc: TestService;
let m: TestMerchant;
let dir: string;
/** The clean export's lines, newest first. */
let lines: string[];
let checkpoint: Record<string, unknown>;
const files = { keys: '', checkpoint: '' };

const SEEDED = 9_999;

async function get(path: string, query = ''): Promise<string> {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/developer/logs${path}${query}`,
    headers: m.auth,
  });
  expect(res.statusCode).toBe(200);
  return res.body;
}

async function exportLines(query = ''): Promise<string[]> {
  return (await get('/export', `?format=jsonl${query}`)).trimEnd().split('\n');
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const jsonl = (ls: string[]) => `${ls.join('\n')}\n`;

async function verify(name: string, content: string[], options: string[] = []) {
  const path = file(name, jsonl(content));
  return runCli(['audit', 'verify', path, ...options], {});
}

const withCheckpoint = (cp = files.checkpoint) => ['--checkpoint', cp, '--keys', files.keys];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-audit-verify-'));
  svc = await startTestService({ listen: true });
  m = await signupMerchant(svc.app);
  const start = Date.now() - 86_400_000;
  await insertEntries(
    svc.ctx.db,
    Array.from({ length: SEEDED }, (_, i) => {
      const createdAt = new Date(start + i * 5);
      return {
        id: newId('log', createdAt.getTime()),
        createdAt,
        merchantId: m.merchantId,
        mode: 'test',
        action: i % 3 ? 'webhook.tested' : 'api_key.rotated',
        entityType: i % 3 ? 'webhook' : 'api_key',
        entityId: `ent_${i}`,
        metadata: JSON.stringify({
          actor: { type: 'user', id: 'usr_x' },
          n: i,
          note: i % 7 ? 'plain' : 'é "q" 🧾',
        }),
      };
    }),
  );
  await sealAll(svc);
  // the checkpoint first, then the export (whose own entry is the 10,000th): the export reaches it
  // saved as the route answers it, envelope and all
  const answer = await get('/checkpoint');
  checkpoint = (JSON.parse(answer) as { data: Record<string, unknown> }).data;
  files.checkpoint = file('checkpoint.json', answer);
  files.keys = file('keys.json', (await svc.app.inject({ url: '/.well-known/svc-audit-keys' })).body);
  lines = await exportLines();
}, 180_000);
afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

const entryAt = (i: number) => JSON.parse(lines[i]!) as ChainedEntry;

describe('svc audit verify', () => {
  it('passes a clean export of 10,000 entries with its checkpoint, keys from a file or the URL', async () => {
    expect(lines).toHaveLength(10_000);
    expect(entryAt(0)).toMatchObject({ action: 'audit_log.exported', sequence: 10_000 });
    const ok = await verify('clean.jsonl', lines, withCheckpoint());
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^10000 entries verified, sequence 1 to 10000\n/);
    expect(ok.stdout).toContain('Checkpoint: sequence 9999');
    expect(ok.stdout).toContain('matches line 2');

    const byUrl = await verify('clean-url.jsonl', lines, [
      '--checkpoint',
      files.checkpoint,
      '--keys',
      `${svc.url}/.well-known/svc-audit-keys`,
    ]);
    expect(byUrl.status).toBe(0);
  });

  it('passes the same export oldest first, and without a checkpoint', async () => {
    const reversed = await verify('oldest-first.jsonl', [...lines].reverse(), withCheckpoint());
    expect(reversed.status).toBe(0);
    expect(reversed.stdout).toMatch(/^10000 entries verified, sequence 1 to 10000\n/);
    expect(reversed.stdout).toContain('matches line 9999');
    expect((await verify('plain.jsonl', lines)).status).toBe(0);
  });

  it('fails an edited field, naming the line', async () => {
    const edited = [...lines];
    const e = entryAt(4);
    edited[4] = JSON.stringify({ ...e, entity_id: 'ent_forged' });
    const r = await verify('edited.jsonl', edited);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/: line 5: its hash does not match its fields: the entry was edited\n$/);
  });

  it('fails a removed line', async () => {
    const removed = lines.filter((_, i) => i !== 99);
    const r = await verify('removed.jsonl', removed);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'line 100: sequence 9900 follows 9902; the entry of sequence 9901 is not in the export: a removed line',
    );
  });

  it('fails an inserted forged line, even one whose own hash is right', async () => {
    // A forger who knows the rule copies line 50, gives it a new id and recomputes its hash over its prev_hash.
    const model = entryAt(49);
    const forged = {
      ...model,
      id: newId('log', Date.now()),
      metadata: '{"actor":{"type":"user","id":"usr_forger"}}',
    };
    const { id, action, entity_type, entity_id, metadata, created_at, sequence } = forged;
    forged.hash = createHash('sha256')
      .update(
        forged.prev_hash! +
          canonicalize({ id, action, entity_type, entity_id, metadata, created_at, sequence }),
      )
      .digest('hex');
    const inserted = [...lines.slice(0, 49), JSON.stringify(forged), ...lines.slice(49)];
    const r = await verify('inserted.jsonl', inserted);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /: line 50: the entry of sequence 9952 does not link to the entry of sequence 9951/,
    );
    expect(r.stdout).toContain('an entry was replaced or forged');

    // and a line copied as it is
    const copied = [...lines.slice(0, 300), lines[300]!, ...lines.slice(300)];
    const twice = await verify('copied.jsonl', copied);
    expect(twice.status).toBe(1);
    expect(twice.stdout).toContain('line 302: sequence 9700 appears twice');
  });

  it('fails two swapped lines', async () => {
    const swapped = [...lines];
    [swapped[200], swapped[201]] = [swapped[201]!, swapped[200]!];
    const r = await verify('swapped.jsonl', swapped);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'line 201: sequence 9799 follows 9801; the entry of sequence 9800 is on line 202: lines out of order',
    );
  });

  it('fails a truncated tail that does not reach the checkpoint', async () => {
    // the newest entries cut off: the export now ends before the checkpoint's entry
    const truncated = lines.slice(5);
    const r = await verify('truncated.jsonl', truncated, withCheckpoint());
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      "the export ends at sequence 9995 (line 1), before the checkpoint's sequence 9999: entries 9996 to 9999 are missing (a truncated export)",
    );
    // oldest first, cut at the end of the file
    const tail = await verify(
      'truncated-oldest-first.jsonl',
      [...lines].reverse().slice(0, -5),
      withCheckpoint(),
    );
    expect(tail.status).toBe(1);
    expect(tail.stdout).toContain('the export ends at sequence 9995 (line 9995)');
  });

  it('fails a checkpoint not signed by a published key, or changed after signing', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const message = `svc-audit-checkpoint.v1.${String(checkpoint.merchant_id)}.test.${String(checkpoint.sequence)}.${String(checkpoint.hash)}.${String(checkpoint.signed_at)}`;
    const own = {
      ...checkpoint,
      key_id: 'my-own-key',
      signature: sign(null, Buffer.from(message), privateKey).toString('base64url'),
    };
    const unsigned = await verify(
      'own-key.jsonl',
      lines,
      withCheckpoint(file('own.json', JSON.stringify(own))),
    );
    expect(unsigned.status).toBe(1);
    expect(unsigned.stdout).toContain(
      'the checkpoint is not signed by a published key: no key has kid my-own-key',
    );

    const claimed = { ...own, key_id: checkpoint.key_id };
    const forged = await verify(
      'claimed.jsonl',
      lines,
      withCheckpoint(file('claimed.json', JSON.stringify(claimed))),
    );
    expect(forged.status).toBe(1);
    expect(forged.stdout).toContain("the checkpoint's signature does not verify");

    const moved = { ...checkpoint, sequence: 9_998 };
    const changed = await verify(
      'moved.jsonl',
      lines,
      withCheckpoint(file('moved.json', JSON.stringify(moved))),
    );
    expect(changed.status).toBe(1);
    expect(changed.stdout).toContain("the checkpoint's signature does not verify");
  });

  it('proves each entry of a filtered export on its own, and says so', async () => {
    const filtered = await exportLines('&action=api_key.rotated');
    expect(filtered).toHaveLength(3_333);
    const r = await verify('filtered.jsonl', filtered);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^3333 entries verified, sequence 1 to 9997\nThe export is filtered/);
    const edited = [...filtered];
    edited[7] = edited[7]!.replace('\\"n\\":', '\\"n\\":1');
    expect((await verify('filtered-edited.jsonl', edited)).stdout).toContain(
      'line 8: its hash does not match',
    );
  });

  it('answers 2 when it cannot check: no file, or a checkpoint without keys', async () => {
    expect((await runCli(['audit', 'verify', join(dir, 'nope.jsonl')], {})).status).toBe(2);
    const r = await runCli(
      ['audit', 'verify', join(dir, 'clean.jsonl'), '--checkpoint', files.checkpoint],
      {},
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--checkpoint needs --keys');
  });

  it('fails on the lines of entries outside the chain, wherever they are, and says why', async () => {
    const h = await signupMerchant(svc.app);
    const at = Date.now() - 3_600_000;
    await insertEntries(
      svc.ctx.db,
      [0, 1, 2].map((i) => ({
        id: newId('log', at + i),
        createdAt: new Date(at + i),
        merchantId: h.merchantId,
        mode: 'test',
        action: 'webhook.tested',
        entityType: 'webhook',
        entityId: `wh_${i}`,
        metadata: '{}',
      })),
    );
    await sealAll(svc);
    const older = await insertByHand(svc, h, { at: new Date(at - 60_000) });
    const newer = await insertByHand(svc, h, { action: 'webhook.deleted' });
    const res = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs/export?format=jsonl',
      headers: h.auth,
    });
    const exported = res.body.trimEnd().split('\n');
    // the export's own entry and the three sealed ones, then the two by hand
    expect(exported).toHaveLength(6);
    const why =
      '2 entries are outside the chain: never sealed, so nothing proves them; the service did not write ' +
      'them (rows inserted into the database by hand)';

    const r = await verify('outside.jsonl', exported);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(
      `${join(dir, 'outside.jsonl')}: lines 5 (${newer.id}) and 6 (${older.id}): ${why}\n`,
    );
    const reversed = await verify('outside-oldest-first.jsonl', [...exported].reverse());
    expect(reversed.status).toBe(1);
    expect(reversed.stdout).toContain(`: lines 1 (${older.id}) and 2 (${newer.id}): ${why}\n`);
    // without the flag, a line without a seal is still one
    const unflagged = await verify(
      'outside-unflagged.jsonl',
      exported.map((l) => l.replace(',"outside_chain":true', '')),
    );
    expect(unflagged.stdout).toContain(`: lines 5 (${newer.id}) and 6 (${older.id}): ${why}\n`);
    // a break in the chain does not hide them: both are named
    const edited = [...exported];
    edited[1] = edited[1]!.replace('"wh_2"', '"wh_9"');
    const both = await verify('outside-and-edited.jsonl', edited);
    expect(both.status).toBe(1);
    expect(both.stdout.split('\n')).toEqual([
      expect.stringMatching(/: line 2: its hash does not match its fields: the entry was edited$/),
      expect.stringMatching(new RegExp(`: lines 5 \\(${newer.id}\\) and 6 \\(${older.id}\\): 2 entries`)),
      '',
    ]);
    // one line alone is named as one
    const one = await verify('outside-one.jsonl', exported.slice(0, 5));
    expect(one.stdout).toContain(
      `: line 5 (${newer.id}): 1 entry is outside the chain: never sealed, so nothing proves it;`,
    );
    // the chain's own lines verify
    const chain = await verify('outside-removed.jsonl', exported.slice(0, 4));
    expect(chain.status).toBe(0);
    expect(chain.stdout).toMatch(/^4 entries verified, sequence 1 to 4\n/);
  });

  it('finds a row changed in the database, in a fresh export and in the chain check', async () => {
    const victim = entryAt(1_000);
    await sql`update audit_logs set entity_id = 'ent_changed' where id = ${victim.id}`.execute(svc.ctx.db);
    const fresh = await exportLines();
    const line = fresh.findIndex((l) => l.includes(victim.id)) + 1;
    const r = await verify('tampered-db.jsonl', fresh);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`line ${line}: its hash does not match its fields: the entry was edited`);
    const state = JSON.parse(await get('/chain')) as { data: Record<string, unknown> };
    expect(state.data).toMatchObject({
      state: 'broken',
      verified_through: { sequence: victim.sequence! - 1 },
      broken: { sequence: victim.sequence, id: victim.id, issue: expect.stringMatching(/edited/) },
    });
  });
});
