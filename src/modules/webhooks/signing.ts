// Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` holds `v1,<base64
// HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed by the bytes of the secret after `whsec_`; during a
// rotation overlap it holds one entry per live secret, space-separated, which receivers accept if any matches.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a `whsec_` secret: its base64 part, decoded. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function signatureHeader(
  keys: readonly Buffer[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return keys
    .map((key) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}

export interface SignedHeaders {
  'content-type': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'user-agent': string;
}

export function signedHeaders(keys: readonly Buffer[], id: string, body: string, now: Date): SignedHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(keys, id, timestamp, body),
    'user-agent': 'svc-webhooks/1',
  };
}
