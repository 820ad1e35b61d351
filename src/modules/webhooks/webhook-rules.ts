// The checks on what a merchant sends for a webhook: the URL (absolute; https in live mode; no private or
// reserved target unless the operator allows it) and the events (non-empty, each in the catalog).
import type { Config } from '../../config.ts';
import type { Mode } from '../../lib/credentials.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import { isEventType } from '../events/index.ts';
import { hostRefusal } from './url-guard.ts';

export async function checkUrl(config: Config, mode: Mode, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('url', 'must be an absolute URL');
  }
  if (mode === 'live' && url.protocol !== 'https:') throw invalid('url', 'must use https in live mode');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('url', 'must use http or https');
  if (!url.hostname) throw invalid('url', 'must name a host');
  if (!config.webhookAllowPrivate) {
    const refusal = await hostRefusal(url.hostname);
    if (refusal) throw invalid('url', refusal);
  }
  return raw;
}

/** The events, deduplicated in their order; unknown ones are all named in the error. */
export function checkEvents(events: readonly string[]): string[] {
  const unknown = events.map((e, i) => ({ e, i })).filter(({ e }) => !isEventType(e));
  if (unknown.length > 0) {
    throw new AppError(
      'validation_failed',
      `events has event types that are not in the catalog: ${unknown.map((u) => u.e).join(', ')}.`,
      {
        details: unknown.map(({ e, i }) => ({
          field: `events[${i}]`,
          issue: `${e} is not an event of the catalog`,
        })),
      },
    );
  }
  return [...new Set(events)];
}
