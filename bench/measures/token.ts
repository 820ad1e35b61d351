// Token endpoint: the refresh_token grant with rotation (each request presents the refresh token the previous
// answer returned), CHAINS chains in parallel, against node-oidc-provider v9 configured like for like in the
// same run; then the authorization_code exchange of freshly minted one-use codes. Two baselines: oidc-provider
// on a PostgreSQL adapter in the bench's cluster (the durable peer, which the targets compare with) and on an
// in-memory Map (a reference: nobody runs it in production, it loses every grant on restart).
import type { LoadResult } from '../drivers/load.ts';
import {
  authorize,
  createApp,
  exchangeCode,
  inParallel,
  REDIRECT_URI,
  type Merchant,
  type OAuthApp,
} from '../lib/api.ts';
import { missing, row, type Bench, type Measure, type Row } from '../lib/bench.ts';
import { topStatements } from '../lib/statements.ts';
import { bestOfEach, childMeter, cpuSplit, meteredRun } from '../lib/rounds.ts';
import type { Child } from '../lib/child.ts';

const CHAINS = 50;
const CODES = 1000;
const TOKEN_PATH = '/api/public/v1/oauth/token';
const REFRESH_TARGET = { of: 'ratio', op: '>=', limit: 1.5 } as const;
const EXCHANGE_TARGET = REFRESH_TARGET;
const EXCHANGE_CPU_TARGET = { of: 'value', op: '<=', limit: 1.5 } as const;

async function landed(b: Bench): Promise<string | undefined> {
  const token = await b.api.call('POST', TOKEN_PATH, { form: { grant_type: 'refresh_token' } });
  if (token.status === 404) return 'feature missing (token endpoint)';
  const apps = await b.api.call('GET', '/api/v1/merchant/developer/apps', { token: b.merchant.token });
  if (apps.status === 404) return 'feature missing (developer apps)';
  return undefined;
}

// Like for like with the baseline, where every token has its own account and grant: the app is installed by
// INSTALLERS merchants, as a popular app is, rather than many times by one (which would make every request
// of the run queue on one grant row and one merchant's audit counters). Twice the requests in flight, so
// the window of codes being exchanged never wraps round to a second code of the same grant.
const INSTALLERS = 2 * CHAINS;
let installers: Promise<Merchant[]> | undefined;
function merchants(b: Bench): Promise<Merchant[]> {
  installers ??= inParallel(
    Array.from({ length: INSTALLERS }, (_, i) => i),
    4,
    (i) => b.api.signup(`Installer ${i}`),
  );
  return installers;
}

async function serviceChains(b: Bench, app: OAuthApp): Promise<string[]> {
  const codes = await inParallel((await merchants(b)).slice(0, CHAINS), 10, (m) => authorize(b.api, m, app));
  const tokens = await inParallel(codes, 10, (c) => exchangeCode(b.api, app, c));
  return tokens.map((t) => t.refresh_token);
}

interface Baseline {
  child: Child;
  url: string;
  client: Record<string, string>;
  /** CPU ms so far of the side: the provider's process, and for the durable one the PostgreSQL cluster. */
  cpu: () => number;
  database?: () => number;
}

async function baseline(b: Bench, adapter: 'postgres' | 'memory'): Promise<Baseline> {
  const child = await b.helper('baselines/oidc-provider.ts', {
    OIDC_ADAPTER: adapter,
    BENCH_BASELINE_DATABASE_URL: b.cluster.url('bench_baseline'),
  });
  const own = childMeter(child.pid);
  return {
    child,
    url: `http://127.0.0.1:${String(child.info.port)}/token`,
    client: { client_id: String(child.info.clientId), client_secret: String(child.info.clientSecret) },
    ...(adapter === 'postgres'
      ? { cpu: () => own() + b.postgresCpu(), database: b.postgresCpu }
      : { cpu: own }),
  };
}

type Sides = Record<'svc' | 'durable' | 'memory', LoadResult>;

/** The rows of one grant: ours, then against the durable peer (the target) and against the Map (reference). */
function rowsOf(name: string, r: Sides, note: string, target?: typeof REFRESH_TARGET): Row[] {
  const rate = (x: LoadResult) => (x.errors ? null : x.rps);
  const err = (x: LoadResult) => (x.errors ? `${x.errors} errors` : '');
  return [
    row(
      name,
      'req/s',
      rate(r.svc),
      rate(r.durable),
      target,
      err(r.svc) || `${note}; vs oidc-provider, PostgreSQL adapter`,
    ),
    row(
      `${name} vs in-memory`,
      'req/s',
      rate(r.svc),
      rate(r.memory),
      undefined,
      'reference: oidc-provider, Map adapter',
    ),
    row(
      `${name} p99`,
      'ms',
      r.svc.p99,
      r.durable.p99,
      undefined,
      `in-memory baseline ${r.memory.p99.toFixed(1)} ms`,
    ),
  ];
}

function cpuRows(name: string, r: Sides, target?: typeof EXCHANGE_CPU_TARGET): Row[] {
  return [
    row(
      `${name} CPU/request`,
      'ms',
      r.svc.cpuPerOp ?? null,
      r.durable.cpuPerOp ?? null,
      target,
      `ours ${cpuSplit(r.svc)}; durable baseline ${cpuSplit(r.durable)}`,
    ),
    row(`${name} CPU/request vs in-memory`, 'ms', r.svc.cpuPerOp ?? null, r.memory.cpuPerOp ?? null),
  ];
}

export const token: Measure = {
  name: 'token',
  async run(b) {
    const why = await landed(b);
    if (why) {
      return [
        missing('token refresh', 'req/s', why, REFRESH_TARGET),
        missing('code exchange', 'req/s', why, EXCHANGE_TARGET),
      ];
    }
    const durable = await baseline(b, 'postgres');
    const memory = await baseline(b, 'memory');
    const app = await createApp(b.api, b.merchant);
    const svcClient = { client_id: app.clientId, client_secret: app.clientSecret };
    const svcUrl = b.service.url + TOKEN_PATH;

    const refresh = async (url: string, client: Record<string, string>, tokens: string[], duration: number) =>
      b.load.call<LoadResult>('chains', {
        url,
        fields: { grant_type: 'refresh_token', ...client },
        tokens,
        duration,
        maxRequests: duration * 50_000,
      });
    await refresh(svcUrl, svcClient, await serviceChains(b, app), 2); // warm-up
    for (const base of [durable, memory]) {
      await refresh(base.url, base.client, await base.child.call<string[]>('refreshTokens', CHAINS), 2);
    }
    const baseRefresh = (base: Baseline) => async () => {
      const tokens = await base.child.call<string[]>('refreshTokens', CHAINS);
      return meteredRun(base.cpu, () => refresh(base.url, base.client, tokens, b.duration), base.database);
    };
    if (b.profile) await topStatements(b.cluster.url('svc')); // reset: what follows is the refresh rounds alone
    const refreshed = await bestOfEach({
      svc: async () => {
        const tokens = await serviceChains(b, app);
        return meteredRun(b.serviceCpu, () => refresh(svcUrl, svcClient, tokens, b.duration), b.postgresCpu);
      },
      durable: baseRefresh(durable),
      memory: baseRefresh(memory),
    });
    if (b.profile) await logStatements(b, 'token refresh');
    b.log(
      `token refresh: service ${refreshed.svc.rps.toFixed(0)}/s (${refreshed.svc.errors} errors), ` +
        `oidc-provider on PostgreSQL ${refreshed.durable.rps.toFixed(0)}/s, in memory ${refreshed.memory.rps.toFixed(0)}/s`,
    );
    const rows: Row[] = [
      ...rowsOf('token refresh', refreshed, `${CHAINS} chains, each request rotating`, REFRESH_TARGET),
      ...cpuRows('token refresh', refreshed),
    ];

    // Codes are minted before the clock starts (they live SVC_OAUTH_CODE_TTL=600 s in the bench service), in
    // turn for the INSTALLERS merchants, as the baseline gives each code its own account and grant: codes of
    // one merchant exchanged together queue on its grant row (every token family's foreign key takes a
    // KEY SHARE lock on it) and on its audit counters, which a burst of first installs never does. All
    // 1,000 for one merchant, as this measure first did, cost 1.5 ms per exchange in the audit statement alone.
    const count = Math.min(CODES, b.duration * 200);
    const installed = await merchants(b);
    const codes = await inParallel(
      Array.from({ length: count }, (_, i) => installed[i % installed.length]!),
      16,
      (m) => authorize(b.api, m, app),
    );
    const exchange = (
      url: string,
      client: Record<string, string>,
      list: { code: string; verifier: string }[],
    ) =>
      b.load.call<LoadResult>('exchange', {
        url,
        fields: { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, ...client },
        codes: list,
        concurrency: CHAINS,
      });
    if (b.profile) await topStatements(b.cluster.url('svc')); // reset: what follows is the exchange alone
    const svcCodes = await meteredRun(b.serviceCpu, () => exchange(svcUrl, svcClient, codes), b.postgresCpu);
    if (b.profile) await logStatements(b, 'code exchange', svcCodes.total);
    const baseExchange = async (base: Baseline) => {
      const list = await base.child.call<{ code: string; verifier: string }[]>('codes', count);
      return meteredRun(base.cpu, () => exchange(base.url, base.client, list), base.database);
    };
    const exchanged: Sides = {
      svc: svcCodes,
      durable: await baseExchange(durable),
      memory: await baseExchange(memory),
    };
    b.log(
      `code exchange: service ${exchanged.svc.rps.toFixed(0)}/s, oidc-provider on PostgreSQL ` +
        `${exchanged.durable.rps.toFixed(0)}/s, in memory ${exchanged.memory.rps.toFixed(0)}/s`,
    );
    rows.push(
      ...rowsOf('code exchange', exchanged, `${count} codes, ${CHAINS} in flight`, EXCHANGE_TARGET),
      ...cpuRows('code exchange', exchanged, EXCHANGE_CPU_TARGET),
    );
    return rows;
  },
};

/**
 * `--profile`: the statements of a phase, with their planning time (a plan that went stale shows as a mean
 * that grows with the table); per operation when the phase counts them, so that round trips can be counted.
 */
async function logStatements(b: Bench, phase: string, ops?: number): Promise<void> {
  const top = await topStatements(b.cluster.url('svc'), 20);
  if (ops) {
    const calls = top.reduce((n, t) => n + t.calls, 0);
    b.log(`${phase}: ${(calls / ops).toFixed(1)} statements per operation (${ops} operations)`);
  }
  for (const t of top) {
    const per = ops ? `${(t.calls / ops).toFixed(2)}/operation` : `${t.calls} calls`;
    b.log(`  ${per}, ${t.mean_ms} ms each, ${t.total_ms} ms, planning ${t.plan_ms} ms: ${t.query}`);
  }
}
