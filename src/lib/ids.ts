// Ids are `<kind>_` + 10 chars of millisecond time + 20 random chars, in an alphabet whose character order is
// its byte order, so ids sort by creation time: a cursor is a plain `id < $cursor` on the primary key.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case: byte order = value order
const TIME_CHARS = 10; // 50 bits of milliseconds: good until the year 37648
const RANDOM_CHARS = 20; // 99 random bits (one kept for monotonic increments), above the contract's 96

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
  'inv',
  'pk',
  'rpl',
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

// Monotonic within the process, as ULIDs are: an id made in the same millisecond as the previous one takes
// the previous random part plus one, so entries written in a burst still list in the order they were made.
// Process-wide by definition (the order of ids made in this process), like the clock it extends.
// eslint-disable-next-line no-restricted-syntax
let lastTime = -1;
const lastRandom: number[] = new Array<number>(RANDOM_CHARS).fill(0);

// Any other millisecond starts afresh, a past one included: ids are made at the time a caller passes (a test's
// clock beside the system's, a clock stepped back), and a burst at that time must still list in order.
function nextRandom(ms: number): number[] {
  if (ms === lastTime) {
    for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
      if (lastRandom[i]! < 31) {
        lastRandom[i]!++;
        return lastRandom;
      }
      lastRandom[i] = 0;
    }
  }
  lastTime = ms;
  return fresh(lastRandom);
}

function fresh(digits: number[]): number[] {
  const bytes = randomBytes(RANDOM_CHARS);
  // The top bit of the first character stays clear so the increments above have room before overflowing.
  for (let i = 0; i < RANDOM_CHARS; i++) digits[i] = bytes[i]! & (i === 0 ? 15 : 31);
  return digits;
}

/** A new id made at `at` (epoch ms, the service's clock: a delivery's age and the purges read it). */
export function newId(kind: IdKind, at: number): string {
  let random = '';
  for (const digit of nextRandom(at)) random += ALPHABET[digit];
  return `${kind}_${encodeTime(at)}${random}`;
}

/**
 * An id of our shape for an object that another part of the platform keeps (an order, a customer, a
 * product): the data of a triggered event names such objects.
 */
export function platformId(prefix: string, at: Date): string {
  let random = '';
  for (const digit of nextRandom(at.getTime())) random += ALPHABET[digit];
  return `${prefix}_${encodeTime(at.getTime())}${random}`;
}

/** The smallest id of a kind made at or after `at`: turns a time bound into a primary-key bound. */
export function idFloor(kind: IdKind, at: Date): string {
  return `${kind}_${encodeTime(at.getTime())}`;
}

const ID_SHAPE = /^[a-z]+_[0-9a-hjkmnp-tv-z]{30}$/;

export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${kind}_`) && ID_SHAPE.test(value);
}

/** When an id was made (its time part), in milliseconds; NaN for what is not one of our ids. */
export function idTime(id: string): number {
  const start = id.indexOf('_') + 1;
  if (start === 0 || id.length < start + TIME_CHARS) return NaN;
  let ms = 0;
  for (let i = start; i < start + TIME_CHARS; i++) {
    const digit = ALPHABET.indexOf(id[i]!);
    if (digit < 0) return NaN;
    ms = ms * 32 + digit;
  }
  return ms;
}
