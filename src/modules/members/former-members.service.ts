// The team's memory (API.md section 12.4): the members removed in the last 90 days whose exposed credentials
// (section 11.2) still work, so that the prompt to rotate them outlives the removal dialog. Read from the audit
// trail like the exposure itself: the removals (`member.removed`, with their actor), then each former member's
// credentials as `credentialsSeenBy` finds them now. Someone removed and back in the team is a member again,
// not a former one.
import type { Context } from '../../context.ts';
import { iso } from '../../lib/time.ts';
import { trailEntries, type TrailEntry } from '../audit/index.ts';
import { findMember } from '../identity/index.ts';
import { credentialsSeenBy, type ExposedCredential } from './exposure.service.ts';

// How long a removal is remembered: a credential still working three months after its holder left has been
// missed, and the audit log keeps the trail longer for whoever digs.
export const FORMER_MEMBER_DAYS = 90;
const DAY_MS = 86_400_000;

export interface FormerMember {
  id: string;
  email: string;
  removed_at: string;
  /** The user who removed the member. */
  removed_by: string | null;
  removed_by_email: string | null;
  exposed_credentials: ExposedCredential[];
}

interface Removal {
  email?: unknown;
  actor?: { id?: unknown; email?: unknown };
}

const text = (v: unknown) => (typeof v === 'string' ? v : null);

function removalOf(entry: TrailEntry): Omit<FormerMember, 'exposed_credentials'> {
  let metadata: Removal = {};
  try {
    metadata = JSON.parse(entry.metadata) as Removal;
  } catch {
    // an entry without readable metadata still names the member by its id
  }
  return {
    id: entry.entity_id,
    email: text(metadata.email) ?? entry.entity_id,
    removed_at: iso(entry.created_at),
    removed_by: text(metadata.actor?.id),
    removed_by_email: text(metadata.actor?.email),
  };
}

/** Newest removal first; only those whose exposed credentials are not all rotated, revoked or expired. */
export async function formerMembers(ctx: Context, merchantId: string): Promise<FormerMember[]> {
  const since = ctx.clock.now() - FORMER_MEMBER_DAYS * DAY_MS;
  const removals = await trailEntries(ctx.db, merchantId, { actions: ['member.removed'] });
  // oldest first: the last removal of a user is the one that counts
  const latest = new Map<string, TrailEntry>();
  for (const entry of removals) {
    if (entry.created_at.getTime() >= since) latest.set(entry.entity_id, entry);
  }
  const found: FormerMember[] = [];
  for (const entry of [...latest.values()].reverse()) {
    if (await findMember(ctx.db, merchantId, entry.entity_id)) continue;
    const exposed = await credentialsSeenBy(ctx, merchantId, entry.entity_id);
    if (exposed.length > 0) found.push({ ...removalOf(entry), exposed_credentials: exposed });
  }
  return found;
}
