// Request ids (API.md section 1): the client's X-Request-Id when it is a plain token of at most 64
// characters, else one of ours, `req_` and 32 hex digits. Ours are a random prefix drawn once per app and a
// counter: unique across processes (64 random bits each) and free to make, where randomUUID per request
// was 1.1% of the public read's CPU (docs/decisions/0220-public-contract-in-one-step.md). An id is a
// handle for support, not a secret: that it counts up tells nobody anything they could use.
import { randomBytes } from 'node:crypto';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The request id of each request of one app, from its `X-Request-Id` header. */
export function requestIds(): (raw: unknown) => string {
  const prefix = `req_${randomBytes(8).toString('hex')}`;
  let next = 0;
  return (raw) => {
    if (typeof raw === 'string' && REQUEST_ID.test(raw)) return raw;
    next++;
    return prefix + next.toString(16).padStart(16, '0');
  };
}
