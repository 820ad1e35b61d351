import { healthSummary, type HealthLike } from '../lib/format.ts';

/** An endpoint's last day in plain words, coloured by how it goes. */
export function HealthText({ health }: { health: HealthLike }) {
  const { tone, text } = healthSummary(health);
  const badge = tone === 'ok' ? 'badge-green' : tone === 'bad' ? 'badge-red' : 'badge-grey';
  return (
    <span className="health">
      <span className={`badge ${badge} health-dot`} aria-hidden="true" />
      <span data-testid="health">{text}</span>
    </span>
  );
}
