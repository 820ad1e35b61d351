// What a cached value costs in memory, estimated from its shape: the caches are bounded by bytes, not by entries,
// because an entry's size varies tenfold (a key's principal against an app with its public keys) and the bound
// is there for the process's resident memory (docs/decisions/0215-caches-bounded-by-bytes.md). The figures are
// V8's on 64-bit Node without pointer compression (Node's build): a header and 8 bytes a field or element, a
// one-byte string's header and its characters rounded to 8. A value reached twice is counted twice, so the
// estimate errs high. Against `heapUsed` for 100,000 entries of a BusCache, keys and tags included: an access
// token 825 bytes measured, 800 estimated; an API key 738 and 688 (src/db/bus-cache.ts adds the Map's and the
// tags' share).

const WORD = 8;
const OBJECT_HEADER = 3 * WORD;
const ARRAY_HEADER = 4 * WORD; // the JSArray and its FixedArray's header
const STRING_HEADER = 2 * WORD;
/** A Buffer's (or typed array's) JS object, its ArrayBuffer and the backing store's record, besides its bytes. */
const BUFFER_OVERHEAD = 160;
/** Anything held by a handle (a KeyObject): its wrapper and the native object behind it. */
const NATIVE_OBJECT = 512;

const roundUp = (n: number) => Math.ceil(n / WORD) * WORD;

/** An estimate of the bytes `value` holds, its strings, arrays, plain objects and Buffers included. */
export function heapBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return roundUp(STRING_HEADER + value.length);
    case 'number':
      return WORD; // a double boxed on its own; a small integer costs nothing beyond its field
    case 'bigint':
      return 2 * WORD;
    case 'object':
      return value === null ? 0 : objectBytes(value);
    case 'boolean':
    case 'undefined':
    case 'symbol':
    case 'function':
      return 0; // constants and functions shared by every value
  }
}

function objectBytes(value: object): number {
  // A small Buffer is often a slice of Node's pool (Buffer.poolSize, 64 KiB on Node 24), all of which it keeps alive.
  if (ArrayBuffer.isView(value)) return BUFFER_OVERHEAD + value.buffer.byteLength;
  if (value instanceof Date) return OBJECT_HEADER + WORD;
  if (Array.isArray(value)) {
    let n = ARRAY_HEADER + WORD * value.length;
    for (const item of value) n += heapBytes(item);
    return n;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NATIVE_OBJECT;
  let n = OBJECT_HEADER;
  for (const field of Object.values(value)) n += WORD + heapBytes(field);
  return n;
}

/**
 * A copy of `bytes` in memory of its own. `Buffer.from` of a string (the driver's bytea, a base64 secret) gives a
 * slice of Node's 64 KiB pool, which a cached slice keeps alive whole: a cache of 2,000 such keys, each made
 * between other allocations, could keep 125 MB where it needs 64 KB.
 */
export function unpooled(bytes: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
}
