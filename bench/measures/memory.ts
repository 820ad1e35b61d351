// Memory: the service's peak resident set over every measure of the run (VmHWM from /proc, and VmRSS polled
// every 200 ms), so it includes the load peaks, the 1,000-webhook fan-out and the audit pages.
import { row, type Measure } from '../lib/bench.ts';

export const memory: Measure = {
  name: 'memory',
  async run(b) {
    const peak = b.service.peakRssMb();
    return [
      row(
        'memory peak RSS',
        'MB',
        peak || null,
        null,
        { of: 'value', op: '<=', limit: 250 },
        'service process, whole run',
      ),
    ];
  },
};
