// The webhook detail page's dialogs: edit, reveal the secret (after the password), recover failed deliveries.
import { useState, type FormEvent, type ReactNode } from 'react';
import { api } from '../../lib/api.ts';
import type { Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { DeliveryRulesFields, rulesBody, rulesOf } from './delivery-rules.tsx';
import { EventPicker } from './event-picker.tsx';
import { FilterEditor, draftOf, filterBody } from './filter-editor.tsx';
import { localInput } from './replay-dialog.tsx';
import { catalogItems, type Catalog } from './webhook-create-page.tsx';

/** A form in a dialog: submit runs `action`, whose error is shown in place; Cancel closes. */
function DialogForm(props: {
  title: string;
  submitLabel: string;
  busyLabel: string;
  wide?: boolean;
  onClose: () => void;
  action: () => Promise<void>;
  disabled?: boolean;
  /** Told of each refusal (and of null when submitted again), for fields that show their own faults. */
  onError?: (error: unknown) => void;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    props.onError?.(null);
    props.action().then(
      () => setBusy(false),
      (err: unknown) => {
        setBusy(false);
        setError(err);
        props.onError?.(err);
      },
    );
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} wide={props.wide ?? false}>
      <form className="stack" onSubmit={submit}>
        {props.children}
        {error !== null && <ErrorBox error={error} />}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || props.disabled}>
            {busy ? props.busyLabel : props.submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function EditWebhookDialog(props: {
  webhook: Webhook;
  onClose: () => void;
  onSaved: (w: Webhook) => void;
}) {
  const catalog = useAsync(() => api<Catalog>('GET', '/webhooks/events'), []);
  const [url, setUrl] = useState(props.webhook.url);
  const [description, setDescription] = useState(props.webhook.description ?? '');
  const [events, setEvents] = useState(props.webhook.events);
  const [rules, setRules] = useState(rulesOf(props.webhook));
  const [filter, setFilter] = useState(() => draftOf(props.webhook.filter));
  const [error, setError] = useState<unknown>(null);
  return (
    <DialogForm
      title="Edit endpoint"
      submitLabel="Save changes"
      busyLabel="Saving…"
      wide
      disabled={events.length === 0}
      onClose={props.onClose}
      onError={setError}
      action={async () => {
        const saved = await api<Webhook>('PATCH', `/webhooks/${encodeURIComponent(props.webhook.id)}`, {
          url: url.trim(),
          events,
          description: description.trim() || null,
          ...rulesBody(rules),
          filter: filterBody(filter),
        });
        props.onSaved(saved);
      }}
    >
      <label className="field">
        <span className="label">Endpoint URL</span>
        <input
          className="input"
          type="url"
          required
          value={url}
          spellCheck={false}
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      <label className="field">
        <span className="label">Description</span>
        <input
          className="input"
          value={description}
          maxLength={500}
          onChange={(e) => setDescription(e.target.value)}
        />
      </label>
      <fieldset className="field">
        <legend className="label">Events to send</legend>
        <AsyncView state={catalog.state} onRetry={catalog.reload} label="the event catalog">
          {(c) => <EventPicker catalog={catalogItems(c)} selected={events} onChange={setEvents} />}
        </AsyncView>
        {events.length === 0 && <p className="text-danger small">Choose at least one event.</p>}
      </fieldset>
      <DeliveryRulesFields value={rules} onChange={setRules} />
      <FilterEditor value={filter} onChange={setFilter} error={error} />
    </DialogForm>
  );
}

export function RevealSecretDialog({ webhookId, onClose }: { webhookId: string; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  if (secret !== null) {
    return (
      <Dialog title="Signing secret" onClose={onClose}>
        <div className="secret">
          <span className="label" id="revealed-secret">
            Signing secret
          </span>
          <div className="secret-row">
            <code className="secret-value" aria-labelledby="revealed-secret">
              {secret}
            </code>
            <CopyButton value={secret} label="Copy signing secret" />
          </div>
        </div>
        <p className="muted small">Revealing it was recorded in the logs.</p>
        <div className="dialog-actions">
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <DialogForm
      title="Reveal signing secret"
      submitLabel="Reveal"
      busyLabel="Checking…"
      onClose={onClose}
      action={async () => {
        const data = await api<{ secret: string }>(
          'POST',
          `/webhooks/${encodeURIComponent(webhookId)}/reveal-secret`,
          { password },
        );
        setSecret(data.secret);
      }}
    >
      <p>Enter your password to show the secret this endpoint's deliveries are signed with.</p>
      <label className="field">
        <span className="label">Password</span>
        <input
          className="input"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
    </DialogForm>
  );
}

export function RecoverDialog(props: { webhook: Webhook; onClose: () => void; onDone: () => void }) {
  const from = props.webhook.health.failing_since
    ? new Date(props.webhook.health.failing_since)
    : new Date(Date.now() - 86_400_000);
  const [since, setSince] = useState(localInput(from));
  const [preview, setPreview] = useState<{ count: number; has_more: boolean; since: string } | null>(null);
  const [done, setDone] = useState<{ count: number; has_more: boolean } | null>(null);
  const path = `/webhooks/${encodeURIComponent(props.webhook.id)}/recover`;
  const sinceIso = () => new Date(since).toISOString();

  if (done) {
    return (
      <Dialog title="Recovery started" onClose={props.onDone}>
        <p role="status">
          {done.count} deliver{done.count === 1 ? 'y is' : 'ies are'} being sent again, oldest first.
          {done.has_more && ' More remain: run the recovery again once these are sent.'}
        </p>
        <div className="dialog-actions">
          <button type="button" className="btn btn-primary" onClick={props.onDone}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  const ready = preview !== null && preview.since === since;
  return (
    <DialogForm
      title="Recover failed deliveries"
      submitLabel={ready ? `Send ${preview.count} again` : 'Preview'}
      busyLabel={ready ? 'Sending…' : 'Counting…'}
      disabled={ready && preview.count === 0}
      onClose={props.onClose}
      action={async () => {
        if (!ready) {
          const p = await api<{ count: number; has_more: boolean }>('POST', path, {
            since: sinceIso(),
            preview: true,
          });
          setPreview({ ...p, since });
          return;
        }
        setDone(await api<{ count: number; has_more: boolean }>('POST', path, { since: sinceIso() }));
      }}
    >
      <p>
        Every delivery to this endpoint since the time below that failed, or is waiting for a later retry, is
        sent again now, oldest first. Receivers see the same <code>webhook-id</code> as before.
      </p>
      <label className="field">
        <span className="label">Failed since</span>
        <input
          className="input"
          type="datetime-local"
          required
          value={since}
          onChange={(e) => setSince(e.target.value)}
        />
      </label>
      {ready && (
        <p role="status" data-testid="recover-preview">
          {preview.count === 0
            ? 'Nothing to recover since then.'
            : `${preview.count}${preview.has_more ? '+' : ''} deliver${preview.count === 1 ? 'y' : 'ies'} will be sent again.`}
        </p>
      )}
    </DialogForm>
  );
}
