// The bench's verdicts: a row is judged by the spread of its rounds, never by one figure. Rounds wholly on
// the good side of the target are `met`, wholly on the bad side `short`, and rounds that straddle it are
// `undecided`, whichever side the median falls on. And every row that can be short or undecided has its
// "what bounds it" line in bench/bounds.ts, which docs/performance.md prints. No service, no database.
import { describe, expect, it } from 'vitest';
import { BOUNDS } from '../../bench/bounds.ts';
import { MEASURES } from '../../bench/measures/index.ts';
import { sampled, type RowSpec } from '../../bench/lib/bench.ts';
import { judge, median, MIN_ROUNDS, spreadOf } from '../../bench/lib/verdict.ts';

const atMost = { of: 'value', op: '<=', limit: 20 } as const;
const atLeast = { of: 'value', op: '>=', limit: 0.75 } as const;

describe('bench verdicts', () => {
  it('meets a target only when every round is on its good side', () => {
    expect(judge([12, 15, 19], atMost)).toBe('met');
    expect(judge([20, 20, 20], atMost)).toBe('met'); // on the limit is within it
    expect(judge([0.8, 0.9, 0.76], atLeast)).toBe('met');
  });

  it('is short only when every round is on the bad side', () => {
    expect(judge([21, 35, 80], atMost)).toBe('short');
    expect(judge([0.4, 0.5, 0.7], atLeast)).toBe('short');
  });

  it('is undecided when the rounds straddle the target, wherever the median is', () => {
    expect(judge([12, 14, 25], atMost)).toBe('undecided'); // median met, one round short
    expect(judge([18, 30, 40], atMost)).toBe('undecided'); // median short, one round met
    expect(judge([0.7, 0.8, 0.9], atLeast)).toBe('undecided');
  });

  it('gives no verdict on fewer than the minimum rounds', () => {
    expect(MIN_ROUNDS).toBe(3);
    expect(judge([1, 2], atMost)).toBe('undecided');
    expect(judge([50], atMost)).toBe('undecided');
  });

  it('says info without a target and n/a without a figure', () => {
    expect(judge([1, 2, 3], undefined)).toBe('info');
    expect(judge([], atMost)).toBe('n/a');
  });

  it('takes the median and the range', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
    expect(spreadOf([0.2, 0.5, 0.1])).toEqual({ min: 0.1, max: 0.5 });
  });
});

describe('bench rows', () => {
  const cpu: RowSpec = {
    name: 'public read CPU/request',
    unit: 'ms',
    about: 'test',
    versus: 'bare',
    target: { of: 'ratio', op: '<=', limit: 1.33 },
  };

  it('judges a ratio target on the ratio of each round, paired with its own baseline', () => {
    // Round by round 1.2, 1.25, 1.3: every one within 1.33.
    const r = sampled(cpu, [0.036, 0.05, 0.065], [0.03, 0.04, 0.05]);
    expect(r.ratioRounds.map((x) => Number(x.toFixed(2)))).toEqual([1.2, 1.25, 1.3]);
    expect(r.value).toBe(0.05);
    expect(r.baseline).toBe(0.04);
    expect(r.spread).toEqual({ min: r.ratioRounds[0], max: r.ratioRounds[2] });
    expect(r.verdict).toBe('met');
  });

  it('straddling ratios are undecided, wholly bad ones short', () => {
    expect(sampled(cpu, [0.02, 0.03, 0.028], [0.016, 0.02, 0.02]).verdict).toBe('undecided');
    expect(sampled(cpu, [0.04, 0.045, 0.05], [0.02, 0.02, 0.02]).verdict).toBe('short');
  });

  it('leaves a failed round out, and a row without its rounds undecided', () => {
    const r = sampled(cpu, [0.02, null, 0.021], [0.02, 0.02, 0.02]);
    expect(r.rounds).toEqual([0.02, 0.021]);
    expect(r.verdict).toBe('undecided');
  });

  it('judges a value target on the figures, and a row without target is info', () => {
    const p99 = { name: 'audit page p99', unit: 'ms', about: 'test', target: atMost };
    expect(sampled(p99, [5, 6, 19]).verdict).toBe('met');
    expect(sampled(p99, [5, 6, 21]).verdict).toBe('undecided');
    expect(sampled({ ...p99, target: undefined }, [5, 6, 21]).verdict).toBe('info');
    expect(sampled(p99, []).verdict).toBe('n/a');
  });
});

describe('what bounds each row', () => {
  const rows = MEASURES.flatMap((m) => m.rows);

  it('names only rows the bench produces', () => {
    const names = new Set(rows.map((r) => r.name));
    expect(Object.keys(BOUNDS).filter((name) => !names.has(name))).toEqual([]);
  });

  it('has a line for every row with a target, which a run can find short or undecided', () => {
    expect(rows.filter((r) => r.target && !(r.name in BOUNDS)).map((r) => r.name)).toEqual([]);
  });

  it('gives every row a name of its own', () => {
    expect(rows.length).toBe(new Set(rows.map((r) => r.name)).size);
  });
});
