import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useMode } from '../../lib/mode.ts';
import { navigate, useSearch } from '../../lib/router.ts';
import type { EventDefinition, ListPage, Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { SecretDialog } from '../../components/secret-dialog.tsx';
import { DeliveryRulesFields, rulesBody, rulesOf } from './delivery-rules.tsx';
import { EventPicker } from './event-picker.tsx';
import { FilterEditor, draftOf, filterBody } from './filter-editor.tsx';

export type Catalog = ListPage<EventDefinition> | EventDefinition[];
export const catalogItems = (c: Catalog) => (Array.isArray(c) ? c : c.items);

export function WebhookCreatePage() {
  const mode = useMode();
  // From an app's page: an app webhook, which hears the stores that installed the app.
  const appId = useSearch().get('app') ?? undefined;
  const back = appId
    ? { to: `/settings/developers/apps/${encodeURIComponent(appId)}`, label: 'App' }
    : { to: '/settings/developers/webhooks', label: 'Webhooks' };
  const catalog = useAsync(() => api<Catalog>('GET', '/webhooks/events'), []);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [rules, setRules] = useState(rulesOf());
  const [filter, setFilter] = useState(draftOf(null));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [eventsError, setEventsError] = useState(false);
  const [created, setCreated] = useState<Webhook | null>(null);

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title={appId ? "Add an endpoint for your app's installs" : 'Add a webhook endpoint'}
        description={
          appId
            ? 'It receives the chosen events of every store that installs the app, each with app_id, grant_id and store_id.'
            : undefined
        }
        back={back}
      />
      <form
        className="card card-padded stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (events.length === 0) {
            setEventsError(true);
            return;
          }
          setBusy(true);
          setError(null);
          const payloadFilter = filterBody(filter);
          api<Webhook>('POST', '/webhooks', {
            url: url.trim(),
            events,
            ...(description ? { description } : {}),
            ...(appId ? { app_id: appId } : {}),
            ...rulesBody(rules),
            ...(payloadFilter ? { filter: payloadFilter } : {}),
          }).then(setCreated, (err: unknown) => {
            setBusy(false);
            setError(err);
          });
        }}
      >
        <label className="field">
          <span className="label">Endpoint URL</span>
          <input
            className="input"
            type="url"
            required
            value={url}
            placeholder="https://example.com/webhooks"
            onChange={(e) => setUrl(e.target.value)}
            aria-describedby="url-hint"
          />
          <span className="hint" id="url-hint">
            {mode === 'live' ? 'Must be HTTPS in live mode.' : 'HTTPS, or HTTP while in test mode.'}
          </span>
        </label>
        <label className="field">
          <span className="label">
            Description <span className="muted">(optional)</span>
          </span>
          <input
            className="input"
            value={description}
            maxLength={500}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <fieldset className="choices">
          <legend className="label">Events to send</legend>
          <AsyncView state={catalog.state} onRetry={catalog.reload} label="the event catalog">
            {(c) => (
              <EventPicker
                catalog={catalogItems(c)}
                selected={events}
                onChange={(next) => {
                  setEventsError(false);
                  setEvents(next);
                }}
              />
            )}
          </AsyncView>
          {eventsError && (
            <p className="field-error" role="alert">
              Choose at least one event.
            </p>
          )}
        </fieldset>
        <DeliveryRulesFields value={rules} onChange={setRules} />
        <FilterEditor value={filter} onChange={setFilter} error={error} />
        {error !== null && <ErrorBox error={error} />}
        <div className="form-actions">
          <button type="button" className="btn" onClick={() => navigate(back.to)}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
        </div>
      </form>
      {created && (
        <SecretDialog
          title="Endpoint added"
          secrets={[{ label: 'Signing secret', value: created.secret ?? '' }]}
          note="Your endpoint verifies each delivery's webhook-signature header with this secret (Standard Webhooks)."
          onDone={() => navigate(`/settings/developers/webhooks/${created.id}`, { replace: true })}
        />
      )}
    </section>
  );
}
