// `node bench/tools/profile-top.ts FILE.cpuprofile [N] [LAST_S]`: the functions with the most self time in a
// V8 CPU profile written by `npm run bench -- --profile`, and the share of each source package; with LAST_S,
// only the profile's last LAST_S seconds (the load of a single measure rather than startup and seeding).
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, n = '30', last] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/tools/profile-top.ts FILE.cpuprofile [N] [LAST_S]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
const packages = new Map<string, number>();
let total = 0;
const span = profile.timeDeltas.reduce((sum, dt) => sum + dt, 0);
const from = last === undefined ? 0 : span - Number(last) * 1e6;
let at = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (at < from) return;
  const frame = byId.get(id)!.callFrame;
  const url = frame.url.replace(/^file:\/\/.*?\/(node_modules|src)\//, '$1/');
  const key = `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + dt);
  const pkg =
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
    (url.startsWith('src/') ? 'src' : url ? 'node:internal' : frame.functionName);
  packages.set(pkg, (packages.get(pkg) ?? 0) + dt);
  total += dt;
});
const top = (map: Map<string, number>, count: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
process.stdout.write(
  `${(total / 1e6).toFixed(1)} s sampled\n\nby package:\n${top(packages, 15)}\n\nby function (self):\n${top(self, Number(n))}\n`,
);
