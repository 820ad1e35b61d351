// Two operating-system processes (`node src/main.ts`) write one merchant's audit entries at once while both
// run the sealer: the chain comes out gapless (1 to N, each sequence once), every hash recomputes by the
// contract's rule, and both processes' chain checks and checkpoints agree. Neither process sets
// SVC_AUDIT_SIGNING_KEYS: both derive one key from the master key they share, and either one's JWKS verifies
// the other's checkpoints.
// (pg project only: see vitest.config.ts.)
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, startProcess, stopAll } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';
import {
  contractHash,
  verifies,
  type ChainedEntry,
  type Checkpoint,
  type Jwk,
} from '../audit/chain-support.ts';

const PER_PROCESS = 150;
let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: string;
let b: string;

beforeAll(async () => {
  database = await freshDatabase();
  [a, b] = (await Promise.all([startProcess(database.url!), startProcess(database.url!)])).map(
    (p) => p.url,
  ) as [string, string];
}, 120_000);
afterAll(async () => {
  await stopAll();
  await database?.drop();
});

/** `n` audit entries through one process, `concurrency` requests at a time. */
async function writeThrough(base: string, token: string, n: number, concurrency: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const res = await call(base, '/api/v1/merchant/api-keys', {
          method: 'POST',
          token,
          body: { name: `key ${i}` },
        });
        expect(res.status).toBe(201);
      }
    }),
  );
}

async function entries(base: string, token: string): Promise<ChainedEntry[]> {
  const out: ChainedEntry[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: { items: ChainedEntry[]; next_cursor: string | null } } = await call<{
      items: ChainedEntry[];
      next_cursor: string | null;
    }>(base, `/api/v1/merchant/developer/logs?limit=200${cursor ? `&starting_after=${cursor}` : ''}`, {
      token,
    });
    out.push(...page.data.items);
    cursor = page.data.next_cursor;
  } while (cursor);
  return out;
}

it('keeps one merchant gapless under concurrent writers and sealers on two processes', async () => {
  const signup = await call(a, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: {
      merchant_name: 'Chain',
      email: `sys-${randomBytes(6).toString('hex')}@example.com`,
      password: 'correct horse battery',
    },
  });
  const token = signup.data.token as string;
  await Promise.all([writeThrough(a, token, PER_PROCESS, 8), writeThrough(b, token, PER_PROCESS, 8)]);
  const total = 2 * PER_PROCESS;

  const state = await eventually(
    async () => {
      const chain = await call<{ unsealed: number; state: string; verified_through: { sequence: number } }>(
        b,
        '/api/v1/merchant/developer/logs/chain',
        { token },
      );
      return chain.data.unsealed === 0 && chain.data.verified_through?.sequence === total && chain.data;
    },
    { what: `the sealers to seal all ${total} entries`, timeoutMs: 30_000 },
  );
  expect(state.state).toBe('verified');

  const listed = await entries(a, token);
  expect(listed).toHaveLength(total);
  const chain = [...listed].sort((x, y) => x.sequence! - y.sequence!);
  expect(chain.map((e) => e.sequence)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  chain.forEach((e, i) => {
    expect(e.prev_hash).toBe(i === 0 ? '0'.repeat(64) : chain[i - 1]!.hash);
    expect(e.hash).toBe(contractHash(e.prev_hash!, e));
  });

  const fromA = await call<Checkpoint>(a, '/api/v1/merchant/developer/logs/checkpoint', {
    token,
  });
  expect(fromA.data).toMatchObject({ sequence: total, hash: chain.at(-1)!.hash });
  const keysOfB = ((await (await fetch(`${b}/.well-known/svc-audit-keys`)).json()) as { keys: Jwk[] }).keys;
  expect(keysOfB.map((k) => k.kid)).toEqual([fromA.data.key_id]);
  expect(verifies(fromA.data, keysOfB)).toBe(true);
  const checkA = await call<{ state: string }>(a, '/api/v1/merchant/developer/logs/chain', { token });
  expect(checkA.data.state).toBe('verified');
});
