// The test receiver's record of attempts in flight at once, which the delivery tests assert on. A sender in
// another process sends one webhook-id twice, 400 ms apart, while this process (the receiver's) is stalled:
// the receiver reads both requests in one go. A first request whose sender gave up before the second was
// sent is not in flight with it; one whose sender still waits is.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { startReceiver, type Overlap } from './receiver.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-receiver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Sends with undici, as the service does: the first request (abandoned after 200 ms if `give-up`), the second
// 400 ms later, and creates the marker file 100 ms after that, when both are on the wire.
const SENDER = `
const { request } = require(${JSON.stringify(fileURLToPath(import.meta.resolve('undici')))});
const [url, mode, marker] = process.argv.slice(1);
const send = (signal) => request(url, { method: 'POST', headers: { 'webhook-id': 'msg_1' }, body: '{}', signal })
  .then((r) => r.body.text(), () => {});
const first = send(mode === 'give-up' ? AbortSignal.timeout(200) : undefined);
setTimeout(() => {
  const second = send();
  setTimeout(() => require('node:fs').writeFileSync(marker, ''), 100);
  Promise.all([first, second]).then(() => process.exit(0));
}, 400);
`;

async function sendTwiceWhileStalled(mode: 'give-up' | 'wait'): Promise<Overlap[]> {
  const rx = await startReceiver(() => ({ status: 200, delayMs: 1000 }));
  try {
    const marker = join(dir, mode);
    const child = spawn(process.execPath, ['-e', SENDER, `${rx.url}/hook`, mode, marker], {
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const until = Date.now() + 10_000;
    while (!existsSync(marker) && Date.now() < until) {
      // stalled: the receiver reads nothing until both requests were sent
    }
    expect(existsSync(marker)).toBe(true);
    await exited;
    expect(rx.received).toHaveLength(2);
    return rx.overlaps;
  } finally {
    await rx.close();
  }
}

it('does not count a retry read late together with the attempt that gave up before it', async () => {
  expect(await sendTwiceWhileStalled('give-up')).toEqual([]);
});

it('counts two requests of one webhook-id whose senders both wait as two at once', async () => {
  const overlaps = await sendTwiceWhileStalled('wait');
  expect(overlaps).toHaveLength(1);
  expect(overlaps[0]).toMatchObject({
    webhookId: 'msg_1',
    arrivedAt: [expect.any(Number), expect.any(Number)],
  });
});
