import { useRef } from 'react';

interface Props {
  value: string[];
  onChange: (uris: string[]) => void;
}

const MAX = 10;

/** One to ten redirect URIs, matched by exact string at authorization. */
export function RedirectUrisField({ value, onChange }: Props) {
  const list = useRef<HTMLFieldSetElement>(null);
  const focusLast = () =>
    requestAnimationFrame(() =>
      list.current?.querySelector<HTMLInputElement>('li:last-child input')?.focus(),
    );

  return (
    <fieldset className="choices" ref={list}>
      <legend className="label">Redirect URIs</legend>
      <p className="hint">
        Where merchants return after consent. HTTPS, or http only for localhost. Matched exactly.
      </p>
      <ol className="uri-list">
        {value.map((uri, i) => (
          <li key={i} className="uri-row">
            <input
              className="input"
              type="url"
              required={i === 0}
              value={uri}
              placeholder="https://example.com/oauth/callback"
              aria-label={`Redirect URI ${i + 1}`}
              onChange={(e) => onChange(value.map((u, j) => (j === i ? e.target.value : u)))}
            />
            {value.length > 1 && (
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Remove redirect URI ${i + 1}`}
                onClick={() => onChange(value.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ol>
      {value.length < MAX && (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            onChange([...value, '']);
            focusLast();
          }}
        >
          Add redirect URI
        </button>
      )}
    </fieldset>
  );
}
