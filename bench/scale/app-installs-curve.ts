// An installed store's event against the number of installations (API.md section 11.1, the "Scale"):
// one merchant installed one app (through the consent endpoints) among N installations of the same app and
// N of N other apps by other stores, seeded straight into the database. The fan-out reads the merchant's own
// grants and each granted app's webhooks by index, so the time to record the event and its one delivery
// should stay flat however many stores installed the app or other apps.
import { request } from 'undici';
import { authorize } from '../lib/api.ts';
import { appWithWebhook, seedInstallations } from '../lib/apps.ts';
import { nowMs, summarise } from '../lib/stats.ts';
import { receiver, waitFor } from '../lib/webhooks.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import type { Curve, Point } from './curve.ts';

const SIZES = [1_000, 10_000, 100_000, 1_000_000];
const ROUNDS = 20;

export const appInstallsCurve: Curve = {
  name: 'app-installs',
  async run(b, sizes) {
    const chosen = sizes(SIZES);
    const rx = await receiver(b);
    const developer = await b.api.signup('Scale app developer');
    const app = await appWithWebhook(b.api, developer, `${rx.url}/scale-app`, 'product.created');
    const other = await appWithWebhook(b.api, developer, `${rx.url}/scale-other`, 'customer.created');
    const shop = await b.api.signup('Scale installed shop');
    await authorize(b.api, shop, app);
    const points: Point[] = [];
    let seeded = 0;
    for (const size of chosen) {
      // Up to `size` installations of the app, and as many of another app (other stores, other apps' hooks).
      await seedInstallations(b.cluster.url('svc'), app.id, size - seeded);
      await seedInstallations(b.cluster.url('svc'), other.id, size - seeded);
      seeded = size;
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const before = (await rx.child.call<{ received: number }>('count')).received;
        const t0 = nowMs();
        const res = await request(`${b.service.url}/internal/v1/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${b.service.internalToken}`,
          },
          body: JSON.stringify({
            merchant_id: shop.merchantId,
            mode: 'test',
            type: 'product.created',
            data: { ...sampleData('product.created'), id: `prod_${size}_${round}` },
          }),
        });
        const body = (await res.body.json()) as { data?: { deliveries?: number } };
        times.push(nowMs() - t0);
        if (res.statusCode !== 202 || body.data?.deliveries !== 1)
          throw new Error(`at ${size} installs: ${res.statusCode}, ${body.data?.deliveries} deliveries`);
        await waitFor(
          async () => (await rx.child.call<{ received: number }>('count')).received - before,
          1,
          30_000,
          20,
        );
      }
      const s = summarise(times);
      b.log(`scale app installs ${size}: p50 ${s.p50.toFixed(1)} ms, max ${s.max.toFixed(1)} ms`);
      points.push({ size, value: s.p50, detail: `median of ${ROUNDS}, max ${s.max.toFixed(1)} ms` });
    }
    return [
      {
        name: "an installed store's event, ingestion answer",
        unit: 'ms',
        of: "installations of the app (and as many of another app's)",
        flat: true,
        lowerIsBetter: true,
        points,
        skipped: SIZES.filter((s) => !chosen.includes(s)),
      },
    ];
  },
};
