// Audit page: GET /developer/logs?limit=50 for a merchant with ENTRIES entries, seeded by one SQL statement
// with valid time-sortable ids: the first page, a filtered page (`action=webhook.*`) and a page behind a deep
// cursor, in rounds that take the three in turn, each under CONNECTIONS concurrent dashboard readers: the p99
// a reader sees and the CPU per page. Then seeded entries sealed by the service's sealer as after the upgrade
// that brought the chain (BACKLOG a round), and the whole log exported as CSV once a round.
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import { missing, sampled, type Bench, type Measure, type Row, type RowSpec } from '../lib/bench.ts';
import { alternate, cpuOf, cpuSplit, inRounds, meteredRun, range } from '../lib/rounds.ts';
import { topStatements } from '../lib/statements.ts';
import { sealSeeded, seedAudit } from '../lib/audit-seed.ts';

/** 300,000: a million took 57 s to seed, 500,000 26 s; the pages are found by key either way. */
const ENTRIES = 300_000;
/**
 * Seeded entries sealed a round. All 1,000,000 took 5 minutes at load average 17 (3,200 entries/s); the CPU
 * per entry is what the row judges, and 30,000 a round give it four seconds of work each.
 */
const BACKLOG = 30_000;
const CONNECTIONS = 4;
const P99 = { of: 'value', op: '<=', limit: 20 } as const;
const PATH = '/api/v1/merchant/developer/logs';

const PAGES = {
  plain: { label: '', query: '' },
  family: { label: ' webhook.*', query: '&action=webhook.*' },
  deep: { label: ' deep cursor', query: '&starting_after=' },
} as const;
type Page = keyof typeof PAGES;
const KINDS = Object.keys(PAGES) as Page[];

const p99Row = (kind: Page): RowSpec => ({
  name: `audit page${PAGES[kind].label} p99`,
  unit: 'ms',
  about: `${PATH}?limit=50${PAGES[kind].query}${kind === 'deep' ? `<${(ENTRIES * 0.9).toLocaleString('en')} entries deep>` : ''}, ${ENTRIES.toLocaleString('en')} entries, ${CONNECTIONS} readers`,
  target: P99,
});
const cpuRow = (kind: Page): RowSpec => ({
  name: `audit page${PAGES[kind].label} CPU/page`,
  unit: 'ms',
  about: 'the same rounds: Node + PostgreSQL CPU per page',
});
const ROWS = {
  p99: Object.fromEntries(KINDS.map((k) => [k, p99Row(k)])) as Record<Page, RowSpec>,
  cpu: Object.fromEntries(KINDS.map((k) => [k, cpuRow(k)])) as Record<Page, RowSpec>,
  sealer: {
    name: 'audit sealer CPU/entry, backlog',
    unit: 'ms',
    about: `${BACKLOG.toLocaleString('en')} seeded entries a round queued for the sealer at once, as after the upgrade that brought the chain: Node + PostgreSQL CPU per entry sealed`,
  },
  export: {
    name: 'audit export (CSV) peak RSS',
    unit: 'MB',
    about: "the whole log through the export route, streamed: the service's peak resident set meanwhile",
    target: { of: 'value', op: '<=', limit: 250 },
  },
} as const;

/** The three pages in turn, round after round: p99 and CPU per page of each. */
async function pages(b: Bench, token: string, deepCursor: string): Promise<Row[]> {
  const headers = { authorization: `Bearer ${token}` };
  const url = (kind: Page) =>
    `${b.service.url}${PATH}?limit=50${PAGES[kind].query}${kind === 'deep' ? deepCursor : ''}`;
  const run = (kind: Page, duration = b.duration) =>
    b.load.call<LoadResult>('cannon', { url: url(kind), headers, connections: CONNECTIONS, duration });
  for (const kind of KINDS) {
    const check = await b.api.call('GET', url(kind).slice(b.service.url.length), { token });
    if (check.status !== 200 || check.body.data.items.length !== 50) {
      return [missing(ROWS.p99[kind], `unexpected answer ${check.status}`)];
    }
    await run(kind, 1);
  }
  if (b.profile) await topStatements(b.cluster.url('svc')); // reset: what follows is the pages alone
  const side = (kind: Page) => () => meteredRun(b.serviceCpu, () => run(kind), b.postgresCpu);
  const r = await alternate(b, { plain: side('plain'), family: side('family'), deep: side('deep') });
  if (b.profile) {
    const total = KINDS.reduce((n, k) => n + r[k].reduce((m, x) => m + x.total, 0), 0);
    for (const t of await topStatements(b.cluster.url('svc'), 10)) {
      const perPage = (t.calls / total).toFixed(2);
      b.log(`  ${perPage}/page, ${t.mean_ms} ms each, planning ${t.plan_ms} ms in all: ${t.query}`);
    }
  }
  return KINDS.flatMap((kind) => {
    const rs = r[kind];
    b.log(`audit page ${kind}: p99 ${range(rs.map((x) => x.p99))} ms, CPU/page ${cpuSplit(rs)}`);
    const note = `p50 ${range(rs.map((x) => x.p50))} ms, ${range(rs.map((x) => x.rps))} req/s`;
    return [
      sampled(
        ROWS.p99[kind],
        rs.map((x) => x.p99),
        [],
        note,
      ),
      sampled(ROWS.cpu[kind], cpuOf(rs), [], cpuSplit(rs)),
    ];
  });
}

/** BACKLOG of the seeded entries sealed a round: Node + PostgreSQL CPU per entry, and entries per second. */
async function backlog(b: Bench, db: pg.Client, merchantId: string): Promise<Row> {
  const rounds = await inRounds(b, async (k) => {
    const cpu0 = b.serviceCpu();
    const seconds = await sealSeeded(db, merchantId, BACKLOG, k * BACKLOG);
    return seconds === undefined ? undefined : { seconds, cpu: (b.serviceCpu() - cpu0) / BACKLOG };
  });
  if (rounds.some((x) => x === undefined)) return missing(ROWS.sealer, 'feature missing (no audit chain)');
  const done = rounds.filter((x) => x !== undefined);
  b.log(`audit sealer backlog: ${range(done.map((x) => BACKLOG / x.seconds))} entries/s`);
  return sampled(
    ROWS.sealer,
    done.map((x) => x.cpu),
    [],
    `${BACKLOG.toLocaleString('en')} entries a round, ${range(done.map((x) => BACKLOG / x.seconds))} entries/s`,
  );
}

export const audit: Measure = {
  name: 'audit',
  about: `the audit log of a merchant with ${ENTRIES.toLocaleString('en')} entries: its pages, the sealer's backlog, the export`,
  rows: [...Object.values(ROWS.p99), ...Object.values(ROWS.cpu), ROWS.sealer, ROWS.export],
  quick: [...Object.values(ROWS.p99), ...Object.values(ROWS.cpu)].map((r) => r.name),
  async run(b) {
    const probe = await b.api.call('GET', `${PATH}?limit=1`, { token: b.merchant.token });
    if (probe.status !== 200) return [missing(ROWS.p99.plain, `feature missing (${probe.status})`)];
    const m = await b.api.signup('Bench audit');
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    try {
      const t0 = performance.now();
      const steps = await seedAudit(db, m.merchantId, ENTRIES);
      b.log(
        `audit: ${ENTRIES} entries seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s (${steps})`,
      );
      const deep = await db.query<{ id: string }>(
        `select id from audit_logs where merchant_id = $1 and mode = 'test' order by id desc offset $2 limit 1`,
        [m.merchantId, Math.floor(ENTRIES * 0.9)],
      );
      const rows = await pages(b, m.token, deep.rows[0]!.id);
      if (b.quick) return rows;
      rows.push(await backlog(b, db, m.merchantId));
      rows.push(await exportAll(b, m.token));
      return rows;
    } finally {
      await db.end();
    }
  },
};

/** The whole log as CSV through the export route, once a round: the service's peak RSS meanwhile. */
async function exportAll(b: Bench, token: string): Promise<Row> {
  const done = await inRounds(b, async () => {
    b.service.windowPeakRssMb();
    const t0 = performance.now();
    const res = await fetch(`${b.service.url}${PATH}/export?format=csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    let lines = 0;
    const reader = res.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      for (const byte of r.value) if (byte === 10) lines++;
    }
    return {
      peak: b.service.windowPeakRssMb(),
      entries: lines - 1,
      seconds: (performance.now() - t0) / 1000,
    };
  });
  b.log(
    `audit export: peak RSS ${range(done.map((r) => r.peak))} MB, ${range(done.map((r) => r.seconds))} s`,
  );
  return sampled(
    ROWS.export,
    done.map((r) => r.peak),
    [],
    `${done[0]?.entries} entries in ${range(done.map((r) => r.seconds))} s, streamed`,
  );
}
