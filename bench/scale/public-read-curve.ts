// Public read against the number of distinct keys in use: N publishable keys of one merchant, made in
// Node (makeCredential, as the service makes them) and stored by batched INSERTs, then the public route read
// with each request carrying the next key in turn, so every key is in use during the run.
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import { keyPair } from '../lib/keys.ts';
import { cpuSplit, meteredRun } from '../lib/rounds.ts';
import { makeCredential } from '../../src/lib/credentials.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Curve, Point } from './curve.ts';

const SIZES = [10, 10_000, 100_000];
const CONNECTIONS = 50;
const PATH = '/api/public/v1/payments/supported-countries';
const BATCH = 10_000;
const WARM_MAX_MS = 180_000;

async function makeKeys(db: pg.Client, merchantId: string, scopes: string, n: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let from = 0; from < n; from += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, n - from) }, () => {
      const pk = makeCredential('publishable_key', 'test');
      const sk = makeCredential('secret_key', 'test');
      return { id: newId('key', Date.now()), pk, sk };
    });
    await db.query(
      `insert into api_keys (id, merchant_id, mode, name, publishable_key, publishable_key_hash,
                             secret_key_hash, secret_key_last4, scopes)
       select id, $1, 'test', 'scale', pk, pkh, skh, last4, $2
         from unnest($3::text[], $4::text[], $5::bytea[], $6::bytea[], $7::text[]) as k(id, pk, pkh, skh, last4)`,
      [
        merchantId,
        scopes,
        rows.map((r) => r.id),
        rows.map((r) => r.pk.token),
        rows.map((r) => r.pk.hash),
        rows.map((r) => r.sk.hash),
        rows.map((r) => r.sk.last4),
      ],
    );
    tokens.push(...rows.map((r) => r.pk.token));
  }
  return tokens;
}

export const publicReadCurve: Curve = {
  name: 'public-read',
  async run(b, sizes) {
    const chosen = sizes(SIZES);
    const first = await keyPair(b);
    if (!first) throw new Error('api keys missing');
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    const points: Point[] = [];
    try {
      const { rows } = await db.query<{ scopes: string }>(
        `select scopes from api_keys where publishable_key = $1`,
        [first.publishable],
      );
      const scopes = rows[0]!.scopes;
      let tokens: string[] = [];
      for (const size of chosen) {
        // The keys of the smaller sizes stay in use: each size adds what it lacks.
        const m = await b.api.signup(`Scale keys ${size}`);
        tokens = [...tokens, ...(await makeKeys(db, m.merchantId, scopes, size - tokens.length))];
        const url = b.service.url + PATH;
        const run = (duration: number, from: number) =>
          b.load.call<LoadResult>('cannon', { url, tokens, from, connections: CONNECTIONS, duration });
        // Warm-up: every key used once (each first use is a lookup), so the run measures keys in use, not new.
        // Each warm-up run goes on from the key where the last one stopped.
        let warmed = 0;
        for (const t0 = Date.now(); warmed < tokens.length && Date.now() - t0 < WARM_MAX_MS;) {
          warmed += (await run(2, warmed)).total;
        }
        const r = await meteredRun(b.serviceCpu, () => run(b.duration, warmed), b.postgresCpu);
        b.log(`scale public read ${size} keys: ${r.rps.toFixed(0)} req/s, CPU ${r.cpuPerOp?.toFixed(3)} ms`);
        points.push({
          size,
          value: r.cpuPerOp ?? NaN,
          detail: `${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''}; ${cpuSplit([r])}`,
        });
      }
    } finally {
      await db.end();
    }
    return [
      {
        name: 'public read CPU/request',
        unit: 'ms',
        of: 'distinct keys in use',
        flat: true,
        lowerIsBetter: true,
        points,
        skipped: SIZES.filter((s) => !chosen.includes(s)),
        note: `${CONNECTIONS} connections, ${b.duration} s, each request the next key in turn; CPU per request (service Node + PostgreSQL) rather than req/s, which the machine's neighbours move`,
      },
    ];
  },
};
