// The webhook receiver of the delivery measures: node:http answering 204 once it has read the body, as a
// receiver that verifies and stores would. It records the first receipt time of each event id.
import { createServer } from 'node:http';
import { serveCalls } from '../lib/child.ts';
import { nowMs } from '../lib/stats.ts';

let received = 0;
let receipts = new Map<string, number>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = nowMs();
    received++;
    const id = req.headers['webhook-id'];
    if (typeof id === 'string' && !receipts.has(id)) receipts.set(id, at);
    res.writeHead(204).end();
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
        return null;
      },
      count: () => ({ received, distinct: receipts.size }),
      /** Receipt times of the events whose id starts with `prefix`. */
      receipts(prefix: string) {
        const out: Record<string, number> = {};
        for (const [id, at] of receipts) if (id.startsWith(prefix)) out[id] = at;
        return out;
      },
    },
  );
});
