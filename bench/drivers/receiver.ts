// The webhook receiver of the delivery measures: node:http answering 204 once it has read the body, as a
// receiver that verifies and stores would. It records the first successful receipt time of each event id,
// and how many times each was answered 2xx (at-least-once shows as more than one).
// The path decides the answer: under `/flaky/`, the first attempt of every tenth new event id is answered
// 500 (retries in play); under `/slow/`, every answer waits 50 ms (attempts in flight when a process is
// killed); under `/capped/<n>`, at most CAP requests a path are answered 204 in any one second and the rest
// 429 (a receiver that takes 100/s), each answer's time kept; anything else is answered at once. Event ids
// can choose too (`behave`): pipelines started once, each with one webhook, then serve every kind of run.
import { createServer } from 'node:http';
import { serveCalls } from '../lib/child.ts';
import { nowMs } from '../lib/stats.ts';

const FAIL_EVERY = 10;
const SLOW_MS = 50;
const CAP = 100;

let received = 0;
let receipts = new Map<string, number>();
let successes = new Map<string, number>();
let failedOnce = new Set<string>();
let firstSeen = 0;
// `/capped/<n>`, by path: the times of the answers of the last second that were 204, and every answer (204
// or 429), when and to which event id.
let cappedWindow = new Map<string, number[]>();
let cappedAnswers = new Map<string, { at: number; ok: boolean; id: string }[]>();
/** Event id prefixes answered as under `/flaky/` or `/slow/`, whatever the path. */
let behaviours: { prefix: string; as: 'flaky' | 'slow' }[] = [];

function cappedTakes(path: string, at: number, id: string): boolean {
  const window = cappedWindow.get(path) ?? [];
  while (window.length > 0 && at - window[0]! >= 1000) window.shift();
  const ok = window.length < CAP;
  if (ok) window.push(at);
  cappedWindow.set(path, window);
  const answers = cappedAnswers.get(path) ?? [];
  answers.push({ at, ok, id });
  cappedAnswers.set(path, answers);
  return ok;
}

function behaves(as: 'flaky' | 'slow', path: string, id: string): boolean {
  return path.startsWith(`/${as}/`) || behaviours.some((b) => b.as === as && id.startsWith(b.prefix));
}

function failsNow(path: string, id: string): boolean {
  if (!behaves('flaky', path, id) || successes.has(id) || failedOnce.has(id)) return false;
  if (++firstSeen % FAIL_EVERY !== 0) return false;
  failedOnce.add(id);
  return true;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = nowMs();
    received++;
    const id = req.headers['webhook-id'];
    const path = req.url ?? '/';
    if (typeof id === 'string' && failsNow(path, id)) {
      res.writeHead(500).end();
      return;
    }
    if (path.startsWith('/capped/') && !cappedTakes(path, at, String(id))) {
      res.writeHead(429).end();
      return;
    }
    const answer = () => {
      if (typeof id === 'string') {
        if (!receipts.has(id)) receipts.set(id, at);
        successes.set(id, (successes.get(id) ?? 0) + 1);
      }
      res.writeHead(204).end();
    };
    if (behaves('slow', path, String(id))) setTimeout(answer, SLOW_MS);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  serveCalls(
    { port },
    {
      reset() {
        received = 0;
        receipts = new Map();
        successes = new Map();
        failedOnce = new Set();
        firstSeen = 0;
        cappedWindow = new Map();
        cappedAnswers = new Map();
        behaviours = [];
        return null;
      },
      /** Events whose id starts with `prefix` are answered as under `/${as}/`. */
      behave({ prefix, as }: { prefix: string; as: 'flaky' | 'slow' }) {
        behaviours.push({ prefix, as });
        return null;
      },
      /** Every answer on a `/capped/` path so far: when, whether it was 204 (else 429), to which event id. */
      capped: (path: string) => cappedAnswers.get(path) ?? [],
      count: () => ({ received, distinct: receipts.size }),
      /** First successful receipt times of the events whose id starts with `prefix`. */
      receipts(prefix: string) {
        const out: Record<string, number> = {};
        for (const [id, at] of receipts) if (id.startsWith(prefix)) out[id] = at;
        return out;
      },
      /** Of the events whose id starts with `prefix`: how many succeeded, and the 2xx answers past the first. */
      delivered(prefix: string) {
        let distinct = 0;
        let duplicates = 0;
        let last = 0;
        for (const [id, n] of successes) {
          if (!id.startsWith(prefix)) continue;
          distinct++;
          duplicates += n - 1;
          last = Math.max(last, receipts.get(id)!);
        }
        return { distinct, duplicates, last };
      },
    },
  );
});
