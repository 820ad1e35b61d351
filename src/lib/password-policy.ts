// Passwords as NIST SP 800-63B (rev. 4, section 3.1.1.2) asks: at least 10 characters here (15 is its
// floor for a single factor; 10 is this contract's minimum, and the sign-in limits bound online guessing),
// up to 1024, any printable Unicode including spaces, no composition rules, and refused when the password
// is commonly used, repetitive or sequential, or the account's own email. Control characters (NUL among them) are refused:
// they cannot be typed and are mangled by the forms and terminals a password passes through.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

// The common-password list of zxcvbn-ts (@zxcvbn-ts/language-common, MIT; the ranked list of the zxcvbn
// project, from leaked-password corpora). 49,233 entries, most common first, so it holds the 10,000 most
// common and more: only 145 of the first 10,000 are 10 characters or longer, against 1,557 in the whole
// list. Read on first use, not at import: parsing the 476 KiB file takes 50-300 ms, which every process
// start and every test file would pay; only passwords of at least the minimum length are kept.
// A constant loaded on first use (see above), never written after.
// eslint-disable-next-line no-restricted-syntax
let common: ReadonlySet<string> | undefined;

function commonPasswords(): ReadonlySet<string> {
  if (!common) {
    const file = createRequire(import.meta.url).resolve('@zxcvbn-ts/language-common/src/passwords.json');
    const list = JSON.parse(readFileSync(file, 'utf8')) as string[];
    common = new Set(list.filter((p) => [...p].length >= PASSWORD_MIN_LENGTH).map(canonical));
  }
  return common;
}

/** The form compared with the list: what the hash sees (NFKC), without case. */
function canonical(password: string): string {
  return password.normalize('NFKC').toLowerCase();
}

// C0 and C1 controls and DEL (\p{Cc}), and lone surrogates (\p{Cs}), which no text encoding can carry.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

/** One unit of 1-4 characters repeated (`aaaaaaaaaa`, ten spaces, `abcabcabca`). */
function repetitive(password: string): boolean {
  const chars = [...password];
  for (let unit = 1; unit <= 4; unit++) {
    if (chars.every((c, i) => c === chars[i % unit])) return true;
  }
  return false;
}

/** Every character one after the previous, or one before (`0123456789`, `abcdefghij`, `9876543210`). */
function sequential(password: string): boolean {
  const codes = [...password].map((c) => c.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  return Math.abs(step) === 1 && codes.every((c, i) => i === 0 || c - codes[i - 1]! === step);
}

/** Why the password is refused, as the `issue` of a validation detail; undefined when it is acceptable. */
export function passwordProblem(password: string, context: { email?: string } = {}): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (UNPRINTABLE.test(password)) return 'must not contain control characters (NUL, tabs, line breaks)';
  if (repetitive(password)) return 'must not be one character or a short sequence repeated';
  if (sequential(password)) return 'must not be a run of consecutive characters';
  const form = canonical(password);
  if (commonPasswords().has(form)) {
    return 'is one of the most commonly used passwords; choose another';
  }
  const email = context.email?.trim();
  if (email && (form === canonical(email) || form === canonical(email.split('@')[0] ?? ''))) {
    return 'must not be the email address';
  }
  return undefined;
}

/** A password for generated accounts (the demo merchant): 16 base64url characters, 96 random bits. */
export function generatePassword(): string {
  for (;;) {
    const password = randomBytes(12).toString('base64url');
    if (passwordProblem(password) === undefined) return password;
  }
}
