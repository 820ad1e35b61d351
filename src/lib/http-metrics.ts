// The two metrics of every HTTP answer, `svc_http_requests_total` and `svc_http_request_duration_seconds`, by
// route pattern, method and status class, kept as plain numbers and read by prom-client's registry only on a
// scrape. prom-client's own Counter and Histogram hash and validate their labels on every call, bound
// children included: 3.8% of the public read's CPU, the largest of its per-request steps after the request
// log (docs/decisions/0220-public-contract-in-one-step.md). The text they scrape to is prom-client's own.
import type { Registry } from 'prom-client';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

interface Series {
  readonly labels: { route: string; method: string; status_class: string };
  count: number;
  sum: number;
  /** Answers per bucket, not cumulative: `buckets[i]` counts those up to DURATION_BUCKETS[i], above the one before. */
  readonly buckets: number[];
}

interface Value {
  value: number;
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  metricName?: string;
}

// What prom-client's registry reads of a metric (`registerMetric`, then `get` on a scrape).
interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Value[]; aggregator: 'sum' }>;
  reset(): void;
}

export class HttpMetrics {
  /** By `method route`: the series of each status class, made on its first answer. */
  private readonly byRoute = new Map<string, (Series | undefined)[]>();

  constructor(registry: Registry) {
    const metric = (name: string, help: string, type: Collected['type'], values: () => Value[]) => {
      const m: Collected = {
        name,
        help,
        type,
        aggregator: 'sum',
        get: () => Promise.resolve({ name, help, type, values: values(), aggregator: 'sum' }),
        reset: () => this.byRoute.clear(),
      };
      registry.registerMetric(m as never);
    };
    metric(
      'svc_http_requests_total',
      'HTTP requests answered, by route pattern, method and status class.',
      'counter',
      () => this.series().map((s) => ({ value: s.count, labels: s.labels })),
    );
    metric(
      'svc_http_request_duration_seconds',
      'Time from request to answer, by route pattern, method and status class.',
      'histogram',
      () => this.series().flatMap((s) => histogramValues(s)),
    );
  }

  /** Counts one answer. `route` is the route's pattern (`/api/public/v1/carts/:id`), never the raw URL. */
  observe(route: string, method: string, status: number, seconds: number): void {
    const key = method + ' ' + route;
    let classes = this.byRoute.get(key);
    if (classes === undefined)
      this.byRoute.set(key, (classes = [undefined, undefined, undefined, undefined, undefined]));
    const c = Math.min(Math.max(Math.floor(status / 100) - 1, 0), 4);
    const s = (classes[c] ??= {
      labels: { route, method, status_class: STATUS_CLASSES[c]! },
      count: 0,
      sum: 0,
      buckets: DURATION_BUCKETS.map(() => 0),
    });
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      if (seconds <= DURATION_BUCKETS[i]!) {
        s.buckets[i]!++;
        break;
      }
    }
  }

  private series(): Series[] {
    const all: Series[] = [];
    for (const classes of this.byRoute.values()) for (const s of classes) if (s) all.push(s);
    return all;
  }
}

/** A series as prom-client writes a histogram's: cumulative buckets, +Inf, sum, count. */
function histogramValues(s: Series): Value[] {
  const name = 'svc_http_request_duration_seconds';
  let below = 0;
  const values: Value[] = DURATION_BUCKETS.map((le, i) => {
    below += s.buckets[i]!;
    return { value: below, labels: { le }, sharedLabels: s.labels, metricName: `${name}_bucket` };
  });
  values.push(
    { value: s.count, labels: { le: '+Inf' }, sharedLabels: s.labels, metricName: `${name}_bucket` },
    { value: s.sum, labels: {}, sharedLabels: s.labels, metricName: `${name}_sum` },
    { value: s.count, labels: {}, sharedLabels: s.labels, metricName: `${name}_count` },
  );
  return values;
}
