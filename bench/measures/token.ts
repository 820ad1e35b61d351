// Token endpoint: the refresh_token grant with rotation (each request presents the refresh token the previous
// answer returned), CHAINS chains in parallel, then the authorization_code exchange of freshly minted one-use
// codes, each in rounds alternating with node-oidc-provider v9 configured like for like on a PostgreSQL
// adapter in the bench's cluster (the durable peer). The target was 1.5x the peer's requests per second; as
// cost, at most 1/1.5 = 0.67 of its CPU per request (ours: Node and PostgreSQL; its: its process and
// PostgreSQL). An in-memory oidc-provider was a reference row before; nobody runs it in production and it
// cost a third of the measure's time, so it is gone.
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
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { topStatements } from '../lib/statements.ts';
import { alternate, childMeter, cpuOf, cpuSplit, meteredRun, rates } from '../lib/rounds.ts';
import type { Child } from '../lib/child.ts';

const CHAINS = 50;
/** Codes exchanged per side and round: about 0.4 s of CPU at 0.9 ms each on a quiet host, 40 /proc ticks. */
const CODES = 400;
const WARM_CODES = 100;
const TOKEN_PATH = '/api/public/v1/oauth/token';
const versus = 'oidc-provider 9 on PostgreSQL (same cluster), like for like';
const AS_COST = { of: 'ratio', op: '<=', limit: 0.67 } as const;

const ROWS = {
  refresh: {
    name: 'token refresh CPU/request',
    unit: 'ms',
    about: `refresh_token grant with rotation, ${CHAINS} chains each presenting the last answer's token`,
    versus,
    target: AS_COST,
  },
  exchange: {
    name: 'code exchange CPU/request',
    unit: 'ms',
    about: `authorization_code grant with PKCE, ${CODES} fresh codes a round, ${CHAINS} in flight`,
    target: { of: 'value', op: '<=', limit: 1.5 },
  },
  exchangeVs: {
    name: 'code exchange CPU/request vs oidc-provider',
    unit: 'ms',
    about: 'the same rounds, against the durable peer',
    versus,
    target: AS_COST,
  },
} as const satisfies Record<string, RowSpec>;

async function landed(b: Bench): Promise<string | undefined> {
  const token = await b.api.call('POST', TOKEN_PATH, { form: { grant_type: 'refresh_token' } });
  if (token.status === 404) return 'feature missing (token endpoint)';
  const apps = await b.api.call('GET', '/api/v1/merchant/developer/apps', { token: b.merchant.token });
  if (apps.status === 404) return 'feature missing (developer apps)';
  return undefined;
}

interface Peer {
  child: Child;
  url: string;
  client: Record<string, string>;
  /** CPU ms so far of the peer's process and the PostgreSQL cluster. */
  cpu: () => number;
}

async function durablePeer(b: Bench): Promise<Peer> {
  const child = await b.helper('baselines/oidc-provider.ts', {
    OIDC_ADAPTER: 'postgres',
    BENCH_BASELINE_DATABASE_URL: b.cluster.url('bench_baseline'),
  });
  const own = childMeter(child.pid);
  return {
    child,
    url: `http://127.0.0.1:${String(child.info.port)}/token`,
    client: { client_id: String(child.info.clientId), client_secret: String(child.info.clientSecret) },
    cpu: () => own() + b.postgresCpu(),
  };
}

type Code = { code: string; verifier: string };

export const token: Measure = {
  name: 'token',
  about: 'the token endpoint (refresh with rotation, code exchange) against oidc-provider on PostgreSQL',
  rows: Object.values(ROWS),
  quick: true,
  async run(b) {
    const why = await landed(b);
    if (why) return Object.values(ROWS).map((spec) => missing(spec, why));
    const peer = await durablePeer(b);
    const app = await createApp(b.api, b.merchant);
    const svcClient = { client_id: app.clientId, client_secret: app.clientSecret };
    const svcUrl = b.service.url + TOKEN_PATH;
    // Like for like with the peer, where every token has its own account and grant: the app is installed by
    // 2 x CHAINS merchants, as a popular app is, rather than many times by one (every request would queue on
    // one grant row and one merchant's audit counters). Twice the requests in flight, so that the codes
    // exchanged together never include two of one grant.
    const installers: Merchant[] = await inParallel(
      Array.from({ length: 2 * CHAINS }, (_, i) => i),
      4,
      (i) => b.api.signup(`Installer ${i}`),
    );
    const chains = async (a: OAuthApp) => {
      const codes = await inParallel(installers.slice(0, CHAINS), 10, (m) => authorize(b.api, m, a));
      return (await inParallel(codes, 10, (c) => exchangeCode(b.api, a, c))).map((t) => t.refresh_token);
    };
    const refresh = (url: string, client: Record<string, string>, tokens: string[], duration = b.duration) =>
      b.load.call<LoadResult>('chains', {
        url,
        fields: { grant_type: 'refresh_token', ...client },
        tokens,
        duration,
        maxRequests: duration * 50_000,
      });
    await refresh(svcUrl, svcClient, await chains(app), 1); // warm-up of both
    await refresh(peer.url, peer.client, await peer.child.call<string[]>('refreshTokens', CHAINS), 1);
    if (b.profile) await topStatements(b.cluster.url('svc')); // reset: what follows is the refresh rounds alone
    const refreshed = await alternate(b, {
      svc: async () => {
        const tokens = await chains(app);
        return meteredRun(b.serviceCpu, () => refresh(svcUrl, svcClient, tokens), b.postgresCpu);
      },
      peer: async () => {
        const tokens = await peer.child.call<string[]>('refreshTokens', CHAINS);
        return meteredRun(peer.cpu, () => refresh(peer.url, peer.client, tokens), b.postgresCpu);
      },
    });
    if (b.profile) await logStatements(b, 'token refresh', sum(refreshed.svc));
    b.log(`token refresh: ${rates(refreshed.svc, refreshed.peer)}`);

    // Codes are minted before the clock starts (they live SVC_OAUTH_CODE_TTL=600 s in the bench service), in
    // turn for the installers, as the peer gives each code its own account and grant: codes of one merchant
    // exchanged together queue on its grant row (every token family's foreign key takes a KEY SHARE lock on
    // it) and on its audit counters, which a burst of first installs never does.
    const minted = await inParallel(
      Array.from({ length: WARM_CODES + b.rounds * CODES }, (_, i) => installers[i % installers.length]!),
      16,
      (m) => authorize(b.api, m, app),
    );
    const exchange = (url: string, client: Record<string, string>, codes: Code[]) =>
      b.load.call<LoadResult>('exchange', {
        url,
        fields: { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, ...client },
        codes,
        concurrency: CHAINS,
      });
    await exchange(svcUrl, svcClient, minted.slice(0, WARM_CODES));
    await exchange(peer.url, peer.client, await peer.child.call<Code[]>('codes', WARM_CODES));
    let round = 0;
    if (b.profile) await topStatements(b.cluster.url('svc')); // reset: what follows is the exchange alone
    const exchanged = await alternate(b, {
      svc: () => {
        const from = WARM_CODES + CODES * round++;
        const codes = minted.slice(from, from + CODES);
        return meteredRun(b.serviceCpu, () => exchange(svcUrl, svcClient, codes), b.postgresCpu);
      },
      peer: async () => {
        const codes = await peer.child.call<Code[]>('codes', CODES);
        return meteredRun(peer.cpu, () => exchange(peer.url, peer.client, codes), b.postgresCpu);
      },
    });
    if (b.profile) await logStatements(b, 'code exchange', sum(exchanged.svc));
    b.log(`code exchange: ${rates(exchanged.svc, exchanged.peer)}`);
    const notes = (r: typeof refreshed) =>
      `${rates(r.svc, r.peer)}; ours ${cpuSplit(r.svc)}; the peer's ${cpuSplit(r.peer)}`;
    return [
      sampled(ROWS.refresh, cpuOf(refreshed.svc), cpuOf(refreshed.peer), notes(refreshed)),
      sampled(ROWS.exchange, cpuOf(exchanged.svc), [], `ours ${cpuSplit(exchanged.svc)}`),
      sampled(ROWS.exchangeVs, cpuOf(exchanged.svc), cpuOf(exchanged.peer), notes(exchanged)),
    ];
  },
};

const sum = (rs: readonly LoadResult[]) => rs.reduce((n, r) => n + r.total, 0);

/**
 * `--profile`: the statements of a phase, with their planning time (a plan that went stale shows as a mean
 * that grows with the table); per operation, so that round trips can be counted.
 */
async function logStatements(b: Bench, phase: string, ops: number): Promise<void> {
  const top = await topStatements(b.cluster.url('svc'), 20);
  const calls = top.reduce((n, t) => n + t.calls, 0);
  b.log(`${phase}: ${(calls / ops).toFixed(1)} statements per operation (${ops} operations)`);
  for (const t of top) {
    b.log(
      `  ${(t.calls / ops).toFixed(2)}/operation, ${t.mean_ms} ms each, ${t.total_ms} ms, planning ${t.plan_ms} ms: ${t.query}`,
    );
  }
}
