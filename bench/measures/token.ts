// Token endpoint: the refresh_token grant with rotation (each request presents the refresh token the previous
// answer returned), CHAINS chains in parallel, against node-oidc-provider v9 configured like for like in the
// same run; then the authorization_code exchange of freshly minted one-use codes.
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
import { bestOfAlternating, childMeter, cpuSplit, meteredRun } from '../lib/rounds.ts';

const CHAINS = 50;
const CODES = 1000;
const TOKEN_PATH = '/api/public/v1/oauth/token';
const REFRESH_TARGET = { of: 'ratio', op: '>=', limit: 1.5 } as const;

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

export const token: Measure = {
  name: 'token',
  async run(b) {
    const why = await landed(b);
    if (why) {
      return [
        missing('token refresh', 'req/s', why, REFRESH_TARGET),
        missing('token refresh p99', 'ms', why),
        missing('code exchange', 'req/s', why),
        missing('code exchange p99', 'ms', why),
      ];
    }
    const oidc = await b.helper('baselines/oidc-provider.ts');
    const oidcUrl = `http://127.0.0.1:${String(oidc.info.port)}/token`;
    const oidcClient = {
      client_id: String(oidc.info.clientId),
      client_secret: String(oidc.info.clientSecret),
    };
    const app = await createApp(b.api, b.merchant);
    const svcClient = { client_id: app.clientId, client_secret: app.clientSecret };
    const rows: Row[] = [];

    const refresh = async (url: string, client: Record<string, string>, tokens: string[], duration: number) =>
      b.load.call<LoadResult>('chains', {
        url,
        fields: { grant_type: 'refresh_token', ...client },
        tokens,
        duration,
        maxRequests: duration * 50_000,
      });
    await refresh(b.service.url + TOKEN_PATH, svcClient, await serviceChains(b, app), 2); // warm-up
    const oidcCpu = childMeter(oidc.pid);
    const { svc, base } = await bestOfAlternating(
      async () => {
        const tokens = await serviceChains(b, app);
        return meteredRun(
          b.serviceCpu,
          () => refresh(b.service.url + TOKEN_PATH, svcClient, tokens, b.duration),
          b.postgresCpu,
        );
      },
      async () => {
        const tokens = await oidc.call<string[]>('refreshTokens', CHAINS);
        return meteredRun(oidcCpu, () => refresh(oidcUrl, oidcClient, tokens, b.duration));
      },
    );
    b.log(
      `token refresh: service ${svc.rps.toFixed(0)}/s (${svc.errors} errors), oidc-provider ${base.rps.toFixed(0)}/s`,
    );
    const note = `${CHAINS} chains, each request rotating; baseline oidc-provider v9, memory adapter`;
    rows.push(
      row(
        'token refresh',
        'req/s',
        svc.errors ? null : svc.rps,
        base.rps,
        REFRESH_TARGET,
        svc.errors ? `${svc.errors} errors` : note,
      ),
      row('token refresh p99', 'ms', svc.p99, base.p99),
      row(
        'token refresh CPU/request',
        'ms',
        svc.cpuPerOp ?? null,
        base.cpuPerOp ?? null,
        undefined,
        cpuSplit(svc),
      ),
    );

    // Codes are minted before the clock starts (they live SVC_OAUTH_CODE_TTL=600 s in the bench service).
    const count = Math.min(CODES, b.duration * 200);
    const codes = await inParallel(Array.from({ length: count }), 16, () =>
      authorize(b.api, b.merchant, app),
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
    const svcCodes = await meteredRun(
      b.serviceCpu,
      () => exchange(b.service.url + TOKEN_PATH, svcClient, codes),
      b.postgresCpu,
    );
    const oidcList = await oidc.call<{ code: string; verifier: string }[]>('codes', count);
    const oidcCodes = await meteredRun(oidcCpu, () => exchange(oidcUrl, oidcClient, oidcList));
    b.log(`code exchange: service ${svcCodes.rps.toFixed(0)}/s, oidc-provider ${oidcCodes.rps.toFixed(0)}/s`);
    rows.push(
      row(
        'code exchange',
        'req/s',
        svcCodes.errors ? null : svcCodes.rps,
        oidcCodes.rps,
        undefined,
        svcCodes.errors ? `${svcCodes.errors} errors` : `${count} codes, ${CHAINS} in flight`,
      ),
      row('code exchange p99', 'ms', svcCodes.p99, oidcCodes.p99),
      row(
        'code exchange CPU/request',
        'ms',
        svcCodes.cpuPerOp ?? null,
        oidcCodes.cpuPerOp ?? null,
        undefined,
        cpuSplit(svcCodes),
      ),
    );
    return rows;
  },
};
