// Memory: the service's peak resident set over the run (VmRSS polled every 200 ms), sampled once per round:
// round k's figure is the peak over round k of every measure and over everything done once (set-ups,
// seeding, warm-ups), so the largest of them is the run's polled peak; the kernel's VmHWM, which also sees
// spikes between two polls, is in the note. It includes the load peaks, the fan-outs and the audit pages.
import { sampled, type Measure, type RowSpec } from '../lib/bench.ts';

const ROW = {
  name: 'memory peak RSS',
  unit: 'MB',
  about:
    "the service process's peak resident set over the run's one-time work and each round of every measure",
  target: { of: 'value', op: '<=', limit: 250 },
} as const satisfies RowSpec;

export const memory: Measure = {
  name: 'memory',
  about: 'the peak resident set of the service over the measures before it',
  rows: [ROW],
  async run(b) {
    return [sampled(ROW, b.service.roundPeaksMb(), [], `VmHWM ${b.service.peakRssMb().toFixed(0)} MB`)];
  },
};
