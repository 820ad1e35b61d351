import { useState } from 'react';
import { prettyJson } from '../../lib/format.ts';
import type { LogEntry } from '../../lib/types.ts';
import { TimeText } from '../../components/time-text.tsx';

function actorOf(metadata: string): string {
  try {
    const actor = (JSON.parse(metadata) as { actor?: { type?: string; id?: string | null } }).actor;
    if (!actor?.type) return '—';
    return actor.id ? `${actor.type} ${actor.id}` : actor.type;
  } catch {
    return '—';
  }
}

/** One entry; the button below the action opens its metadata, pretty-printed. */
export function LogRow({ entry }: { entry: LogEntry }) {
  const [open, setOpen] = useState(false);
  const detailId = `log-${entry.id}`;
  return (
    <>
      <tr className={open ? 'row-open' : undefined}>
        <td>
          <button
            type="button"
            className="btn-disclosure"
            aria-expanded={open}
            aria-controls={detailId}
            aria-label={`${open ? 'Hide' : 'Show'} details of ${entry.action} ${entry.entity_id}`}
            onClick={() => setOpen(!open)}
          >
            <span aria-hidden="true">{open ? '▾' : '▸'}</span>
          </button>
        </td>
        <td className="nowrap">
          <TimeText value={entry.created_at} />
        </td>
        <td>
          <code>{entry.action}</code>
        </td>
        <td>
          <div className="small muted">{entry.entity_type}</div>
          <code className="mono-small">{entry.entity_id}</code>
        </td>
        <td className="mono-small">{actorOf(entry.metadata)}</td>
      </tr>
      {open && (
        <tr className="row-detail" id={detailId}>
          <td colSpan={5}>
            <pre className="code-block" aria-label={`Metadata of ${entry.id}`}>
              {prettyJson(entry.metadata)}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}
