// Ids are `<kind>_` + 10 chars of millisecond time + 20 random chars, in an alphabet whose character order is
// its byte order, so ids sort by creation time: a cursor is a plain `id < $cursor` on the primary key.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case: byte order = value order
const TIME_CHARS = 10; // 50 bits of milliseconds: good until the year 37648
const RANDOM_CHARS = 20; // 100 random bits, above the contract's 96

export const ID_KINDS = [
  'mer',
  'usr',
  'store',
  'ses',
  'app',
  'key',
  'wh',
  'evt',
  'dlv',
  'att',
  'log',
  'cart',
  'grant',
  'consent',
  'tok',
] as const;
export type IdKind = (typeof ID_KINDS)[number];

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32]! + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

export function newId(kind: IdKind, at: Date = new Date()): string {
  const bytes = randomBytes(RANDOM_CHARS);
  let random = '';
  for (const byte of bytes) random += ALPHABET[byte & 31];
  return `${kind}_${encodeTime(at.getTime())}${random}`;
}

/** The smallest id of a kind made at or after `at`: turns a time bound into a primary-key bound. */
export function idFloor(kind: IdKind, at: Date): string {
  return `${kind}_${encodeTime(at.getTime())}`;
}

const ID_SHAPE = /^[a-z]+_[0-9a-hjkmnp-tv-z]{30}$/;

export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${kind}_`) && ID_SHAPE.test(value);
}
