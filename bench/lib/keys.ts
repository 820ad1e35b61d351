// The key pair of the public measures, made once per run and service through the merchant API.
import type { Bench } from './bench.ts';

export interface KeyPair {
  publishable: string;
  secret: string;
}

// By service: the embedded measure runs the public measures on a service of its own.
const pairs = new Map<string, Promise<KeyPair | undefined>>();

/** `undefined` while the keys feature has not landed. */
export function keyPair(b: Bench): Promise<KeyPair | undefined> {
  let pair = pairs.get(b.service.url);
  if (pair) return pair;
  pair = (async () => {
    const res = await b.api.call('POST', '/api/v1/merchant/api-keys', {
      token: b.merchant.token,
      body: { name: 'bench' },
    });
    if (res.status === 404) return undefined;
    if (res.status !== 201) throw new Error(`creating a key pair: ${res.status} ${res.text.slice(0, 200)}`);
    return { publishable: res.body.data.publishable_key, secret: res.body.data.secret_key };
  })();
  pairs.set(b.service.url, pair);
  return pair;
}
