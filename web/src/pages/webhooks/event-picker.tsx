import { useEffect, useRef } from 'react';
import type { EventDefinition } from '../../lib/types.ts';

interface Props {
  catalog: EventDefinition[];
  selected: string[];
  onChange: (events: string[]) => void;
}

function groups(catalog: EventDefinition[]): [string, EventDefinition[]][] {
  const map = new Map<string, EventDefinition[]>();
  for (const e of catalog) map.set(e.category, [...(map.get(e.category) ?? []), e]);
  return [...map];
}

/** A category checkbox selects all of its events; it shows "mixed" when only some are chosen. */
function CategoryBox({
  label,
  state,
  onToggle,
}: {
  label: string;
  state: boolean | 'mixed';
  onToggle: () => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === 'mixed';
  }, [state]);
  return (
    <label className="choice category">
      <input type="checkbox" ref={ref} checked={state === true} onChange={onToggle} />
      <span className="category-name">{label}</span>
      <span className="muted small">Select all</span>
    </label>
  );
}

export function EventPicker({ catalog, selected, onChange }: Props) {
  const chosen = new Set(selected);
  const set = (ids: string[], on: boolean) => {
    const next = new Set(chosen);
    ids.forEach((id) => (on ? next.add(id) : next.delete(id)));
    // Keep the catalog's order: the request, and the detail page, read better that way.
    onChange(catalog.map((e) => e.id).filter((id) => next.has(id)));
  };
  return (
    <div className="event-picker">
      {groups(catalog).map(([category, events]) => {
        const count = events.filter((e) => chosen.has(e.id)).length;
        const state = count === 0 ? false : count === events.length ? true : 'mixed';
        return (
          <fieldset key={category} className="event-group">
            <legend className="sr-only">{category} events</legend>
            <CategoryBox
              label={category}
              state={state}
              onToggle={() =>
                set(
                  events.map((e) => e.id),
                  state !== true,
                )
              }
            />
            <ul className="event-list">
              {events.map((e) => (
                <li key={e.id}>
                  <label className="choice event">
                    <input
                      type="checkbox"
                      checked={chosen.has(e.id)}
                      onChange={() => set([e.id], !chosen.has(e.id))}
                    />
                    <span>
                      <code>{e.id}</code>
                      <span className="muted small event-description">{e.description}</span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        );
      })}
    </div>
  );
}
