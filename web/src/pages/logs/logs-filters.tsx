import { useState, type FormEvent } from 'react';
import { FAMILIES, FAMILY_LABELS } from './actions.ts';

export interface LogFilters {
  family: string;
  action: string;
  entityId: string;
  since: string;
  until: string;
}

export const NO_FILTERS: LogFilters = { family: '', action: '', entityId: '', since: '', until: '' };

export function LogsFilters({ value, onApply }: { value: LogFilters; onApply: (f: LogFilters) => void }) {
  const [f, setF] = useState(value);
  const backwards = f.since !== '' && f.until !== '' && f.since > f.until;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!backwards) onApply(f);
  };
  const actions = f.family ? (FAMILIES[f.family] ?? []) : Object.values(FAMILIES).flat();
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter logs">
      <label className="field">
        <span className="label">Family</span>
        <select
          className="input"
          value={f.family}
          onChange={(e) => setF({ ...f, family: e.target.value, action: '' })}
        >
          <option value="">All families</option>
          {Object.keys(FAMILIES).map((fam) => (
            <option key={fam} value={fam}>
              {FAMILY_LABELS[fam] ?? `${fam}.*`}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="label">Action</span>
        <select className="input" value={f.action} onChange={(e) => setF({ ...f, action: e.target.value })}>
          <option value="">All actions</option>
          {actions.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="label">Entity ID</span>
        <input
          className="input"
          type="search"
          value={f.entityId}
          placeholder="key_…, app_…, wh_…"
          spellCheck={false}
          onChange={(e) => setF({ ...f, entityId: e.target.value })}
        />
      </label>
      <label className="field">
        <span className="label">From</span>
        <input
          className="input"
          type="date"
          value={f.since}
          onChange={(e) => setF({ ...f, since: e.target.value })}
        />
      </label>
      <label className="field">
        <span className="label">To</span>
        <input
          className="input"
          type="date"
          value={f.until}
          aria-invalid={backwards}
          aria-describedby={backwards ? 'logs-range-error' : undefined}
          onChange={(e) => setF({ ...f, until: e.target.value })}
        />
      </label>
      {backwards && (
        <p className="text-danger small filters-error" id="logs-range-error" role="alert">
          “To” is before “From”: choose a range that moves forward in time.
        </p>
      )}
      <div className="filters-actions">
        <button type="submit" className="btn btn-primary" disabled={backwards}>
          Apply
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setF(NO_FILTERS);
            onApply(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
