import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookHandler, type WebhookHandlerOptions } from "partner-orders/webhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { delivery, SECRET, shipmentShipped } from "./support";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A real node:http server on loopback serving `listener`; resolves to its URL. */
async function serve(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

function setup(options: Partial<WebhookHandlerOptions> = {}) {
  const onEvent = vi.fn();
  const logger = { error: vi.fn(), warn: vi.fn() };
  const handler = createWebhookHandler({ secret: SECRET, onEvent, logger, ...options });
  return { handler, onEvent, logger };
}

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", body, headers });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    response,
  };
}

describe("createWebhookHandler().node over node:http", () => {
  it("answers 200 before onEvent runs, then runs it with the typed event", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: string[] = [];
    const { handler } = setup({
      onEvent: async (event) => {
        seen.push(`start ${event.type}`);
        await gate; // stays pending until the test has its answer
        seen.push("end");
      },
    });
    const url = await serve(handler.node);
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    const answer = await post(url, body, headers);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ received: true });
    expect(seen).not.toContain("end");
    release();
    await handler.idle();
    expect(seen).toEqual(["start shipment.shipped", "end"]);
  });

  it("hands onEvent the verified event", async () => {
    const { handler, onEvent } = setup();
    const url = await serve(handler.node);
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    await post(url, body, headers);
    await handler.idle();
    expect(onEvent).toHaveBeenCalledExactlyOnceWith(shipmentShipped());
  });

  it("is itself a (req, res) handler, as README shows: createServer(handler)", async () => {
    const { handler, onEvent } = setup();
    const url = await serve(handler);
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    const { status, json } = await post(url, body, headers);
    expect([status, json]).toEqual([200, { received: true }]);
    await handler.idle();
    expect(onEvent).toHaveBeenCalledExactlyOnceWith(shipmentShipped());
    expect((await post(url, body, { "platform-signature": "t=1" })).status).toBe(400);
  });

  it("dedupes by eventId by default, and not with dedupe: false", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { body, headers } = await delivery(undefined, { t: now });
    const first = setup();
    const url = await serve(first.handler.node);
    expect((await post(url, body, headers)).status).toBe(200);
    expect((await post(url, body, headers)).status).toBe(200);
    await first.handler.idle();
    expect(first.onEvent).toHaveBeenCalledTimes(1);

    const second = setup({ dedupe: false });
    const url2 = await serve(second.handler.node);
    await post(url2, body, headers);
    await post(url2, body, headers);
    await second.handler.idle();
    expect(second.onEvent).toHaveBeenCalledTimes(2);
  });

  it("verifies test events, then discards them", async () => {
    const { handler, onEvent } = setup();
    const url = await serve(handler.node);
    const test = shipmentShipped({ eventId: "test_1", siteId: 0, orderNumber: 0 });
    const { body, headers } = await delivery(test, { t: Math.floor(Date.now() / 1000) });
    expect((await post(url, body, headers)).status).toBe(200);
    const forged = await delivery(test, {
      secret: "whsec_wrong",
      t: Math.floor(Date.now() / 1000),
    });
    expect((await post(url, forged.body, forged.headers)).status).toBe(400);
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
  });

  it("answers 400 with the reason for a bad or missing signature, and never calls onEvent", async () => {
    const { handler, onEvent, logger } = setup();
    const url = await serve(handler.node);
    const { body, headers } = await delivery(undefined, {
      secret: "whsec_wrong",
      t: Math.floor(Date.now() / 1000),
    });
    const bad = await post(url, body, headers);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("signature_mismatch");
    const missing = await post(url, body);
    expect(missing.json.error).toBe("missing_header");
    const stale = await delivery(undefined, { t: 1_000_000 });
    expect((await post(url, stale.body, stale.headers)).json.error).toBe(
      "timestamp_out_of_tolerance",
    );
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
    expect(JSON.stringify(logger.warn.mock.calls)).not.toContain(SECRET);
  });

  it("answers 405 with Allow: POST to other methods", async () => {
    const { handler } = setup();
    const url = await serve(handler.node);
    const response = await fetch(url);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    const put = await fetch(url, { method: "PUT", body: "{}" });
    expect(put.status).toBe(405);
  });

  it("answers 413 to a body over the limit, declared or streamed", async () => {
    const { handler, onEvent } = setup({ maxBodyBytes: 1024 });
    const url = await serve(handler.node);
    const big = "x".repeat(4096);
    expect((await post(url, big)).status).toBe(413);
    // Without Content-Length: a stream of chunks the handler has to count itself.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const response = await fetch(url, {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
  });

  it("logs an onEvent failure without the secret and keeps the 200", async () => {
    const { handler, logger } = setup({
      onEvent: () => {
        throw new Error("database down");
      },
    });
    const url = await serve(handler.node);
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    expect((await post(url, body, headers)).status).toBe(200);
    await handler.idle();
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [message, details] = logger.error.mock.calls[0] as [string, Record<string, unknown>];
    expect(message).toMatch(/onEvent failed/);
    expect(details.eventId).toBe("evt_0a1b2c3d");
    expect(`${message} ${JSON.stringify(details)}`).not.toContain(SECRET);
  });

  it("lets a duplicate retry an event whose onEvent failed", async () => {
    const onEvent = vi.fn().mockRejectedValueOnce(new Error("flaky")).mockResolvedValue(undefined);
    const { handler } = setup({ onEvent });
    const url = await serve(handler.node);
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    await post(url, body, headers);
    await handler.idle();
    await post(url, body, headers);
    await handler.idle();
    await post(url, body, headers);
    await handler.idle();
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it("handles the event anyway when the dedupe store fails", async () => {
    const { handler, onEvent, logger } = setup({
      dedupe: { claim: () => Promise.reject(new Error("redis unreachable")) },
    });
    const url = await serve(handler.node);
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    expect((await post(url, body, headers)).status).toBe(200);
    await handler.idle();
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]?.[0]).toMatch(/dedupe store failed/);
  });

  it("sends unknown types to onUnknownEvent, never to onEvent", async () => {
    const onUnknownEvent = vi.fn();
    const { handler, onEvent } = setup({ onUnknownEvent });
    const url = await serve(handler.node);
    const event = shipmentShipped({ type: "order.created" });
    const { body, headers } = await delivery(event, { t: Math.floor(Date.now() / 1000) });
    expect((await post(url, body, headers)).status).toBe(200);
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
    expect(onUnknownEvent).toHaveBeenCalledExactlyOnceWith(event);
  });

  it("without a secret, parses unsigned deliveries and refuses bodies that are not events", async () => {
    const { handler, onEvent } = setup({ secret: undefined });
    const url = await serve(handler.node);
    expect((await post(url, JSON.stringify(shipmentShipped()))).status).toBe(200);
    const bad = await post(url, "{oops");
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("invalid_json");
    await handler.idle();
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it("uses a raw body a framework already read (express.raw / rawBody)", async () => {
    const { handler, onEvent } = setup();
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        // express.raw() puts the Buffer on req.body; other stacks keep it on req.rawBody.
        const where = req.headers["x-where"];
        if (where === "rawBody")
          Object.assign(req, { rawBody: raw, body: JSON.parse(raw.toString()) });
        else Object.assign(req, { body: raw });
        void handler.node(req, res);
      });
    });
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    expect((await post(url, body, { ...headers, "x-where": "body" })).status).toBe(200);
    await handler.idle();
    expect(onEvent).toHaveBeenCalledTimes(1);
    const second = await delivery(shipmentShipped({ eventId: "evt_2" }), {
      t: Math.floor(Date.now() / 1000),
    });
    expect((await post(url, second.body, { ...second.headers, "x-where": "rawBody" })).status).toBe(
      200,
    );
    await handler.idle();
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it("answers 400 telling to mount a raw body parser when req.body was parsed", async () => {
    const { handler, onEvent } = setup();
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString()) }); // express.json()
        void handler.node(req, res);
      });
    });
    const { body, headers } = await delivery(undefined, { t: Math.floor(Date.now() / 1000) });
    const answer = await post(url, body, headers);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toBe("raw_body_required");
    expect(String(answer.json.message)).toMatch(/express\.raw\(\{ type: "application\/json" \}\)/);
    await handler.idle();
    expect(onEvent).not.toHaveBeenCalled();
  });

  it("never rejects, even when writing the answer throws", async () => {
    const { handler, logger } = setup();
    const req = {
      method: "POST",
      headers: {},
      body: Buffer.from("{}"),
      on: () => undefined,
    };
    const res = {
      statusCode: 0,
      setHeader: () => {
        throw new Error("socket gone");
      },
      end: () => undefined,
    };
    await expect(handler.node(req, res)).resolves.toBeUndefined();
    expect(logger.error).toHaveBeenCalled();
  });
});
