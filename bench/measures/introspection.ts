// Introspection (RFC 7662) as a platform service calls it on every request it serves: the internal token as
// Bearer, the credential in a form body, for each credential kind, against bare node:http reading the same
// form and answering the same bytes. The ratio is the cost of Fastify, the form parser, the internal-token
// check and the cached verification; a warm credential costs no database query. One bare side serves the
// three kinds (their answers differ by a few bytes), so a round is four runs, not six. The target, at least
// 0.6 of the bare server's requests per second, read as cost: at most 1/0.6 = 1.67x its CPU per request.
import type { LoadResult } from '../drivers/load.ts';
import { authorize, createApp, exchangeCode } from '../lib/api.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { alternate, childMeter, cpuOf, cpuSplit, meteredRun, rates } from '../lib/rounds.ts';
import { CONNECTIONS } from './public-read.ts';

const PATH = '/api/public/v1/oauth/introspect';
const KINDS = ['secret key', 'publishable key', 'access token'] as const;
type Kind = (typeof KINDS)[number];

const spec = (kind: Kind): RowSpec => ({
  name: `introspection CPU/request, ${kind}`,
  unit: 'ms',
  about: `POST introspect with the internal token, ${kind === 'access token' ? 'an' : 'a'} ${kind} in the form, ${CONNECTIONS} connections`,
  versus: 'bare node:http reading the form and answering the same bytes',
  target: { of: 'ratio', op: '<=', limit: 1.67 },
});
const ROWS = KINDS.map(spec);

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

export const introspection: Measure = {
  name: 'introspection',
  about: 'RFC 7662 introspection of each credential kind, against bare node:http',
  rows: ROWS,
  quick: true,
  async run(b) {
    const landed = await b.api.call('POST', PATH, { form: {} });
    const creds = landed.status === 404 ? undefined : await credentials(b);
    if (!creds) {
      const why = landed.status === 404 ? 'feature missing (introspection)' : 'feature missing (api keys)';
      return ROWS.map((s) => missing(s, why));
    }
    const headers = {
      authorization: `Bearer ${b.service.internalToken}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    const bodies = KINDS.map((kind) => new URLSearchParams({ token: creds[kind] }).toString());
    const answers: string[] = [];
    for (const kind of KINDS) {
      const probe = await b.api.call('POST', PATH, { headers, form: { token: creds[kind] } });
      if (probe.status !== 200 || probe.body?.active !== true) {
        return ROWS.map((s) =>
          missing(s, `${kind}: probe answered ${probe.status} ${probe.text.slice(0, 80)}`),
        );
      }
      answers.push(probe.text);
    }
    const bare = await b.helper('baselines/bare-http.ts');
    await bare.call('setIntrospectionBody', answers[0]);
    const bareUrl = `http://127.0.0.1:${String(bare.info.port)}${PATH}`;
    const run = (url: string, body: string, duration = b.duration) =>
      b.load.call<LoadResult>('cannon', {
        url,
        method: 'POST',
        headers,
        body,
        connections: CONNECTIONS,
        duration,
      });
    const svc = (i: number) => () =>
      meteredRun(b.serviceCpu, () => run(b.service.url + PATH, bodies[i]!), b.postgresCpu);
    for (const body of bodies) await run(b.service.url + PATH, body, 1); // JIT and the verification caches
    await run(bareUrl, bodies[0]!, 1);
    const r = await alternate(b, {
      k0: svc(0),
      k1: svc(1),
      k2: svc(2),
      base: () => meteredRun(childMeter(bare.pid), () => run(bareUrl, bodies[0]!)),
    });
    const sides = [r.k0, r.k1, r.k2];
    b.log(
      `introspection: ${KINDS.map((k, i) => `${k} ${rates(sides[i]!)}`).join(', ')}; bare ${rates(r.base)}`,
    );
    return KINDS.map((_, i) =>
      sampled(
        ROWS[i]!,
        cpuOf(sides[i]!),
        cpuOf(r.base),
        `${rates(sides[i]!, r.base)}; ${cpuSplit(sides[i]!)}`,
      ),
    );
  },
};
