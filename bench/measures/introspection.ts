// Introspection (RFC 7662) as a platform service calls it on every request it serves: the internal token as
// Bearer, the credential in a form body, for each credential kind, against bare node:http reading the same
// form and answering the same bytes. The ratio is the cost of Fastify, the form parser, the internal-token
// check and the cached verification; a warm credential costs no database query.
import type { LoadResult } from '../drivers/load.ts';
import { authorize, createApp, exchangeCode } from '../lib/api.ts';
import { missing, row, type Bench, type Measure, type Row } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { bestOfAlternating, childMeter, cpuSplit, meteredRun, ROUNDS } from '../lib/rounds.ts';
import { CONNECTIONS } from './public-read.ts';

const PATH = '/api/public/v1/oauth/introspect';
const TARGET = { of: 'ratio', op: '>=', limit: 0.6 } as const;
type Kind = 'secret key' | 'publishable key' | 'access token';
const KINDS: readonly Kind[] = ['secret key', 'publishable key', 'access token'];

async function credentials(b: Bench): Promise<Record<Kind, string> | undefined> {
  const keys = await keyPair(b);
  if (!keys) return undefined;
  const app = await createApp(b.api, b.merchant);
  const tokens = await exchangeCode(b.api, app, await authorize(b.api, b.merchant, app));
  return {
    'secret key': keys.secret,
    'publishable key': keys.publishable,
    'access token': tokens.access_token,
  };
}

async function measureKind(b: Bench, kind: Kind, token: string): Promise<Row[]> {
  const name = `introspection, ${kind}`;
  const headers = {
    authorization: `Bearer ${b.service.internalToken}`,
    'content-type': 'application/x-www-form-urlencoded',
  };
  const body = new URLSearchParams({ token }).toString();
  const probe = await b.api.call('POST', PATH, { headers, form: { token } });
  if (probe.status !== 200 || probe.body?.active !== true) {
    return [missing(name, 'req/s', `probe answered ${probe.status} ${probe.text.slice(0, 80)}`, TARGET)];
  }
  const bare = await b.helper('baselines/bare-http.ts');
  await bare.call('setIntrospectionBody', probe.text);
  const bareUrl = `http://127.0.0.1:${String(bare.info.port)}${PATH}`;
  const run = (url: string, duration = b.duration) =>
    b.load.call<LoadResult>('cannon', {
      url,
      method: 'POST',
      headers,
      body,
      connections: CONNECTIONS,
      duration,
    });

  await run(b.service.url + PATH, 2); // warm-up: JIT and the verification caches
  const { svc, base } = await bestOfAlternating(
    () => meteredRun(b.serviceCpu, () => run(b.service.url + PATH), b.postgresCpu),
    () => meteredRun(childMeter(bare.pid), () => run(bareUrl)),
  );
  b.log(`${name}: service ${svc.rps.toFixed(0)} req/s (${svc.errors} errors), bare ${base.rps.toFixed(0)}`);
  const note = `${CONNECTIONS} connections, best of ${ROUNDS} ${b.duration} s rounds, internal token`;
  return [
    row(
      name,
      'req/s',
      svc.errors > svc.total / 100 ? null : svc.rps,
      base.rps,
      TARGET,
      svc.errors ? `${note}; ${svc.errors} non-2xx/errors` : note,
    ),
    row(`${name} p99`, 'ms', svc.p99, base.p99),
    row(`${name} CPU/request`, 'ms', svc.cpuPerOp ?? null, base.cpuPerOp ?? null, undefined, cpuSplit(svc)),
  ];
}

export const introspection: Measure = {
  name: 'introspection',
  async run(b) {
    const landed = await b.api.call('POST', PATH, { form: {} });
    const creds = landed.status === 404 ? undefined : await credentials(b);
    if (!creds) {
      const why = landed.status === 404 ? 'feature missing (introspection)' : 'feature missing (api keys)';
      return KINDS.map((kind) => missing(`introspection, ${kind}`, 'req/s', why, TARGET));
    }
    const rows: Row[] = [];
    for (const kind of KINDS) rows.push(...(await measureKind(b, kind, creds[kind])));
    return rows;
  },
};
