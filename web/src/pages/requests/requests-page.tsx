// The Requests tab: every call to the public API made with this account's credentials in this mode, newest
// first, filterable by status and credential, and a search box that opens a request by its id. The app filter
// lists the account's own apps: with it, the app's calls on every store that installed it (API.md 12.3).
import { useState, type FormEvent } from 'react';
import { api, query } from '../../lib/api.ts';
import { navigate, useSearch } from '../../lib/router.ts';
import type { App, KeyPair, ListPage, RequestEntry } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Pager } from '../../components/pager.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { HERE, credentialText, detailPath, statusTone } from './request-text.ts';

const PAGE = 50;
const STATUSES = ['2xx', '4xx', '5xx'];

interface Filters {
  status: string;
  credential: string;
  app: string;
}

const NONE: Filters = { status: '', credential: '', app: '' };

const params = (f: Filters, after?: string) =>
  query({
    limit: PAGE,
    starting_after: after,
    status: f.status,
    credential_id: f.credential,
    app_id: f.app,
  });

interface Choice {
  id: string;
  label: string;
}

/** The credentials a filter can name (the account's key pairs and apps in this mode), and the apps. */
function useCredentials(): { credentials: Choice[]; apps: Choice[] } {
  const { state } = useAsync(async () => {
    const [keys, apps] = await Promise.all([
      api<ListPage<KeyPair>>('GET', '/api-keys?limit=200').catch(() => null),
      api<ListPage<App>>('GET', '/developer/apps?limit=200').catch(() => null),
    ]);
    const appChoices = (apps?.items ?? []).map((a) => ({ id: a.id, label: a.name }));
    return {
      credentials: [
        ...(keys?.items ?? []).map((k) => ({ id: k.id, label: `Key ${k.name ?? k.id}` })),
        ...appChoices.map((a) => ({ id: a.id, label: `App ${a.label}` })),
      ],
      apps: appChoices,
    };
  }, []);
  return state.data ?? { credentials: [], apps: [] };
}

function SearchBox() {
  const [id, setId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = id.trim();
    if (trimmed) navigate(detailPath(trimmed));
  };
  return (
    <form className="filters" role="search" aria-label="Find a request" onSubmit={submit}>
      <label className="field">
        <span className="label">Request ID</span>
        <input
          className="input"
          type="search"
          value={id}
          placeholder="req_… (from an error's request_id or the X-Request-Id header)"
          spellCheck={false}
          onChange={(e) => setId(e.target.value)}
        />
      </label>
      <div className="filters-actions">
        <button type="submit" className="btn btn-primary" disabled={!id.trim()}>
          Find
        </button>
      </div>
    </form>
  );
}

function FilterForm({ value, onApply }: { value: Filters; onApply: (f: Filters) => void }) {
  const { credentials, apps } = useCredentials();
  const [f, setF] = useState(value);
  return (
    <form
      className="filters"
      aria-label="Filter requests"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(f);
      }}
    >
      <label className="field">
        <span className="label">Status</span>
        <select className="input" value={f.status} onChange={(e) => setF({ ...f, status: e.target.value })}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="label">Credential</span>
        <select
          className="input"
          value={f.credential}
          onChange={(e) => setF({ ...f, credential: e.target.value })}
        >
          <option value="">Any credential</option>
          {credentials.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {apps.length > 0 && (
        <label className="field">
          <span className="label">App</span>
          <select className="input" value={f.app} onChange={(e) => setF({ ...f, app: e.target.value })}>
            <option value="">This account's calls</option>
            {apps.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}: its calls on every store
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="filters-actions">
        <button type="submit" className="btn btn-primary">
          Apply
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setF(NONE);
            onApply(NONE);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

export function RequestsPage() {
  const search = useSearch();
  const key = search.toString();
  const filters: Filters = {
    status: search.get('status') ?? '',
    credential: search.get('credential_id') ?? '',
    app: search.get('app_id') ?? '',
  };
  const setFilters = (f: Filters) =>
    navigate(`${HERE}${query({ status: f.status, credential_id: f.credential, app_id: f.app })}`);
  const [more, setMore] = useState<{
    items: RequestEntry[];
    cursor: string | null;
    busy: boolean;
    error: unknown;
  }>({ items: [], cursor: null, busy: false, error: null });
  const { state, reload } = useAsync(async () => {
    const page = await api<ListPage<RequestEntry>>('GET', `/developer/requests${params(filters)}`);
    setMore({ items: [], cursor: page.next_cursor, busy: false, error: null });
    return page;
  }, [key]);

  const loadMore = () => {
    if (!more.cursor) return;
    setMore({ ...more, busy: true, error: null });
    api<ListPage<RequestEntry>>('GET', `/developer/requests${params(filters, more.cursor)}`).then(
      (page) =>
        setMore({
          items: [...more.items, ...page.items],
          cursor: page.next_cursor,
          busy: false,
          error: null,
        }),
      (error: unknown) => setMore({ ...more, busy: false, error }),
    );
  };

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Requests"
        description="Every call to the public API made with this account's keys, access tokens and app secrets in this mode, kept 7 days by default; choose one of your apps to see its calls on every store that installed it. New calls appear within seconds."
        actions={
          <button type="button" className="btn" onClick={() => reload()}>
            Refresh
          </button>
        }
      />
      <div className="card card-padded">
        <SearchBox />
        <FilterForm key={key} value={filters} onApply={setFilters} />
      </div>
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="requests">
          {(page) => {
            const items = [...page.items, ...more.items];
            return items.length === 0 ? (
              <EmptyState title="No requests match." />
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table table-stack">
                    <thead>
                      <tr>
                        <th scope="col">Time</th>
                        <th scope="col">Status</th>
                        <th scope="col">Request</th>
                        <th scope="col">Credential</th>
                        <th scope="col">Duration</th>
                      </tr>
                    </thead>
                    <tbody>
                      {items.map((r) => (
                        <tr key={`${r.id}:${r.created_at}`}>
                          <td data-label="Time">
                            <TimeText value={r.created_at} />
                          </td>
                          <td data-label="Status">
                            <span className={`badge ${statusTone(r.status)}`}>{r.status}</span>
                            {r.error_code && <code className="small"> {r.error_code}</code>}
                          </td>
                          <td data-label="Request">
                            <Link className="break" to={detailPath(r.id)}>
                              {r.method} {r.path}
                            </Link>
                          </td>
                          <td data-label="Credential" className="small">
                            {credentialText(r.credential)}
                            {r.store_id && <span className="muted"> on {r.store_id}</span>}
                          </td>
                          <td data-label="Duration">{r.duration_ms} ms</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  summary={
                    <>
                      {items.length} of {page.count}
                    </>
                  }
                  forward={
                    more.cursor
                      ? {
                          label: more.busy ? 'Loading…' : 'Load more',
                          disabled: more.busy,
                          onClick: loadMore,
                        }
                      : undefined
                  }
                />
                {more.error !== null && <ErrorBox error={more.error} />}
              </>
            );
          }}
        </AsyncView>
      </div>
    </section>
  );
}
