// A URI as text (RFC 3986 section 2): only ASCII letters, digits, the reserved and unreserved marks, and
// `%` followed by two hex digits. WHATWG URL parsing accepts far more (spaces, `漢`, CR/LF, which it encodes
// or strips), so a URI checked only through `new URL()` could be stored raw and then fail as a `Location`
// header. Every URI we store and later redirect to passes this check first.
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/** Why the text is not a URI we can store and send back in a header; `undefined` when it is one. */
export function uriTextIssue(text: string): string | undefined {
  if (!URI_CHARS.test(text)) {
    return 'must be ASCII (RFC 3986): percent-encode other characters; no spaces or control characters';
  }
  if (BAD_PERCENT.test(text)) return 'must follow each % with two hex digits (RFC 3986)';
  return undefined;
}
