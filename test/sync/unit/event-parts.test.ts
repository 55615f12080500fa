import { describe, expect, it } from "vitest";
import { webhookEventTypes } from "../../../src/generated/money";
import { eventParts, isKnownWebhookEvent } from "../../../src/webhooks/events";

// The API document's "Event types" table: what each event names for re-reading. The mirror and
// `client.refetch` both read it from eventParts.
describe("eventParts", () => {
  it.each([
    ["order.status_changed", { order: true, items: false, shipments: false }],
    ["shipment.shipped", { order: false, items: false, shipments: true }],
    ["shipment.cancelled", { order: false, items: false, shipments: true }],
    ["order_line.cancelled", { order: false, items: true, shipments: false }],
  ])("%s names %o", (type, parts) => {
    expect(eventParts(type)).toStrictEqual(parts);
  });

  it("knows every type the spec describes, and exactly the types isKnownWebhookEvent knows", () => {
    const event = { eventId: "e1", occurredAt: "", siteId: 1, orderNumber: 1 };
    for (const type of webhookEventTypes) {
      expect(eventParts(type)).toBeDefined();
      expect(isKnownWebhookEvent({ ...event, type })).toBe(true);
    }
    for (const type of ["order.created", "Order.Status_Changed", "constructor"]) {
      expect(isKnownWebhookEvent({ ...event, type })).toBe(false);
    }
  });

  it.each([
    "order.created",
    "",
    "shipment",
    "ORDER.STATUS_CHANGED",
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
  ])("names nothing for %j, a type this version does not know", (type) => {
    expect(eventParts(type)).toBeUndefined();
  });

  it("names nothing for a type that is not text (an event from plain JavaScript)", () => {
    expect(eventParts(undefined as unknown as string)).toBeUndefined();
    expect(eventParts(null as unknown as string)).toBeUndefined();
  });

  it("gives a fresh object each time, so a caller that merges into it changes no other read", () => {
    const first = eventParts("shipment.shipped");
    if (!first) throw new Error("shipment.shipped names no parts");
    first.items = true;
    first.order = true;
    expect(eventParts("shipment.shipped")).toStrictEqual({
      order: false,
      items: false,
      shipments: true,
    });
    expect(eventParts("shipment.cancelled")).toStrictEqual({
      order: false,
      items: false,
      shipments: true,
    });
  });
});
