import { useState } from 'react';
import { prettyJson } from '../../lib/format.ts';
import type { LogEntry } from '../../lib/types.ts';
import { Link } from '../../components/link.tsx';
import { TimeText } from '../../components/time-text.tsx';

export interface ActorNames {
  users: Map<string, string>;
  apps: Map<string, string>;
}

interface Metadata {
  actor?: { type?: string; id?: string | null; email?: string };
  webhook_id?: string;
}

function metadataOf(entry: LogEntry): Metadata {
  try {
    return JSON.parse(entry.metadata) as Metadata;
  } catch {
    return {};
  }
}

/**
 * Who acted, in words, with the raw id on hover: a user by the email its entry carries (API.md section
 * 11.2; older entries have only the id, named when it is the signed-in user), an app by its name.
 */
function Actor({ actor, names }: { actor: Metadata['actor']; names: ActorNames }) {
  if (!actor?.type) return <span className="muted">—</span>;
  const id = actor.id ?? '';
  if (actor.type === 'system') return <span title={id}>svc (automatic)</span>;
  const name = actor.type === 'user' ? (actor.email ?? names.users.get(id)) : names.apps.get(id);
  const label = name ?? (actor.type === 'app' ? `App ${id}` : `User ${id}`);
  return (
    <span title={id} className={name ? undefined : 'mono-small'}>
      {actor.type === 'app' && name ? `App “${name}”` : label}
    </span>
  );
}

const BASE = '/settings/developers';

/** Where the entity lives in the dashboard; none once the entry records its deletion. */
function entityLink(entry: LogEntry, meta: Metadata): string | null {
  if (entry.action.endsWith('.deleted')) return null;
  switch (entry.entity_type) {
    case 'api_key':
      return `${BASE}/keys`;
    case 'developer_app':
      return `${BASE}/apps/${entry.entity_id}`;
    case 'webhook':
      return `${BASE}/webhooks/${entry.entity_id}`;
    case 'webhook_delivery':
      return meta.webhook_id ? `${BASE}/webhooks/${meta.webhook_id}/deliveries/${entry.entity_id}` : null;
    case 'oauth_grant':
      return `${BASE}/connected-apps`;
    default:
      return null;
  }
}

/** One entry; the button below the action opens its metadata, pretty-printed. */
export function LogRow({ entry, actors }: { entry: LogEntry; actors: ActorNames }) {
  const [open, setOpen] = useState(false);
  const detailId = `log-${entry.id}`;
  const meta = metadataOf(entry);
  const link = entityLink(entry, meta);
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
        <td className="nowrap" data-label="#">
          {entry.sequence === null ? (
            <span className="muted" title="Sealing: the entry joins the chain within seconds">
              …
            </span>
          ) : (
            <span title={entry.hash ?? undefined}>{entry.sequence}</span>
          )}
        </td>
        <td className="nowrap" data-label="Time">
          <TimeText value={entry.created_at} />
        </td>
        <td data-label="Action">
          <code>{entry.action}</code>
        </td>
        <td data-label="Entity">
          <div className="small muted">{entry.entity_type}</div>
          {link ? (
            <Link to={link} className="mono-small">
              {entry.entity_id}
            </Link>
          ) : (
            <code className="mono-small">{entry.entity_id}</code>
          )}
        </td>
        <td data-label="Actor">
          <Actor actor={meta.actor} names={actors} />
        </td>
      </tr>
      {open && (
        <tr className="row-detail" id={detailId}>
          <td colSpan={6}>
            <pre className="code-block" tabIndex={0} aria-label={`Metadata of ${entry.id}`}>
              {prettyJson(entry.metadata)}
            </pre>
            <dl className="props props-compact chain-props">
              <dt>Sequence</dt>
              <dd>{entry.sequence ?? 'not sealed yet'}</dd>
              <dt>Hash</dt>
              <dd className="mono-small">{entry.hash ?? '—'}</dd>
              <dt>Previous hash</dt>
              <dd className="mono-small">{entry.prev_hash ?? '—'}</dd>
            </dl>
          </td>
        </tr>
      )}
    </>
  );
}
