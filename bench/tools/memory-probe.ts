// Loaded into the service with `--import` under `npm run bench -- --profile`: every 250 ms it appends the
// process's memory breakdown to $BENCH_MEMORY_LOG, so a high resident set can be traced to the V8 heap,
// Buffers or native memory. It changes nothing in the service.
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.BENCH_MEMORY_LOG;
if (file) {
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.space_size / 2 ** 20)]),
    );
    const mb = (n: number) => Math.round(n / 2 ** 20);
    appendFileSync(
      file,
      `${JSON.stringify({
        t: Date.now(),
        rss: mb(m.rss),
        heapTotal: mb(m.heapTotal),
        heapUsed: mb(m.heapUsed),
        external: mb(m.external),
        arrayBuffers: mb(m.arrayBuffers),
        spaces,
      })}\n`,
    );
  }, 250);
  timer.unref();
}
