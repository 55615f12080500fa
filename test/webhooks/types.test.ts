import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createRedisDedupeStore,
  createWebhookHandler,
  isKnownWebhookEvent,
  type KnownWebhookEvent,
  type OrderLineCancelledEvent,
  type OrderStatusChangedEvent,
  type ShipmentCancelledEvent,
  type ShipmentShippedEvent,
  type UnknownWebhookEvent,
  type WebhookEvent,
  type WebhookHandler,
} from "partner-orders/webhooks";
import type { createClient } from "redis";
import { describe, expect, expectTypeOf, it } from "vitest";

describe("webhook event types", () => {
  it("narrow exactly on type among the known events", () => {
    const check = (event: KnownWebhookEvent) => {
      if (event.type === "shipment.shipped") {
        expectTypeOf(event).toEqualTypeOf<ShipmentShippedEvent>();
        expectTypeOf(event.shipmentNumber).toEqualTypeOf<number>();
      }
      switch (event.type) {
        case "order.status_changed":
          expectTypeOf(event).toEqualTypeOf<OrderStatusChangedEvent>();
          // @ts-expect-error only shipment events carry a shipment number
          event.shipmentNumber;
          break;
        case "shipment.cancelled":
          expectTypeOf(event).toEqualTypeOf<ShipmentCancelledEvent>();
          break;
        case "order_line.cancelled":
          expectTypeOf(event).toEqualTypeOf<OrderLineCancelledEvent>();
          break;
        case "shipment.shipped":
          break;
        default:
          expectTypeOf(event).toBeNever();
      }
      expectTypeOf(event.partnerOrderId).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.occurredAt).toEqualTypeOf<string>();
      // @ts-expect-error not one of the four types
      if (event.type === "shipment.delivered") return;
    };
    void check;
  });

  it("narrow a WebhookEvent after isKnownWebhookEvent, and keep unknown events usable", () => {
    const check = (event: WebhookEvent) => {
      expectTypeOf(event.type).toEqualTypeOf<string>();
      expectTypeOf(event.orderNumber).toEqualTypeOf<number>();
      if (!isKnownWebhookEvent(event)) {
        expectTypeOf(event).toEqualTypeOf<UnknownWebhookEvent>();
        expectTypeOf(event.someNewField).toEqualTypeOf<unknown>();
        return;
      }
      if (event.type === "shipment.cancelled")
        expectTypeOf(event.shipmentNumber).toEqualTypeOf<number>();
    };
    void check;
  });

  it("give onEvent the known events only, and fit Node and Fetch signatures", () => {
    const handler = createWebhookHandler({
      onEvent(event) {
        expectTypeOf(event).toEqualTypeOf<KnownWebhookEvent>();
      },
      onUnknownEvent(event) {
        expectTypeOf(event).toEqualTypeOf<UnknownWebhookEvent>();
      },
    });
    expectTypeOf(handler).toEqualTypeOf<WebhookHandler>();
    const node: (req: IncomingMessage, res: ServerResponse) => unknown = handler.node;
    const fetchHandler: (request: Request) => Promise<Response> = handler.fetch;
    void node;
    void fetchHandler;
    // @ts-expect-error onEvent is required, by the types and at run time
    expect(() => createWebhookHandler({ secret: "s" })).toThrow(TypeError);
  });

  it("fit a request whose `on` is typed through an event map, as @types/node 25 and later type it", () => {
    // IncomingMessage#on since @types/node 25: a generic overload over an event map, then a
    // fallback whose listener takes `any` arguments. The repository compiles against
    // @types/node 20, so this is that shape written out; the consumer check compiles the real one.
    interface EventMap {
      close: [];
      data: [chunk: Uint8Array];
      end: [];
      error: [err: Error];
      aborted: [];
    }
    interface EventMapRequest {
      method?: string | undefined;
      headers: Record<string, string | string[] | undefined>;
      on<E extends keyof EventMap>(eventName: E, listener: (...args: EventMap[E]) => void): this;
      // biome-ignore lint/suspicious/noExplicitAny: the fallback exactly as @types/node declares it
      on(eventName: string | symbol, listener: (...args: any[]) => void): this;
    }
    const handler = createWebhookHandler({ onEvent() {} });
    const node: (req: EventMapRequest, res: ServerResponse) => unknown = handler.node;
    const itself: (req: EventMapRequest, res: ServerResponse) => unknown = handler;
    void node;
    void itself;
  });

  it("accept a node-redis client in the Redis store", () => {
    const check = (client: ReturnType<typeof createClient>) => createRedisDedupeStore(client);
    void check;
    // @ts-expect-error not a Redis client
    const bad = () => createRedisDedupeStore({ get: async () => null });
    void bad;
  });
});
