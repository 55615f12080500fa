// @ts-nocheck
import {
  isKnownWebhookEvent,
  isTestEvent,
  parseWebhook,
  WebhookPayloadError,
} from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { shipmentShipped } from "./support";

function payloadReason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookPayloadError);
    return (error as WebhookPayloadError).reason;
  }
  throw new Error("expected a WebhookPayloadError");
}

describe("parseWebhook", () => {
  it("reads a raw body in every form, and an already parsed value", () => {
    const text = JSON.stringify(shipmentShipped());
    const bytes = new TextEncoder().encode(text);
    for (const body of [text, Buffer.from(text), bytes, bytes.slice().buffer, shipmentShipped()]) {
      expect(parseWebhook(body)).toEqual(shipmentShipped());
    }
  });

  it("keeps occurredAt as sent and lets unknown fields through", () => {
    const event = parseWebhook(
      JSON.stringify(
        shipmentShipped({ occurredAt: "2025-06-01T11:59:58.123+02:00", extra: { a: 1 } }),
      ),
    );
    expect(event.occurredAt).toBe("2025-06-01T11:59:58.123+02:00");
    expect((event as Record<string, unknown>).extra).toEqual({ a: 1 });
  });

  it("leaves partnerOrderId absent for orders not submitted through the API", () => {
    const event = parseWebhook(JSON.stringify(shipmentShipped({ partnerOrderId: undefined })));
    expect("partnerOrderId" in event).toBe(false);
  });

  it("reads unknown types as UnknownWebhookEvent with every field", () => {
    const event = parseWebhook(
      JSON.stringify({
        ...shipmentShipped(),
        type: "shipment.delivered",
        deliveredOn: "2025-06-02",
      }),
    );
    expect(isKnownWebhookEvent(event)).toBe(false);
    expect(event.type).toBe("shipment.delivered");
    expect((event as Record<string, unknown>).deliveredOn).toBe("2025-06-02");
  });

  it("recognises the four known types", () => {
    for (const type of [
      "order.status_changed",
      "shipment.shipped",
      "shipment.cancelled",
      "order_line.cancelled",
    ]) {
      expect(isKnownWebhookEvent(parseWebhook(shipmentShipped({ type })))).toBe(true);
    }
  });

  it("refuses bodies that are not UTF-8 JSON events, with a reason", () => {
    expect(payloadReason(() => parseWebhook(new Uint8Array([0x7b, 0xff, 0x7d])))).toBe(
      "invalid_utf8",
    );
    expect(payloadReason(() => parseWebhook("{"))).toBe("invalid_json");
    expect(payloadReason(() => parseWebhook("[]"))).toBe("invalid_event");
    expect(payloadReason(() => parseWebhook("null"))).toBe("invalid_event");
    expect(payloadReason(() => parseWebhook(undefined as unknown as string))).toBe("invalid_event");
    for (const field of ["eventId", "type", "occurredAt", "siteId", "orderNumber"]) {
      expect(payloadReason(() => parseWebhook(shipmentShipped({ [field]: undefined })))).toBe(
        "invalid_event",
      );
    }
    expect(payloadReason(() => parseWebhook(shipmentShipped({ siteId: "12" })))).toBe(
      "invalid_event",
    );
    expect(payloadReason(() => parseWebhook(shipmentShipped({ orderNumber: 1.5 })))).toBe(
      "invalid_event",
    );
    expect(payloadReason(() => parseWebhook(shipmentShipped({ shipmentNumber: undefined })))).toBe(
      "invalid_event",
    );
    expect(payloadReason(() => parseWebhook(shipmentShipped({ partnerOrderId: 7 })))).toBe(
      "invalid_event",
    );
  });

  it("names the missing field in the message", () => {
    expect(() => parseWebhook(shipmentShipped({ eventId: undefined }))).toThrow(/eventId/);
  });

  it("does not need shipmentNumber on non-shipment events", () => {
    const event = parseWebhook({
      ...shipmentShipped({ type: "order.status_changed" }),
      shipmentNumber: undefined,
    });
    expect(event.type).toBe("order.status_changed");
  });
});

describe("isTestEvent", () => {
  it("is true only for test_ ids with siteId and orderNumber 0", () => {
    const test = parseWebhook(shipmentShipped({ eventId: "test_123", siteId: 0, orderNumber: 0 }));
    expect(isTestEvent(test)).toBe(true);
    expect(isTestEvent({ ...test, siteId: 1 })).toBe(false);
    expect(isTestEvent({ ...test, orderNumber: 1 })).toBe(false);
    expect(isTestEvent({ ...test, eventId: "evt_123" })).toBe(false);
  });
});
