// Two access tokens of one installation on the bench merchant's store, for the DPoP row of the public read:
// one plain Bearer, one bound by DPoP (RFC 9449) to an ES256 key whose private half the load generator signs
// each call's proof with. Made once per run and service through the service's real OAuth endpoints.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { authorize, createApp, exchangeCode, REDIRECT_URI } from './api.ts';
import type { Bench } from './bench.ts';

export interface OAuthTokens {
  bearer: string;
  dpop: { accessToken: string; privateJwk: Record<string, string> };
}

const TOKEN = '/api/public/v1/oauth/token';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The access tokens, or why they could not be had (a service without OAuth or DPoP). */
export async function oauthTokens(b: Bench): Promise<OAuthTokens | { missing: string }> {
  const metadata = await b.api.call('GET', '/.well-known/oauth-authorization-server');
  if (!metadata.body?.dpop_signing_alg_values_supported?.includes('ES256')) {
    return { missing: 'feature missing (DPoP)' };
  }
  const app = await createApp(b.api, b.merchant);
  const bearer = await exchangeCode(b.api, app, await authorize(b.api, b.merchant, app));

  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateJwk = pair.privateKey.export({ format: 'jwk' }) as Record<string, string>;
  const { kty, crv, x, y } = privateJwk;
  const input = `${b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })}.${b64({
    jti: randomUUID(),
    htm: 'POST',
    htu: `${b.service.url}${TOKEN}`,
    iat: Math.floor(Date.now() / 1000),
  })}`;
  const signature = sign('sha256', Buffer.from(input), { key: pair.privateKey, dsaEncoding: 'ieee-p1363' });
  const c = await authorize(b.api, b.merchant, app);
  const bound = await b.api.call('POST', TOKEN, {
    headers: { dpop: `${input}.${signature.toString('base64url')}` },
    form: {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      redirect_uri: REDIRECT_URI,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    },
  });
  if (bound.status !== 200 || bound.body?.token_type !== 'DPoP') {
    return { missing: `DPoP exchange answered ${bound.status} ${bound.text.slice(0, 120)}` };
  }
  return { bearer: bearer.access_token, dpop: { accessToken: bound.body.access_token, privateJwk } };
}
