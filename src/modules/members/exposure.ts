// Which credentials a member saw in clear, from the audit trail alone (API.md section 11.2), as a pure function
// of the entries: docs/decisions/0120-users-memberships-sessions.md, states the rule.
//
// - A key pair's secret is shown once, when the pair is made: by `api_key.created` (the entry's entity) or by
//   `api_key.rotated` (the new pair, `new_key_id` among the fields). Each pair has one secret: it still works
//   while the pair is neither revoked nor expired.
// - A client secret is shown when the app is created or its secret rotated; a webhook's signing secret then,
//   and when it is revealed. These rotate in place, so what was seen is a generation: the number of
//   secret-making entries of the entity (by anyone) up to the sighting. The current generation still works;
//   the one before it while the previous secret's grace runs; older ones never.
import type { TrailEntry } from '../audit/index.ts';

export type CredentialType = 'api_key' | 'client_secret' | 'webhook_secret';
export type How = 'created' | 'rotated' | 'revealed';

/** What each action shows of which credential kind, and how. */
export const SIGHTINGS: Readonly<Record<string, { type: CredentialType; how: How }>> = {
  'api_key.created': { type: 'api_key', how: 'created' },
  'api_key.rotated': { type: 'api_key', how: 'rotated' },
  'developer_app.created': { type: 'client_secret', how: 'created' },
  'developer_app.secret_rotated': { type: 'client_secret', how: 'rotated' },
  'webhook.created': { type: 'webhook_secret', how: 'created' },
  'webhook.secret_rotated': { type: 'webhook_secret', how: 'rotated' },
  'webhook.secret_revealed': { type: 'webhook_secret', how: 'revealed' },
};

/** The actions that make a new secret of an app or a webhook, whoever acts. */
export const SECRET_MAKERS: Readonly<Record<'client_secret' | 'webhook_secret', readonly string[]>> = {
  client_secret: ['developer_app.created', 'developer_app.secret_rotated'],
  webhook_secret: ['webhook.created', 'webhook.secret_rotated'],
};

/** The member's last sighting of one credential. */
export interface Sighting {
  type: CredentialType;
  /** The key pair, app or webhook. */
  id: string;
  how: How;
  /** The entry that recorded it: its id orders it among the entity's other entries. */
  entryId: string;
  seenAt: Date;
}

function newKeyId(entry: TrailEntry): string | undefined {
  try {
    const id = (JSON.parse(entry.metadata) as { new_key_id?: unknown }).new_key_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The member's sightings (its entries of SIGHTINGS' actions, oldest first), the last per credential. */
export function lastSightings(entries: readonly TrailEntry[]): Sighting[] {
  const last = new Map<string, Sighting>();
  for (const entry of entries) {
    const sighting = SIGHTINGS[entry.action];
    if (!sighting) continue;
    const id = entry.action === 'api_key.rotated' ? newKeyId(entry) : entry.entity_id;
    if (!id) continue;
    last.set(`${sighting.type}:${id}`, { ...sighting, id, entryId: entry.id, seenAt: entry.created_at });
  }
  return [...last.values()];
}

/**
 * How many secrets were made before the sighting's, and after it: 0 after means the member saw the current
 * secret, 1 the previous one. `makers` are the entity's secret-making entries, oldest first.
 */
export function secretsSince(sighting: Sighting, makers: readonly TrailEntry[]): number {
  return makers.filter((m) => m.entity_id === sighting.id && m.id > sighting.entryId).length;
}
