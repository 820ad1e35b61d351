// How a request log entry reads in the dashboard.
import type { RequestEntry } from '../../lib/types.ts';

export const HERE = '/settings/developers/requests';

const KINDS: Record<RequestEntry['credential']['type'], string> = {
  secret_key: 'Secret key',
  publishable_key: 'Publishable key',
  access_token: 'Access token',
  client_secret: 'Client secret',
};

/** "Secret key key_… ····abcd": which credential, never the credential. */
export function credentialText(c: RequestEntry['credential']): string {
  return `${KINDS[c.type]} ${c.id} ····${c.last4}`;
}

/** The badge tone of a status: green for 2xx, amber for 4xx, red for 5xx. */
export function statusTone(status: number): string {
  if (status >= 500) return 'badge-red';
  if (status >= 400) return 'badge-amber';
  return 'badge-green';
}

export const detailPath = (id: string) => `${HERE}/${encodeURIComponent(id)}`;
