// `node bench/tools/latest-table.ts [FILE]`: the Markdown of a run (default bench/results/latest.json) with
// the machine it ran on, as pasted into docs/performance.md.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? new URL('../results/latest.json', import.meta.url);
const run = JSON.parse(readFileSync(file, 'utf8')) as {
  at: string;
  seconds: number;
  duration: number;
  machine: { nproc: number; cpu: string; memory_gb: number; node: string; platform: string };
  markdown: string;
};
const m = run.machine;
process.stdout.write(
  `Run of ${run.at.slice(0, 16).replace('T', ' ')} UTC, \`npm run bench\` (${run.duration} s per load run, ` +
    `${run.seconds} s in all), on ${m.nproc} vCPUs (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}, ` +
    `PostgreSQL 15, ${m.platform}.\n\n${run.markdown}\n`,
);
