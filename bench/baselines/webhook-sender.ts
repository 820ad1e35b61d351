// Baseline of delivery throughput: the least a durable sender can do per delivery. It records the delivery
// with one INSERT, POSTs the same Standard Webhooks signed body with an undici Pool, and records the outcome
// with one UPDATE, `concurrency` deliveries in flight, on the same PostgreSQL as the service.
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { Pool } from 'undici';
import { serveCalls } from '../lib/child.ts';
import { nowMs } from '../lib/stats.ts';

const db = new pg.Pool({ connectionString: process.env.BENCH_BASELINE_DATABASE_URL, max: 20 });
await db.query(`create table if not exists deliveries (
  id text collate "C" primary key,
  event_id text not null,
  status text not null,
  attempt_count int not null default 0,
  last_response_status int,
  created_at timestamptz not null default now(),
  last_attempt_at timestamptz
)`);

interface RunOptions {
  receiverUrl: string;
  /** `whsec_` + base64 of the key bytes. */
  secret: string;
  merchantId: string;
  prefix: string;
  count: number;
  concurrency: number;
}

function payload(o: RunOptions, n: number): { id: string; body: string } {
  const id = `evt_${o.prefix}${n}`;
  const body = JSON.stringify({
    id,
    type: 'order.created',
    timestamp: new Date().toISOString(),
    api_version: 'v1',
    mode: 'test',
    merchant_id: o.merchantId,
    data: { id: `ord_${n}`, object: 'order', total: 4200, currency: 'USD', note: 'x'.repeat(600) },
  });
  return { id, body };
}

async function run(o: RunOptions) {
  const key = Buffer.from(o.secret.replace(/^whsec_/, ''), 'base64');
  const url = new URL(o.receiverUrl);
  const http = new Pool(url.origin, { connections: o.concurrency });
  let nextIndex = 0;
  let failures = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      for (let n = nextIndex++; n < o.count; n = nextIndex++) {
        const { id, body } = payload(o, n);
        const deliveryId = `dlv_${o.prefix}${n}`;
        await db.query(`insert into deliveries (id, event_id, status) values ($1, $2, 'pending')`, [
          deliveryId,
          id,
        ]);
        const timestamp = Math.floor(Date.now() / 1000);
        const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
        const res = await http.request({
          path: url.pathname + url.search,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${signature}`,
          },
          body,
        });
        await res.body.dump();
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        if (!ok) failures++;
        await db.query(
          `update deliveries set status = $2, attempt_count = attempt_count + 1, last_response_status = $3,
             last_attempt_at = now() where id = $1`,
          [deliveryId, ok ? 'succeeded' : 'pending', res.statusCode],
        );
      }
    }),
  );
  const ended = nowMs();
  await http.close();
  return { started, ended, failures, rate: o.count / ((ended - started) / 1000) };
}

serveCalls({}, { run });
