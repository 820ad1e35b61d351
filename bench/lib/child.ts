// Helper processes of the benchmark (load drivers, baselines, the webhook receiver) run as separate Node
// processes so that none shares an event loop with what it measures; they answer calls over the IPC channel.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Call {
  id: number;
  type: string;
  payload: unknown;
}
interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface Child {
  readonly pid: number;
  /** What the child sent when it was ready (a port, for servers). */
  readonly info: Record<string, unknown>;
  call<T = unknown>(type: string, payload?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** Forks `bench/<relative>` and waits for its `ready` message. */
export async function startChild(relative: string, env: Record<string, string> = {}): Promise<Child> {
  const script = fileURLToPath(new URL(`../${relative}`, import.meta.url));
  const proc: ChildProcess = fork(script, [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', process.stderr, 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 1;
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${relative} exited (${code}) before ready`));
    proc.once('exit', onExit);
    proc.once('message', (msg: { ready?: Record<string, unknown> }) => {
      proc.off('exit', onExit);
      resolve(msg.ready ?? {});
    });
  });
  proc.on('message', (msg: Reply) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new Error(`${relative}: ${msg.error}`));
  });
  proc.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`${relative} exited (${code})`));
    pending.clear();
  });
  return {
    pid: proc.pid!,
    info,
    call<T>(type: string, payload?: unknown) {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: (v) => resolve(v as T), reject });
        proc.send({ id, type, payload } satisfies Call);
      });
    },
    stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        proc.kill('SIGTERM');
      });
    },
  };
}

type Handler = (payload: any) => unknown;

/** The child side: announce readiness, then answer calls by type. Exits when the parent goes away. */
export function serveCalls(ready: Record<string, unknown>, handlers: Record<string, Handler>): void {
  process.on('message', (msg: Call) => {
    const handler = handlers[msg.type];
    void (async () => {
      try {
        if (!handler) throw new Error(`unknown call ${msg.type}`);
        const result = await handler(msg.payload);
        process.send!({ id: msg.id, ok: true, result } satisfies Reply);
      } catch (err) {
        process.send!({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.send!({ ready });
}
