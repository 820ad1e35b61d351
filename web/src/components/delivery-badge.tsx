import { deliveryStatus } from '../lib/format.ts';
import { StatusBadge } from './status-badge.tsx';

/** A delivery's state under one name wherever it is shown (endpoint, event, delivery pages). */
export function DeliveryBadge({ delivery }: { delivery: { status: string; attempt_count?: number } }) {
  return <StatusBadge status={deliveryStatus(delivery)} />;
}
