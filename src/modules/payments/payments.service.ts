// The countries payments are supported in: every ISO 3166-1 alpha-2 code with its English short name, from
// i18n-iso-countries (kept current with the ISO list). Computed once: the answer never changes while the
// process runs, so it is serialised once too and the hot path only writes bytes.
import countries from 'i18n-iso-countries';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };

countries.registerLocale(en);

// XK (Kosovo) is a user-assigned code, not part of ISO 3166-1. "United States" is the name the contract
// shows (API.md section 6) where the package's first English name is "United States of America".
const NOT_ISO: readonly string[] = ['XK'];
const NAMES: Record<string, string> = { US: 'United States' };

export interface Country {
  code: string;
  name: string;
}

export const SUPPORTED_COUNTRIES: readonly Country[] = Object.freeze(
  Object.entries(countries.getNames('en', { select: 'official' }))
    .filter(([code]) => !NOT_ISO.includes(code))
    .map(([code, name]) => Object.freeze({ code, name: NAMES[code] ?? name }))
    .sort((a, b) => a.code.localeCompare(b.code)),
);

// A Buffer, not a string: Node then writes the bytes as they are instead of encoding ~10 KB of UTF-8 on every
// answer, which was 17% of the public read's CPU profile.
export const SUPPORTED_COUNTRIES_JSON = jsonBuffer({
  data: {
    items: SUPPORTED_COUNTRIES,
    count: SUPPORTED_COUNTRIES.length,
    has_more: false,
    next_cursor: null,
  },
});

function jsonBuffer(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
