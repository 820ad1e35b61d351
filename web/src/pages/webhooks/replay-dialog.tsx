// Replay by filter (API.md section 12.2) from the webhook's page: the window, failed or every event, the types
// and the store; a count that follows the form as it is filled (`preview: true`); then the replay itself, whose
// progress bar follows the job (queued and skipped of matched) until it ends, with Cancel while it runs.
import { useEffect, useState } from 'react';
import { api } from '../../lib/api.ts';
import type { Replay, Webhook } from '../../lib/types.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';

const PREVIEW_DELAY_MS = 300;
const PROGRESS_POLL_MS = 1000;

/** `datetime-local` wants local time without zone or seconds. */
export function localInput(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

interface Form {
  since: string;
  until: string;
  status: 'failed' | 'all';
  types: string[];
  store: string;
}

/** The request's filter for the form; undefined while `since` is not a time yet. */
function bodyOf(f: Form) {
  const since = new Date(f.since);
  if (Number.isNaN(since.getTime())) return undefined;
  const until = f.until ? new Date(f.until) : undefined;
  return {
    since: since.toISOString(),
    ...(until && !Number.isNaN(until.getTime()) ? { until: until.toISOString() } : {}),
    status: f.status,
    ...(f.types.length > 0 ? { event_types: f.types } : {}),
    ...(f.store.trim() ? { store_id: f.store.trim() } : {}),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The progress of a replay: a bar of queued and skipped over matched, and the counts in words. */
export function ReplayProgress({ replay, label }: { replay: Replay; label: string }) {
  const walked = replay.queued + replay.skipped;
  const words =
    replay.status === 'running'
      ? `${walked} of ${replay.matched} walked: ${replay.queued} queued, ${replay.skipped} skipped`
      : `${replay.status === 'done' ? 'Done' : 'Cancelled'}: ${replay.queued} queued, ${replay.skipped} skipped` +
        (replay.status === 'cancelled' ? ` of ${replay.matched}` : '');
  return (
    <div className="replay-progress">
      <progress
        aria-label={label}
        value={replay.status === 'done' ? Math.max(walked, 1) : walked}
        max={replay.status === 'done' ? Math.max(walked, 1) : Math.max(replay.matched, 1)}
      />
      <span className="small" data-testid="replay-progress-text">
        {words}
      </span>
    </div>
  );
}

/** Follows one replay: reads it again every second while it runs; Cancel stops what is not yet queued. */
function ReplayRunning(props: { webhookId: string; first: Replay; onClose: () => void }) {
  const [replay, setReplay] = useState(props.first);
  const [error, setError] = useState<unknown>(null);
  const [cancelling, setCancelling] = useState(false);
  const path = `/webhooks/${encodeURIComponent(props.webhookId)}/replays/${encodeURIComponent(replay.id)}`;
  const running = replay.status === 'running';

  useEffect(() => {
    if (!running) return;
    let live = true;
    const timer = setTimeout(() => {
      api<Replay>('GET', path).then(
        (r) => live && setReplay(r),
        (err: unknown) => live && setError(err),
      );
    }, PROGRESS_POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [running, replay, path]);

  const cancel = () => {
    setCancelling(true);
    setError(null);
    api<Replay>('DELETE', path).then(
      (r) => {
        setCancelling(false);
        setReplay(r);
      },
      (err: unknown) => {
        setCancelling(false);
        setError(err);
      },
    );
  };

  return (
    <Dialog title={running ? 'Replaying' : 'Replay finished'} onClose={props.onClose}>
      <div className="stack">
        <p>
          The deliveries go out after every live one due, so new events are not held behind them. Each carries
          its event&apos;s <code>webhook-id</code>.
        </p>
        <div role="status">
          <ReplayProgress replay={replay} label="Replay progress" />
        </div>
        {error !== null && <ErrorBox error={error} />}
        <div className="dialog-actions">
          {running && (
            <button type="button" className="btn btn-danger-outline" disabled={cancelling} onClick={cancel}>
              {cancelling ? 'Cancelling…' : 'Cancel replay'}
            </button>
          )}
          <button type="button" className="btn btn-primary" onClick={props.onClose}>
            {running ? 'Close (it keeps running)' : 'Done'}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

/** What the replay asks for: the window, failed or every event, the types among the endpoint's, the store. */
function ReplayFields(props: { form: Form; events: string[]; set: (change: Partial<Form>) => void }) {
  const { form, set } = props;
  return (
    <>
      <div className="grid-fields">
        <label className="field">
          <span className="label">Since</span>
          <input
            className="input"
            type="datetime-local"
            required
            value={form.since}
            onChange={(e) => set({ since: e.target.value })}
          />
        </label>
        <label className="field">
          <span className="label">
            Until <span className="muted">(optional: now)</span>
          </span>
          <input
            className="input"
            type="datetime-local"
            value={form.until}
            onChange={(e) => set({ until: e.target.value })}
          />
        </label>
      </div>
      <fieldset className="choices">
        <legend className="label">Which events</legend>
        <label className="choice">
          <input
            type="radio"
            name="replay-status"
            checked={form.status === 'failed'}
            onChange={() => set({ status: 'failed' })}
          />
          Failed deliveries
          <span className="muted">whose last attempt failed, finally or with a retry to come</span>
        </label>
        <label className="choice">
          <input
            type="radio"
            name="replay-status"
            checked={form.status === 'all'}
            onChange={() => set({ status: 'all' })}
          />
          Every event
          <span className="muted">the endpoint received or should have received in the window</span>
        </label>
      </fieldset>
      <fieldset className="choices">
        <legend className="label">
          Event types <span className="muted">(none chosen: every type)</span>
        </legend>
        <div className="replay-types">
          {props.events.map((t) => (
            <label key={t} className="choice">
              <input
                type="checkbox"
                checked={form.types.includes(t)}
                onChange={(e) =>
                  set({ types: e.target.checked ? [...form.types, t] : form.types.filter((x) => x !== t) })
                }
              />
              <code>{t}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <label className="field">
        <span className="label">
          Store <span className="muted">(optional)</span>
        </span>
        <input
          className="input"
          value={form.store}
          spellCheck={false}
          placeholder="store_..."
          onChange={(e) => set({ store: e.target.value })}
        />
      </label>
    </>
  );
}

/**
 * The count of what the form would replay (`preview: true`), asked for a moment after its last change; only the
 * answer for the form as it is now is shown (null while it is being counted).
 */
function usePreview(path: string, body: ReturnType<typeof bodyOf>) {
  const [preview, setPreview] = useState<{ for: string; matched: number } | null>(null);
  const [error, setPreviewError] = useState<unknown>(null);
  const key = JSON.stringify(body ?? null);
  useEffect(() => {
    if (!body) return;
    let live = true;
    const timer = setTimeout(() => {
      api<{ matched: number }>('POST', path, { ...body, preview: true }).then(
        (p) => {
          if (!live) return;
          setPreviewError(null);
          setPreview({ for: key, matched: p.matched });
        },
        (err: unknown) => {
          if (!live) return;
          setPreview(null);
          setPreviewError(err);
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `key` is the body in words: `body` is a new object each render, for the same request
  }, [key, path]);

  return { current: preview !== null && preview.for === key ? preview.matched : null, error };
}

export function ReplayDialog(props: { webhook: Webhook; onClose: () => void; onStarted: () => void }) {
  const wh = props.webhook;
  const from = wh.health.failing_since
    ? new Date(wh.health.failing_since)
    : new Date(Date.now() - 86_400_000);
  const [form, setForm] = useState<Form>({
    since: localInput(from),
    until: '',
    status: 'failed',
    types: [],
    store: '',
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [started, setStarted] = useState<Replay | null>(null);
  const path = `/webhooks/${encodeURIComponent(wh.id)}/replays`;
  const body = bodyOf(form);
  const { current, error: previewError } = usePreview(path, body);

  if (started) return <ReplayRunning webhookId={wh.id} first={started} onClose={props.onClose} />;

  const set = (change: Partial<Form>) => setForm((f) => ({ ...f, ...change }));
  return (
    <Dialog title="Replay events" onClose={props.onClose} wide>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (!body) return;
          setBusy(true);
          setError(null);
          api<Replay>('POST', path, body).then(
            (r) => {
              setBusy(false);
              setStarted(r);
              props.onStarted();
            },
            (err: unknown) => {
              setBusy(false);
              setError(err);
            },
          );
        }}
      >
        <p>
          Sends this endpoint again the events of a window: those whose delivery failed, or every one. Events
          of a type it no longer receives, or that its payload filter refuses, are skipped.
        </p>
        <ReplayFields form={form} events={wh.events} set={set} />
        <p role="status" data-testid="replay-preview" className="replay-preview">
          {previewError !== null
            ? 'No count: see below.'
            : current === null
              ? 'Counting…'
              : current === 0
                ? 'No event matches.'
                : `${plural(current, 'event matches', 'events match')}.`}
        </p>
        {previewError !== null && <ErrorBox error={previewError} />}
        {error !== null && <ErrorBox error={error} />}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || !body || current === 0}>
            {busy ? 'Starting…' : current ? `Replay ${plural(current, 'event', 'events')}` : 'Replay'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
