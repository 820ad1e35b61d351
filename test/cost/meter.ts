// The cost meter of test/cost: what one operation sends to the database and asks of node:crypto, counted
// while it runs, and checked against its line of test/cost/budgets.ts.
// Only the operation's own work is counted: the counters (src/db/statement-counter.ts, ./crypto-counter.ts)
// see the whole process, and the meter keeps what happens in the async context of the measured call
// (AsyncLocalStorage), so a background loop's run (a last-use flush, the request log's batch, a sweep) never
// lands in the count, wherever its timer fires. Work the call hands to a timer it starts itself (the recorder's
// one-second batch, a last-use loop's first run) is counted only if it ran before the window closes, which a
// call of a few milliseconds never waits for: each such cost has its own line (the request-log flush).
import { AsyncLocalStorage } from 'node:async_hooks';
import { expect } from 'vitest';
import { countQueries } from '../../src/db/statement-counter.ts';
import { DB_KIND } from '../support/service.ts';
import { budgetOf, BUDGET_FILE, type CostPath, type Figures } from './budgets.ts';
import { countCrypto, CRYPTO_OPS, type CryptoOp } from './crypto-counter.ts';

export interface Tally {
  statements: number;
  roundTrips: number;
  crypto: Partial<Record<CryptoOp, number>>;
  /** The queries sent, in order, for the failure message. */
  queries: string[];
}

interface Window {
  readonly tally: Tally;
  open: boolean;
}

export interface Meter {
  /** Runs `operation` and counts what it sent while it ran. */
  measure<T>(operation: () => Promise<T>): Promise<{ tally: Tally; result: T }>;
  /** Takes the counters off node:crypto and the drivers (once; later calls do nothing). */
  close(): void;
}

/** Lets what the operation started without awaiting it reach the driver: two turns of the event loop. */
const settled = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(() => resolve())));

export function startMeter(): Meter {
  const context = new AsyncLocalStorage<Window>();
  let closed = false;
  const stopQueries = countQueries((sent) => {
    const window = context.getStore();
    if (!window?.open) return;
    window.tally.statements += sent.statements;
    window.tally.roundTrips += sent.roundTrips;
    window.tally.queries.push(sent.text.replace(/\s+/g, ' ').trim().slice(0, 160));
  });
  const stopCrypto = countCrypto((op) => {
    const window = context.getStore();
    if (!window?.open) return;
    window.tally.crypto[op] = (window.tally.crypto[op] ?? 0) + 1;
  });
  return {
    async measure(operation) {
      const window: Window = {
        tally: { statements: 0, roundTrips: 0, crypto: {}, queries: [] },
        open: true,
      };
      try {
        const result = await context.run(window, operation);
        await context.run(window, settled);
        return { tally: window.tally, result };
      } finally {
        window.open = false;
      }
    },
    close() {
      if (closed) return;
      closed = true;
      stopCrypto();
      stopQueries();
    },
  };
}

/** The figures of a tally, in the budget's shape. */
export function figuresOf(tally: Tally): Figures {
  const crypto: Partial<Record<CryptoOp, number>> = {};
  for (const op of CRYPTO_OPS) if (tally.crypto[op] !== undefined) crypto[op] = tally.crypto[op];
  return { statements: tally.statements, roundTrips: tally.roundTrips, crypto };
}

/** One line per count that differs from the budget, over or under. */
export function differences(path: CostPath, budget: Figures, seen: Figures): string[] {
  const lines: string[] = [];
  const compare = (what: string, got: number, allowed: number) => {
    if (got > allowed) lines.push(`${path}: ${got} ${what}, budget ${allowed} (${BUDGET_FILE})`);
    else if (got < allowed)
      lines.push(`${path}: ${got} ${what}, budget ${allowed}: lower the budget to ${got} (${BUDGET_FILE})`);
  };
  compare('statements', seen.statements, budget.statements);
  compare('round trips', seen.roundTrips, budget.roundTrips);
  for (const op of CRYPTO_OPS) compare(`${op} calls`, seen.crypto[op] ?? 0, budget.crypto[op] ?? 0);
  return lines;
}

/**
 * Fails unless every run of the path counted exactly its budget on this database: more is a regression, less
 * a table that no longer says today's figure. Runs that disagree with each other fail first.
 */
export function expectBudget(path: CostPath, runs: readonly Tally[]): void {
  const figures = runs.map(figuresOf);
  const first = figures[0]!;
  const same = figures.every((f) => JSON.stringify(f) === JSON.stringify(first));
  const queries = runs[0]!.queries.map((q) => `\n    ${q}`).join('');
  if (!same) {
    const seen = figures.map((f) => JSON.stringify(f)).join('\n  ');
    expect.fail(`${path}: runs counted differently, the count is not deterministic:\n  ${seen}`);
  }
  const lines = differences(path, budgetOf(path, DB_KIND), first);
  if (lines.length > 0)
    expect.fail(`${lines.join('\n')}\n  queries of the first run (${DB_KIND}):${queries}`);
}
