// Calls of the webhook system tests against service processes (test/support/processes.ts).
import { call, INTERNAL_TOKEN } from '../support/processes.ts';
import { sampleData } from '../../src/modules/events/index.ts';

const order = sampleData('order.created');

export { call, INTERNAL_TOKEN, killAll, startProcess, type ServiceProcess } from '../support/processes.ts';

/** A merchant signed up through `base`, with a webhook to `url` for order.created. */
export async function merchantWithWebhook(base: string, url: string) {
  const signup = await call<{ token: string; merchant: { id: string } }>(
    base,
    '/api/v1/merchant/auth/signup',
    {
      method: 'POST',
      body: { merchant_name: 'System', email: `sys-${Date.now()}@example.com`, password: 'long enough pw' },
    },
  );
  const token = signup.data.token;
  const hook = await call<{ id: string; secret: string }>(base, '/api/v1/merchant/webhooks', {
    method: 'POST',
    token,
    body: { url, events: ['order.created'] },
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status}`);
  return { token, merchantId: signup.data.merchant.id, webhookId: hook.data.id, secret: hook.data.secret };
}

/** Ingests `count` events through the given processes in turn, `concurrency` at a time; their ids. */
export async function emitMany(bases: string[], merchantId: string, count: number, concurrency = 16) {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let n = next++; n < count; n = next++) {
        const res = await fetch(`${bases[n % bases.length]}/internal/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            merchant_id: merchantId,
            mode: 'test',
            type: 'order.created',
            data: { ...order, n },
          }),
        });
        if (res.status !== 202) throw new Error(`emit ${n}: ${res.status} ${await res.text()}`);
        ids.push(((await res.json()) as { data: { id: string } }).data.id);
      }
    }),
  );
  return ids;
}
