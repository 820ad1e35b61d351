// The audit chain's rule (API.md section 11.5), in one place for the three that apply it: the sealer that
// computes each hash, the service's chain check, and `svc audit verify` over an export.
//
// hash = lowercase hex SHA-256 of the UTF-8 bytes of prev_hash (64 hex characters; 64 zeros for the first
// entry) followed by the RFC 8785 canonical JSON of {id, action, entity_type, entity_id, metadata, created_at,
// sequence}, where `metadata` is the JSON string exactly as the entry shows it (not the object it encodes:
// what an auditor holds is the export, and the string is what it has) and `created_at` the entry's ISO 8601
// string with milliseconds, as the list and the export show it.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export const GENESIS_HASH = '0'.repeat(64);

/** What the hash covers. */
export interface ChainFields {
  id: string;
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: string;
  sequence: number;
}

export interface SealedEntry extends ChainFields {
  hash: string;
  prev_hash: string;
}

export function entryHash(prevHash: string, e: ChainFields): string {
  const body = canonicalize({
    id: e.id,
    action: e.action,
    entity_type: e.entity_type,
    entity_id: e.entity_id,
    metadata: e.metadata,
    created_at: e.created_at,
    sequence: e.sequence,
  });
  return createHash('sha256').update(prevHash).update(body!).digest('hex');
}

/** The string a checkpoint's Ed25519 signature covers. */
export function checkpointMessage(c: {
  merchant_id: string;
  mode: string;
  sequence: number;
  hash: string;
  signed_at: string;
}): string {
  return `svc-audit-checkpoint.v1.${c.merchant_id}.${c.mode}.${c.sequence}.${c.hash}.${c.signed_at}`;
}

const twice = (sequence: number) =>
  `sequence ${sequence} appears twice, here and on the entry before: one of the two was inserted`;

/** Where a walk found the chain broken: the entry's place (a line of a file, or its sequence) and why. */
export interface ChainBreak {
  at: number;
  /** The sequence the entry carries. */
  sequence: number;
  issue: string;
  /** For a sequence that jumps: the one expected, which a caller may look for elsewhere (a moved line). */
  expected?: number;
}

/**
 * Walks sealed entries in sequence order, oldest first or newest first (told by the first two), and finds
 * the first that breaks the chain: its hash does not recompute (an edited field), its sequence is not the
 * next one (removed, inserted or moved), or its link to its neighbour does not hold (an entry replaced or
 * forged). A narrowed walk (an export filtered by action, entity or time) holds only some entries of the
 * chain, so it proves each against its own prev_hash and checks that the sequences keep one direction.
 */
export class ChainWalk {
  readonly narrowed: boolean;
  count = 0;
  first: SealedEntry | undefined;
  last: SealedEntry | undefined;
  /** +1 oldest first, -1 newest first; 0 until two entries were seen. */
  private direction = 0;

  constructor(options: { narrowed?: boolean } = {}) {
    this.narrowed = options.narrowed ?? false;
  }

  /** Lowest and highest sequence seen. */
  get range(): [number, number] | undefined {
    if (!this.first || !this.last) return undefined;
    const [a, b] = [this.first.sequence, this.last.sequence];
    return a <= b ? [a, b] : [b, a];
  }

  add(e: SealedEntry, at: number): ChainBreak | undefined {
    const broken = this.check(e, at);
    if (broken) return broken;
    this.first ??= e;
    this.last = e;
    this.count++;
    return undefined;
  }

  private check(e: SealedEntry, at: number): ChainBreak | undefined {
    const fail = (issue: string, expected?: number): ChainBreak => ({
      at,
      sequence: e.sequence,
      issue,
      ...(expected === undefined ? {} : { expected }),
    });
    if (e.sequence === 1 && e.prev_hash !== GENESIS_HASH)
      return fail('the first entry (sequence 1) must have 64 zeros as prev_hash');
    if (entryHash(e.prev_hash, e) !== e.hash)
      return fail('its hash does not match its fields: the entry was edited');
    const before = this.last;
    if (!before) return undefined;
    if (this.direction === 0) {
      if (e.sequence === before.sequence) return fail(twice(e.sequence));
      this.direction = e.sequence > before.sequence ? 1 : -1;
    }
    const step = (e.sequence - before.sequence) * this.direction;
    if (step === 0) return fail(twice(e.sequence));
    if (step < 0) {
      return fail(
        `sequence ${e.sequence} comes after ${before.sequence}, against the order of the export: entries moved`,
      );
    }
    if (this.narrowed) return undefined;
    const expected = before.sequence + this.direction;
    if (step > 1) return fail(`sequence ${e.sequence} follows ${before.sequence}`, expected);
    const [older, newer] = this.direction === 1 ? [before, e] : [e, before];
    if (newer.prev_hash !== older.hash) {
      return fail(
        `the entry of sequence ${newer.sequence} does not link to the entry of sequence ${older.sequence} ` +
          '(prev_hash is not its hash): an entry was replaced or forged',
      );
    }
    return undefined;
  }
}
