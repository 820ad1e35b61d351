// Times are shown in the viewer's zone; the exact UTC instant is in the title (on hover).
import type { WebhookHealth } from './types.ts';

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function localTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function utcTitle(iso: string | null | undefined): string | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : `${d.toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const GRACE_CHOICES: readonly { seconds: number; label: string }[] = [
  { seconds: 0, label: 'Now' },
  { seconds: 3600, label: 'In 1 hour' },
  { seconds: 86_400, label: 'In 24 hours' },
  { seconds: 604_800, label: 'In 7 days' },
];

/** A span of time as a person reads it: "45 s", "12 min", "2 h", "4 d 22 h". */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

export interface HealthLike {
  deliveries_24h: number;
  success_rate_24h: number | null;
  failing_since: string | null;
  disables_at: string | null;
}

/** "Failing since 2 h, will be disabled in 4 d 22 h", or the day's success rate. */
export function healthSummary(
  h: HealthLike,
  now = Date.now(),
): { tone: 'ok' | 'bad' | 'idle'; text: string } {
  const rate =
    h.success_rate_24h === null
      ? null
      : `${Math.round(h.success_rate_24h * 1000) / 10}% of ${h.deliveries_24h} delivered in 24 h`;
  if (h.failing_since) {
    const since = `Failing since ${span(now - Date.parse(h.failing_since))}`;
    const disables = h.disables_at ? `, will be disabled in ${span(Date.parse(h.disables_at) - now)}` : '';
    return { tone: 'bad', text: `${since}${disables}${rate ? ` · ${rate}` : ''}` };
  }
  if (rate === null) return { tone: 'idle', text: 'No deliveries in 24 h' };
  return { tone: h.success_rate_24h === 1 ? 'ok' : 'bad', text: rate };
}

/**
 * The endpoint's pace in words: "paced at 7.6/s because the endpoint answered 429", "at most 50/s (its rate
 * limit)", or "unconstrained".
 */
export function paceWords(h: Pick<WebhookHealth, 'pace' | 'pace_reason'>): string {
  if (h.pace === null) return 'unconstrained';
  const rate = `${Math.round(h.pace * 10) / 10}/s`;
  switch (h.pace_reason) {
    case '429':
    case '503':
      return `paced at ${rate} because the endpoint answered ${h.pace_reason}`;
    case 'timeout':
      return `paced at ${rate} because the endpoint timed out`;
    case 'rate_limit':
    case null:
      return `at most ${rate} (its rate limit)`;
  }
}

/**
 * What an attempt met, in words a person acts on: "HTTP 503", "connection refused", "timed out after 15 s",
 * "TLS error"... from its HTTP status, or from the error the sender recorded (`code: detail`).
 */
export function outcomeWords(status: number | null, error: string | null): string {
  if (status !== null) return `HTTP ${status}`;
  if (!error) return 'no answer';
  const code = error.split(':', 1)[0]!.trim();
  if (code === 'timeout') {
    const seconds = /within ([\d.]+) s/.exec(error)?.[1];
    return seconds ? `timed out after ${seconds} s` : 'timed out';
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (code === 'blocked_address') return 'address not allowed';
  if (/CERT|TLS|SSL|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) return 'TLS error';
  return `error (${code})`;
}

/** One name per delivery state, on every page: a pending delivery that was tried already is retrying. */
export function deliveryStatus(d: { status: string; attempt_count?: number | undefined }): string {
  return d.status === 'pending' && (d.attempt_count ?? 0) > 0 ? 'retrying' : d.status;
}
