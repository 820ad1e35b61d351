// Rules that every route schema shares, added to both validators (src/app.ts): the range of dates that
// both databases store, and the fields where a secret credential must never be written.
import type { Ajv, SchemaValidateFunction } from 'ajv';
import { looksLikeSecret } from '../lib/credentials.ts';

/** Schema keyword of the fields that must not hold a credential (names, descriptions, URLs). */
export const NO_SECRET = 'x-no-secret';
export const NO_SECRET_ISSUE =
  'looks like a secret credential; secrets do not belong there: revoke it if it was real';

// RFC 3339 as ajv-formats reads it, then the instant's year in UTC within 0001-9999: PostgreSQL has no year
// 0 and PGlite failed on `0000-01-01T00:00:00Z` (500), while a JavaScript Date reaches year 275760.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function storableDateTime(text: string): boolean {
  if (!RFC3339.test(text)) return false;
  const time = Date.parse(text.toUpperCase().replace(' ', 'T'));
  if (Number.isNaN(time)) return false;
  const year = new Date(time).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** After ajv-formats: its date-time (which checks the calendar) narrowed to the storable range. */
export function addSchemaRules(ajv: Ajv): void {
  const base = ajv.formats['date-time'] as { validate: (text: string) => boolean } | undefined;
  if (!base) throw new Error('add ajv-formats before the schema rules');
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text) => base.validate(text) && storableDateTime(text),
  });
  const noSecret: SchemaValidateFunction = (on: boolean, data: string) => {
    if (!on || !looksLikeSecret(data)) return true;
    noSecret.errors = [{ keyword: NO_SECRET, message: NO_SECRET_ISSUE, params: {} }];
    return false;
  };
  ajv.addKeyword({
    keyword: NO_SECRET,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: noSecret,
  });
}
