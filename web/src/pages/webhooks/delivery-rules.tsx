// What a merchant sets of an endpoint's delivery (API.md section 11.4), on the create page and the edit
// dialog: a rate limit (attempts per second, empty for none) and per-object ordering.
import type { Webhook } from '../../lib/types.ts';

export interface DeliveryRules {
  /** As typed: empty for no limit. */
  rateLimit: string;
  perObject: boolean;
}

export const rulesOf = (w?: Pick<Webhook, 'rate_limit' | 'ordering'>): DeliveryRules => ({
  rateLimit: w?.rate_limit == null ? '' : String(w.rate_limit),
  perObject: w?.ordering === 'per_object',
});

/** The request's fields: `rate_limit` null when left empty. */
export const rulesBody = (r: DeliveryRules) => ({
  rate_limit: r.rateLimit.trim() === '' ? null : Number(r.rateLimit),
  ordering: r.perObject ? ('per_object' as const) : ('none' as const),
});

export function DeliveryRulesFields(props: {
  value: DeliveryRules;
  onChange: (next: DeliveryRules) => void;
}) {
  const { value, onChange } = props;
  return (
    <>
      <label className="field">
        <span className="label">
          Rate limit <span className="muted">(optional)</span>
        </span>
        <input
          className="input"
          type="number"
          min={1}
          max={10000}
          step={1}
          inputMode="numeric"
          value={value.rateLimit}
          placeholder="No limit"
          onChange={(e) => onChange({ ...value, rateLimit: e.target.value })}
          aria-describedby="rate-limit-hint"
        />
        <span className="hint" id="rate-limit-hint">
          Attempts per second, 1-10000: never more start in any one second. Below it, the pace adapts when the
          endpoint answers 429 or 503, or times out.
        </span>
      </label>
      <fieldset className="choices">
        <legend className="label">Ordering</legend>
        <label className="choice">
          <input
            type="checkbox"
            checked={value.perObject}
            onChange={(e) => onChange({ ...value, perObject: e.target.checked })}
          />
          Per object
          <span className="muted">
            A delivery waits while an earlier one about the same object is pending; other objects flow.
          </span>
        </label>
      </fieldset>
    </>
  );
}
