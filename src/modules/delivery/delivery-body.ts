// The body a delivery sends (API.md sections 7 and 11.1). A merchant's own delivery sends the event's stored
// payload as it is, serialised once for every delivery and attempt. A delivery to an app webhook adds the
// installation it was made for: `app_id`, `grant_id` and `store_id` after the event's fields. Composed at
// send time from the stored payload and the delivery's own columns rather than stored per delivery, so the
// fan-out writes no body per app webhook, and a function of stored values only, so every attempt (and the
// deliveries page) sends and shows the same bytes, whatever happened to the installation since.

/** The installation of an app delivery; `appId` null for a merchant's own webhook. */
export interface DeliveryTarget {
  appId: string | null;
  grantId: string | null;
  storeId: string | null;
}

export function deliveryBody(payload: string, target: DeliveryTarget): string {
  if (target.appId === null) return payload;
  // The payload is a JSON object written by buildEvent (outbox.service.ts): it ends with its closing brace.
  const extra = JSON.stringify({
    app_id: target.appId,
    grant_id: target.grantId,
    store_id: target.storeId,
  });
  return `${payload.slice(0, -1)},${extra.slice(1)}`;
}
