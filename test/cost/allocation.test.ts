// What one public read allocates on V8's heap, averaged over 10,000 calls in this process, held under its
// ceiling in test/cost/budgets.ts. Allocated bytes are what the collections freed during the calls (each
// GC's used heap before minus after, from v8.GCProfiler) plus what the heap grew by between the first call and
// the last. The calls go through `app.inject`: no socket, so the figure is the service's work and
// light-my-request's fake request and response, with nothing of a client's; a listening server and undici
// would add the client's allocations, in this same process, to the figure.
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { bearer, createKey } from '../api-keys/keys.ts';
import { ALLOCATION, BUDGET_FILE } from './budgets.ts';

// JIT and caches settle within a few hundred calls; these are not counted.
const WARM_UP = 1_000;
// 11,000 calls take 10-15 s on a quiet two-core machine, and three times that on a loaded one.
const TIMEOUT_MS = 180_000;

let svc: TestService;
let headers: Record<string, string>;
beforeAll(async () => {
  svc = await startTestService();
  const merchant = await signupMerchant(svc.app);
  headers = bearer((await createKey(svc.app, merchant)).secret_key);
});
afterAll(async () => svc?.close());

/**
 * A full collection before the count, so that garbage made before it is not freed (and counted) during it.
 * The flag exposes `gc` to contexts made from now on: the one made here, not this one.
 */
function collect(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

async function read(): Promise<void> {
  const res = await svc.app.inject({ url: '/api/public/v1/payments/supported-countries', headers });
  if (res.statusCode !== 200) throw new Error(`public read: ${res.statusCode} ${res.body}`);
}

it(
  `${ALLOCATION.path} allocates at most its ceiling per call`,
  async () => {
    for (let i = 0; i < WARM_UP; i++) await read();
    collect();
    const profiler = new v8.GCProfiler();
    profiler.start();
    const before = v8.getHeapStatistics().used_heap_size;
    for (let i = 0; i < ALLOCATION.calls; i++) await read();
    const after = v8.getHeapStatistics().used_heap_size;
    const { statistics } = profiler.stop();
    const freed = statistics.reduce(
      (sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize,
      0,
    );
    const perCall = Math.round((freed + after - before) / ALLOCATION.calls);
    const { ceiling } = ALLOCATION;
    console.log(
      `${ALLOCATION.path} (${DB_KIND}): ${perCall} bytes allocated per call over ${ALLOCATION.calls} calls, ` +
        `${statistics.length} collections; today ${ALLOCATION.today}, ceiling ${ceiling}`,
    );
    if (perCall * ALLOCATION.margin < ALLOCATION.today)
      console.warn(
        `${ALLOCATION.path}: ${perCall} bytes per call, well under today's ${ALLOCATION.today}: lower it`,
      );
    expect(
      perCall,
      `${ALLOCATION.path}: ${perCall} bytes allocated per call, ceiling ${ceiling} (${BUDGET_FILE})`,
    ).toBeLessThanOrEqual(ceiling);
  },
  TIMEOUT_MS,
);
