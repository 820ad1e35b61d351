// Public read: the bearer check on every public call, measured on the cheapest public route against bare
// node:http answering the same bytes. The CPU ratio is the cost of Fastify, authentication and the envelope;
// a second baseline, Fastify alone answering the same bytes, splits that cost into the framework's and ours.
// The target was "at least 0.75 of the bare server's requests per second"; as cost per request that is at
// most 1/0.75 = 1.33x its CPU (both saturate a core on a quiet machine, so the two read alike there, and
// only the CPU keeps its meaning on a busy one).
// Outside --quick, the same rounds also read the route with an installation's access token, once as Bearer
// and once bound by DPoP with a fresh proof per call: what a sender-constrained call costs the service beyond
// a bearer one (the proof's signature check, its jti written once across processes), for information.
import type { LoadResult } from '../drivers/load.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { oauthTokens, type OAuthTokens } from '../lib/dpop.ts';
import { alternate, childMeter, cpuOf, cpuSplit, meteredRun, rates } from '../lib/rounds.ts';

export const CONNECTIONS = 50;
export const READ_PATH = '/api/public/v1/payments/supported-countries';

const ROWS = {
  cpu: {
    name: 'public read CPU/request',
    unit: 'ms',
    about: `GET supported-countries with a publishable key, ${CONNECTIONS} connections; service Node + PostgreSQL CPU`,
    versus: 'bare node:http answering the same bytes',
    target: { of: 'ratio', op: '<=', limit: 1.33 },
  },
  framework: {
    name: 'public read CPU/request vs Fastify alone',
    unit: 'ms',
    about: 'the same rounds against Fastify with no plugin, hook or logger: what the service adds to it',
    versus: 'Fastify alone answering the same bytes',
  },
  dpop: {
    name: 'public read CPU/request, DPoP-bound token',
    unit: 'ms',
    about: `the same GET with a DPoP-bound access token and a fresh ES256 proof per call (signed by the load generator), ${CONNECTIONS} connections`,
    versus: 'the same GET with an unbound access token as Bearer, in the same rounds',
  },
} as const satisfies Record<string, RowSpec>;

/** Warm-up (JIT, the verification cache), then rounds of service, bare server and Fastify alone (and the tokens). */
async function measure(b: Bench, token: string, body: string, oauth?: OAuthTokens) {
  const bare = await b.helper('baselines/bare-http.ts');
  const fastify = await b.helper('baselines/bare-fastify.ts');
  await bare.call('setBody', body);
  await fastify.call('setBody', body);
  const urlOf = (port: unknown) => `http://127.0.0.1:${String(port)}${READ_PATH}`;
  const bearer = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });
  const run = (url: string, duration = b.duration, auth: object = bearer(token)) =>
    b.load.call<LoadResult>('cannon', { url, ...auth, connections: CONNECTIONS, duration });
  const svcUrl = b.service.url + READ_PATH;
  const dpop = oauth && { dpop: { ...oauth.dpop, htu: svcUrl } };
  // The tokens' caches first, so that what runs just before the rounds is as it was without them.
  if (oauth && dpop) for (const auth of [bearer(oauth.bearer), dpop]) await run(svcUrl, 1, auth);
  // The first measure of a run: the service's first second ran at 0.42 ms a call against 0.29 a minute later.
  await run(svcUrl, 4);
  for (const url of [urlOf(bare.info.port), urlOf(fastify.info.port)]) await run(url, 1);
  const service = (auth?: object) => () =>
    meteredRun(b.serviceCpu, () => run(svcUrl, b.duration, auth), b.postgresCpu);
  const sides: Record<string, () => Promise<LoadResult>> = {
    svc: service(),
    base: () => meteredRun(childMeter(bare.pid), () => run(urlOf(bare.info.port))),
    framework: () => meteredRun(childMeter(fastify.pid), () => run(urlOf(fastify.info.port))),
  };
  if (oauth && dpop) Object.assign(sides, { bearer: service(bearer(oauth.bearer)), dpop: service(dpop) });
  const r = await alternate(b, sides);
  return { svc: r.svc!, base: r.base!, framework: r.framework!, bearer: r.bearer, dpop: r.dpop };
}

export const publicRead: Measure = {
  name: 'public-read',
  about: 'the cheapest public route, against bare node:http and Fastify alone',
  rows: Object.values(ROWS),
  quick: [ROWS.cpu.name, ROWS.framework.name],
  async run(b) {
    const keys = await keyPair(b);
    const probe = keys && (await b.api.call('GET', READ_PATH, { token: keys.publishable }));
    if (!keys || !probe || probe.status !== 200) {
      const why = keys
        ? `feature missing (GET ${READ_PATH}: ${probe?.status})`
        : 'feature missing (api keys)';
      return Object.values(ROWS).map((spec) => missing(spec, why));
    }
    const oauth = b.quick ? undefined : await oauthTokens(b);
    const tokens = oauth && !('missing' in oauth) ? oauth : undefined;
    const r = await measure(b, keys.publishable, probe.text, tokens);
    b.log(`public read: ${rates(r.svc, r.base)}; Fastify alone ${rates(r.framework)}`);
    const rows = [
      sampled(ROWS.cpu, cpuOf(r.svc), cpuOf(r.base), `${rates(r.svc, r.base)}; ${cpuSplit(r.svc)}`),
      sampled(ROWS.framework, cpuOf(r.svc), cpuOf(r.framework), `Fastify alone ${rates(r.framework)}`),
    ];
    if (r.dpop && r.bearer) {
      b.log(`public read with DPoP: ${rates(r.dpop, r.bearer)} (Bearer access token)`);
      const note = `${rates(r.dpop, r.bearer)}; ${cpuSplit(r.dpop)}; Bearer token ${cpuSplit(r.bearer)}`;
      rows.push(sampled(ROWS.dpop, cpuOf(r.dpop), cpuOf(r.bearer), note));
    } else if (oauth && 'missing' in oauth) rows.push(missing(ROWS.dpop, oauth.missing));
    return rows;
  },
};
