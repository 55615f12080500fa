// @ts-nocheck
import { signWebhook } from "partner-orders/webhooks";

export const SECRET = "whsec_test_only_0123456789";
export const NOW = new Date("2025-06-01T12:00:00Z");
export const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

export function shipmentShipped(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventId: "evt_0a1b2c3d",
    type: "shipment.shipped",
    occurredAt: "2025-06-01T11:59:58Z",
    siteId: 12,
    orderNumber: 4711,
    partnerOrderId: "PO-1",
    shipmentNumber: 2,
    ...overrides,
  };
}

/** A body and headers as the platform would deliver them. */
export async function delivery(
  event: Record<string, unknown> = shipmentShipped(),
  options: { secret?: string; t?: number } = {},
) {
  const body = JSON.stringify(event);
  const signature = await signWebhook(body, options.secret ?? SECRET, {
    t: options.t ?? NOW_SECONDS,
  });
  return {
    body,
    headers: { "platform-signature": signature, "platform-event-id": String(event.eventId) },
  };
}
