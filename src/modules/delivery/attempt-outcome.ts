// What an attempt met, as the attempts list shows and filters it (API.md section 12.2): the metrics' class of
// the attempt (src/lib/metrics.ts) in the contract's words, so that the two never disagree.
import { attemptOutcome } from '../../lib/metrics.ts';
import type { AttemptOutcome } from './delivery.table.ts';

export function outcomeOf(status: number | null, error: string | null): AttemptOutcome {
  const metric = attemptOutcome(status, error);
  switch (metric) {
    case '2xx':
      // the metrics count a (never final) 1xx with the 2xx; only a 2xx is a success (API.md section 7)
      return status !== null && status >= 200 ? 'succeeded' : 'failed';
    case '3xx':
    case '4xx':
    case '5xx':
      return 'failed';
    case 'timeout':
      return 'timeout';
    case 'ssrf_refused':
      return 'refused';
    case 'network':
      return 'network_error';
  }
}
