// @ts-nocheck
import { createWebhookHandler, type WebhookHandlerOptions } from "partner-orders/webhooks";
import { describe, expect, it, vi } from "vitest";
import { delivery, SECRET, shipmentShipped } from "./support";

const URL = "https://receiver.example/webhooks";
const now = () => Math.floor(Date.now() / 1000);

function setup(options: Partial<WebhookHandlerOptions> = {}) {
  const onEvent = vi.fn();
  const logger = { error: vi.fn(), warn: vi.fn() };
  const handler = createWebhookHandler({ secret: SECRET, onEvent, logger, ...options });
  return { handler, onEvent, logger };
}

async function signedRequest(event = shipmentShipped()) {
  const { body, headers } = await delivery(event, { t: now() });
  return new Request(URL, { method: "POST", body, headers });
}

describe("createWebhookHandler().fetch", () => {
  it("answers 200 before onEvent runs, then runs it", async () => {
    const { handler, onEvent } = setup();
    const response = await handler.fetch(await signedRequest());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ received: true });
    expect(onEvent).not.toHaveBeenCalled();
    await handler.idle();
    expect(onEvent).toHaveBeenCalledExactlyOnceWith(shipmentShipped());
  });

  it("is itself a (Request) => Response handler, as API.md shows, ctx included", async () => {
    const { handler, onEvent } = setup();
    const waitUntil = vi.fn();
    // A Cloudflare Worker calls fetch(request, env, ctx).
    const response = await handler(await signedRequest(), {}, { waitUntil });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(waitUntil).toHaveBeenCalledOnce();
    await handler.idle();
    expect(onEvent).toHaveBeenCalledExactlyOnceWith(shipmentShipped());
    const unsigned = new Request(URL, { method: "POST", body: "{}" });
    expect((await handler(unsigned)).status).toBe(400);
  });

  it("hands the pending work to a Cloudflare-style ctx.waitUntil, or to options.waitUntil", async () => {
    const { handler, onEvent } = setup();
    const ctx = { waitUntil: vi.fn() };
    await handler.fetch(await signedRequest(), { env: 1 }, ctx);
    expect(ctx.waitUntil).toHaveBeenCalledTimes(1);
    await ctx.waitUntil.mock.calls[0]?.[0];
    expect(onEvent).toHaveBeenCalledTimes(1);

    const waitUntil = vi.fn();
    const second = setup({ waitUntil });
    await second.handler.fetch(await signedRequest());
    await waitUntil.mock.calls[0]?.[0];
    expect(second.onEvent).toHaveBeenCalledTimes(1);
  });

  it("dedupes a repeated delivery", async () => {
    const { handler, onEvent } = setup();
    const { body, headers } = await delivery(shipmentShipped(), { t: now() });
    for (let i = 0; i < 3; i++) {
      const response = await handler.fetch(new Request(URL, { method: "POST", body, headers }));
      expect(response.status).toBe(200);
    }
    await handler.idle();
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it("refuses a bad signature with 400 and its reason", async () => {
    const { handler, onEvent } = setup({ secret: ["whsec_a", "whsec_b"] });
    const response = await handler.fetch(await signedRequest());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "signature_mismatch" });
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
  });

  it("answers 405 to GET and 413 to an oversized body", async () => {
    const { handler } = setup({ maxBodyBytes: 100 });
    const get = await handler.fetch(new Request(URL));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const big = await handler.fetch(new Request(URL, { method: "POST", body: "x".repeat(101) }));
    expect(big.status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(64)); // endless: only the limit stops the reading
      },
    });
    const streamed = await handler.fetch(
      new Request(URL, { method: "POST", body: stream, duplex: "half" } as RequestInit),
    );
    expect(streamed.status).toBe(413);
  });

  it("discards verified test events", async () => {
    const { handler, onEvent } = setup();
    const response = await handler.fetch(
      await signedRequest(shipmentShipped({ eventId: "test_abc", siteId: 0, orderNumber: 0 })),
    );
    expect(response.status).toBe(200);
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
  });

  it("never rejects: an unexpected failure is a logged 500", async () => {
    const { handler, logger } = setup();
    const request = new Request(URL, { method: "POST", body: "{}" });
    Object.defineProperty(request, "body", {
      get() {
        throw new Error("stream broke");
      },
    });
    const response = await handler.fetch(request);
    expect(response.status).toBe(500);
    expect(logger.error).toHaveBeenCalled();
  });
});
