import { localTime, utcTitle } from '../lib/format.ts';

/** A time in the viewer's zone, with the UTC instant on hover. */
export function TimeText({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  return (
    <time dateTime={value} title={utcTitle(value)}>
      {localTime(value)}
    </time>
  );
}
