/** Times leave the service as ISO 8601 UTC with milliseconds and `Z` (API.md section 1). */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
