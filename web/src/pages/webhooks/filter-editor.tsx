// A webhook's payload filter (API.md section 12.2) on the create page and the edit dialog: conditions as rows
// (path, operator, value), all or any of them, and the JSON the request will carry. The service is the one
// judge of a filter (payload-filter.ts): the editor checks nothing itself, and shows each fault the API names
// (`filter.all[2].value`) beside that condition until the condition is changed.
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../lib/api.ts';
import type { FilterCondition, FilterOp, PayloadFilter } from '../../lib/types.ts';

const OPS: { op: FilterOp; words: string }[] = [
  { op: 'eq', words: 'equals' },
  { op: 'ne', words: 'does not equal' },
  { op: 'gt', words: 'greater than' },
  { op: 'gte', words: 'at least' },
  { op: 'lt', words: 'less than' },
  { op: 'lte', words: 'at most' },
  { op: 'in', words: 'is one of' },
  { op: 'exists', words: 'exists' },
  { op: 'prefix', words: 'starts with' },
];
const MAX_CONDITIONS = 20;

export interface FilterRow {
  /** Stable across edits, so a fault stays with its condition when another row is removed. */
  key: number;
  path: string;
  op: FilterOp;
  /** As typed (`exists`: "true" or "false"). */
  value: string;
}

export interface FilterDraft {
  match: 'all' | 'any';
  rows: FilterRow[];
}

let nextKey = 1;
const newRow = (c?: FilterCondition): FilterRow => ({
  key: nextKey++,
  path: c?.path ?? '',
  op: c?.op ?? 'eq',
  value: c ? textOf(c.op, c.value) : '',
});

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A typed scalar: a number, true, false or null as JSON, a "quoted" text as that text, anything else as text. */
function scalarOf(text: string): unknown {
  const t = text.trim();
  if (NUMBER.test(t)) return Number(t);
  if (t === 'true' || t === 'false' || t === 'null') return JSON.parse(t) as unknown;
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** The value the request carries for what was typed, by operator. */
export function valueOf(op: FilterOp, text: string): unknown {
  switch (op) {
    case 'exists':
      return text !== 'false';
    case 'prefix':
      return text;
    case 'in': {
      const t = text.trim();
      if (t.startsWith('[')) {
        try {
          return JSON.parse(t) as unknown;
        } catch {
          return t; // sent as it is: the API names the fault
        }
      }
      return t === '' ? [] : t.split(',').map((part) => scalarOf(part.trim()));
    }
    case 'eq':
    case 'ne':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return scalarOf(text);
  }
}

/** What to show in the value box for a stored value: a text that reads back to the same value. */
function textOf(op: FilterOp, value: unknown): string {
  if (op === 'exists') return value === false ? 'false' : 'true';
  if (op === 'prefix' && typeof value === 'string') return value;
  if (op === 'in' && Array.isArray(value)) {
    const parts = value.map((v) => textOf('eq', v));
    return parts.every((p) => !p.includes(',')) ? parts.join(', ') : JSON.stringify(value);
  }
  if (typeof value === 'string') return scalarOf(value) === value ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

export function draftOf(filter: PayloadFilter | null | undefined): FilterDraft {
  if (!filter) return { match: 'all', rows: [] };
  return 'all' in filter
    ? { match: 'all', rows: filter.all.map(newRow) }
    : { match: 'any', rows: filter.any.map(newRow) };
}

/** The request's `filter`: null when there is no condition. */
export function filterBody(d: FilterDraft): PayloadFilter | null {
  if (d.rows.length === 0) return null;
  const conditions = d.rows.map((r) => ({ path: r.path.trim(), op: r.op, value: valueOf(r.op, r.value) }));
  return d.match === 'all' ? { all: conditions } : { any: conditions };
}

const FAULT = /^filter\.(?:all|any)\[(\d+)\](?:\.(\w+))?$/;

/** The faults of an API error by the key of the row they name (as the rows were when it was sent). */
function faultsByRow(error: unknown, rows: FilterRow[]): Map<number, string[]> {
  const byRow = new Map<number, string[]>();
  if (!(error instanceof ApiError)) return byRow;
  for (const d of error.details) {
    const m = FAULT.exec(d.field);
    const row = m ? rows[Number(m[1])] : undefined;
    if (!row) continue;
    byRow.set(row.key, [...(byRow.get(row.key) ?? []), `${m![2] ?? 'condition'} ${d.issue}`]);
  }
  return byRow;
}

/** The faults that name the filter as a whole (`filter`, `filter.all`). */
const wholeFaults = (error: unknown) =>
  error instanceof ApiError
    ? error.details.filter((d) => d.field.startsWith('filter') && !FAULT.test(d.field))
    : [];

/** One condition: its path, operator and value, Remove, and the API's faults in it. */
function ConditionRow(props: {
  row: FilterRow;
  index: number;
  faults: string[];
  onChange: (change: Partial<FilterRow>) => void;
  onRemove: () => void;
}) {
  const { row: r, faults, onChange } = props;
  const faultId = `filter-fault-${r.key}`;
  const invalid = (part: string) =>
    faults.some((f) => f.startsWith(`${part} `) || f.startsWith('condition '));
  const described = (part: string) =>
    invalid(part) ? { 'aria-invalid': true, 'aria-describedby': faultId } : {};
  return (
    <fieldset className="filter-row">
      <legend className="sr-only">Condition {props.index + 1}</legend>
      <label className="field">
        <span className="label">Path</span>
        <input
          className="input input-small"
          value={r.path}
          spellCheck={false}
          placeholder="data.total"
          onChange={(e) => onChange({ path: e.target.value })}
          {...described('path')}
        />
      </label>
      <label className="field">
        <span className="label">Operator</span>
        <select
          className="input input-small"
          value={r.op}
          onChange={(e) => {
            const op = e.target.value as FilterOp;
            onChange({ op, ...(op === 'exists' ? { value: 'true' } : {}) });
          }}
          {...described('op')}
        >
          {OPS.map((o) => (
            <option key={o.op} value={o.op}>
              {o.words} ({o.op})
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="label">Value</span>
        {r.op === 'exists' ? (
          <select
            className="input input-small"
            value={r.value === 'false' ? 'false' : 'true'}
            onChange={(e) => onChange({ value: e.target.value })}
            {...described('value')}
          >
            <option value="true">true (present)</option>
            <option value="false">false (absent)</option>
          </select>
        ) : (
          <input
            className="input input-small"
            value={r.value}
            spellCheck={false}
            placeholder={r.op === 'in' ? 'EUR, USD' : r.op === 'prefix' ? 'text' : '100'}
            onChange={(e) => onChange({ value: e.target.value })}
            {...described('value')}
          />
        )}
      </label>
      <button
        type="button"
        className="btn btn-small filter-remove"
        aria-label={`Remove condition ${props.index + 1}`}
        onClick={props.onRemove}
      >
        Remove
      </button>
      {faults.length > 0 && (
        <p className="field-error filter-fault" id={faultId} role="alert">
          {faults.join('; ')}
        </p>
      )}
    </fieldset>
  );
}

export function FilterEditor(props: {
  value: FilterDraft;
  onChange: (next: FilterDraft) => void;
  /** The last refusal of the form's request: its faults that name a condition are shown beside it. */
  error: unknown;
}) {
  const { value, onChange, error } = props;
  const [faults, setFaults] = useState<Map<number, string[]>>(new Map());
  const rowsRef = useRef(value.rows);
  rowsRef.current = value.rows;
  useEffect(() => setFaults(faultsByRow(error, rowsRef.current)), [error]);

  const setRow = (key: number, change: Partial<FilterRow>) => {
    setFaults((f) => {
      const next = new Map(f);
      next.delete(key);
      return next;
    });
    onChange({ ...value, rows: value.rows.map((r) => (r.key === key ? { ...r, ...change } : r)) });
  };
  const body = filterBody(value);
  const whole = wholeFaults(error);

  return (
    <fieldset className="choices filter-editor">
      <legend className="label">
        Payload filter <span className="muted">(optional)</span>
      </legend>
      <p className="hint">
        Only events whose body matches are sent to this endpoint; the rest record no delivery. A path is
        dotted into the body, e.g. <code>data.total</code> or <code>store_id</code>. A value reads as JSON
        when it is a number, true, false, null or &quot;quoted&quot;, else as text; for &quot;is one of&quot;,
        separate values with commas.
      </p>
      {value.rows.length > 0 && (
        <label className="inline-field">
          <span className="label">Match</span>
          <select
            className="input input-small"
            value={value.match}
            onChange={(e) => onChange({ ...value, match: e.target.value as 'all' | 'any' })}
          >
            <option value="all">all conditions</option>
            <option value="any">any condition</option>
          </select>
        </label>
      )}
      <ol className="filter-rows">
        {value.rows.map((r, i) => (
          <li key={r.key}>
            <ConditionRow
              row={r}
              index={i}
              faults={faults.get(r.key) ?? []}
              onChange={(change) => setRow(r.key, change)}
              onRemove={() => onChange({ ...value, rows: value.rows.filter((x) => x.key !== r.key) })}
            />
          </li>
        ))}
      </ol>
      {whole.map((d) => (
        <p key={`${d.field}:${d.issue}`} className="field-error" role="alert">
          <code>{d.field}</code> {d.issue}
        </p>
      ))}
      <button
        type="button"
        className="btn btn-small"
        disabled={value.rows.length >= MAX_CONDITIONS}
        onClick={() => onChange({ ...value, rows: [...value.rows, newRow()] })}
      >
        Add condition
      </button>
      <figure className="filter-json">
        <figcaption className="label">As JSON</figcaption>
        <pre className="code-block" tabIndex={0} data-testid="filter-json">
          {body === null ? 'null (every event of the chosen types)' : JSON.stringify(body, null, 2)}
        </pre>
      </figure>
    </fieldset>
  );
}
