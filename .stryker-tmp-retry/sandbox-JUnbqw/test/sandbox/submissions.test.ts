// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { describe, expect, it } from "vitest";
import { api, tokenFor, validOrder } from "./helpers";

/** A manual-clock sandbox: submissions move only when the test advances time. */
async function setup(options: Parameters<typeof createSandbox>[0] = {}) {
  const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0, ...options });
  return { sandbox, client: api(sandbox, await tokenFor(sandbox)) };
}

describe("submission progress", () => {
  it("moves queued -> processing -> completed on the sandbox clock, with poll hints until terminal", async () => {
    const { sandbox, client } = await setup({
      submissionTimings: { processingAfterMs: 100, completeAfterMs: 1000 },
    });
    const created = await client.post("/v1/orders", validOrder());
    expect(created.status).toBe(201);
    expect(created.json.status).toBe("queued");
    const id = created.json.submissionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.headers.get("retry-after")).toBe("2");
    expect(created.headers.get("location")).toBe(`/v1/orders/submissions/${id}`);
    expect(created.json).not.toHaveProperty("order");

    sandbox.clock.advance(100);
    const processing = await client.get(`/v1/orders/submissions/${id}`);
    expect([processing.status, processing.json.status]).toEqual([200, "processing"]);
    expect(processing.headers.get("retry-after")).toBe("2");

    sandbox.clock.advance(900);
    const done = await client.get(`/v1/orders/submissions/${id}`);
    expect(done.json.status).toBe("completed");
    expect(done.headers.get("retry-after")).toBeNull();
    expect(done.headers.get("location")).toBeNull();
    // Prices from the catalog and site rules: 2 x 12.50 + 10 % = 27.50; POD 3 x 24 + 10 % - 15 % = 67.32.
    expect(done.json.order).toMatchObject({
      status: "Submitted",
      totalPrice: 27.5 + 67.32 + 7.5,
      lines: [
        {
          partnerLineId: "line-1",
          quantity: 2,
          lineListTotal: 27.5,
          lineTotalBeforeAdjustments: 27.5,
        },
        {
          partnerLineId: "line-2",
          quantity: 3,
          lineListTotal: 79.2,
          lineTotalBeforeAdjustments: 67.32,
        },
      ],
    });
    expect(sandbox.counters.ordersCreated).toBe(1);

    // The order exists, readable through the order endpoints, lines correlated by externalId.
    const orderNumber = done.json.order.orderNumber;
    const order = await client.get(`/v1/orders/${orderNumber}`);
    expect(order.json).toMatchObject({ siteId: 101, totals: { item: "94.8200000000", tax: null } });
    const items = await client.get(`/v1/orders/${orderNumber}/items`);
    expect(items.json.items.map((i: { externalId: string }) => i.externalId)).toEqual([
      "line-1",
      "line-2",
    ]);
    expect(items.json.items[0].lineListTotal).toBe("27.5000000000");
  });

  it("returns a terminal state from the POST itself when it comes within the synchronous wait", async () => {
    const { sandbox, client } = await setup({ syncWaitMs: 20_000 });
    const pending = client.post("/v1/orders", validOrder());
    await new Promise((r) => setTimeout(r, 20));
    sandbox.clock.advance(1500);
    const { status, json, headers } = await pending;
    expect([status, json.status]).toEqual([201, "completed"]);
    expect(headers.get("retry-after")).toBeNull();
  });

  it("gives up the synchronous wait after syncWaitMs and answers the current stage", async () => {
    const { sandbox, client } = await setup({
      syncWaitMs: 500,
      submissionTimings: { completeAfterMs: 60_000 },
    });
    const pending = client.post("/v1/orders", validOrder());
    await new Promise((r) => setTimeout(r, 20));
    sandbox.clock.advance(500);
    const { json, headers } = await pending;
    expect(json.status).toBe("processing");
    expect(headers.get("location")).toBe(`/v1/orders/submissions/${json.submissionId}`);
  });

  it("fails with order_rejected errors for lines the platform refuses, never an HTTP error", async () => {
    const { sandbox, client } = await setup();
    const F = sandbox.fixtures;
    const order = {
      ...validOrder(),
      lines: [
        { productId: F.products.unlisted, variantId: 1501, partnerLineId: "gone", quantity: 1 },
        { productId: "SLO_424242", variantId: 1, partnerLineId: "unknown", quantity: 1 },
        {
          productId: F.products.stockTracked,
          variantId: F.variants.scarce,
          partnerLineId: "scarce",
          quantity: 4,
        },
        { productId: F.products.pod, partnerLineId: "too-many", quantity: 501 },
        {
          productId: F.products.stockUntracked,
          variantId: F.variants.untracked,
          partnerLineId: "ok",
          quantity: 6,
        },
      ],
    };
    const created = await client.post("/v1/orders", order);
    expect(created.status).toBe(201);
    sandbox.clock.advance(1500);
    const { json } = await client.get(`/v1/orders/submissions/${created.json.submissionId}`);
    expect(json.status).toBe("failed");
    expect(json).not.toHaveProperty("order");
    expect(json.errors).toEqual([
      expect.objectContaining({
        code: "order_rejected",
        field: "lines[0].productId",
        partnerLineId: "gone",
      }),
      expect.objectContaining({
        code: "order_rejected",
        field: "lines[1].productId",
        partnerLineId: "unknown",
      }),
      expect.objectContaining({
        code: "order_rejected",
        field: "lines[2].quantity",
        partnerLineId: "scarce",
      }),
      expect.objectContaining({
        code: "order_rejected",
        field: "lines[3].quantity",
        partnerLineId: "too-many",
      }),
    ]);
    expect(sandbox.counters.ordersCreated).toBe(0);
    // Terminal never reverts.
    sandbox.clock.advance(60_000);
    expect((await client.get(`/v1/orders/submissions/${json.submissionId}`)).json.status).toBe(
      "failed",
    );
  });
});

describe("idempotency by partnerOrderId", () => {
  it("answers the same body with 200 and the original submission at its current stage", async () => {
    const { sandbox, client } = await setup();
    const order = validOrder("po-same");
    const first = await client.post("/v1/orders", order);
    const again = await client.post("/v1/orders", JSON.stringify(order, null, 2));
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.json.submissionId).toBe(first.json.submissionId);
    sandbox.clock.advance(1500);
    const later = await client.post("/v1/orders", order);
    expect([later.status, later.json.status]).toEqual([200, "completed"]);
    expect(sandbox.counters.submissionsCreated).toBe(1);
    expect(sandbox.counters.ordersCreated).toBe(1);
  });

  it("answers a different body under a used partnerOrderId with 409 partner_order_id_reused", async () => {
    const { client } = await setup();
    await client.post("/v1/orders", validOrder("po-reused"));
    const changed = validOrder("po-reused");
    changed.lines[0].quantity = 3;
    const { status, json } = await client.post("/v1/orders", changed);
    expect([status, json.code]).toEqual([409, "partner_order_id_reused"]);
  });

  it("compares bodies as parsed JSON: key order and spacing do not matter, every value does", async () => {
    const { sandbox, client } = await setup();
    const order = validOrder("po-compare");
    const bytes = JSON.stringify(order);
    const first = await client.post("/v1/orders", bytes);
    // The same bytes, then the same members in another order: the same body.
    const resent = await client.post("/v1/orders", bytes);
    const reordered = Object.fromEntries(Object.entries(order).reverse());
    const shuffled = await client.post("/v1/orders", JSON.stringify(reordered, null, "\t"));
    expect([first.status, resent.status, shuffled.status]).toEqual([201, 200, 200]);
    expect(shuffled.json.submissionId).toBe(first.json.submissionId);
    // Lines are a list: another line order is another body; so is a null where a key was absent.
    const swapped = { ...order, lines: [...order.lines].reverse() };
    const withNull = { ...order, lines: [order.lines[0], { ...order.lines[1], variantId: null }] };
    for (const changed of [swapped, withNull]) {
      const { status, json } = await client.post("/v1/orders", changed);
      expect([status, json.code]).toEqual([409, "partner_order_id_reused"]);
    }
    expect(sandbox.counters.submissionsCreated).toBe(1);
  });

  it("keys partnerOrderId per partner", async () => {
    const { sandbox, client } = await setup();
    await client.post("/v1/orders", validOrder("po-shared"));
    const other = api(sandbox, await tokenFor(sandbox, null, sandbox.otherCredentials));
    const order = {
      ...validOrder("po-shared"),
      siteId: 201,
      lines: [{ productId: "SLO_9001", variantId: 9011, partnerLineId: "x", quantity: 1 }],
    };
    expect((await other.post("/v1/orders", order)).status).toBe(201);
  });
});

describe("GET /v1/orders/submissions", () => {
  it("lists the partner's submissions newest first, filtered by status, paged by cursor", async () => {
    const { sandbox, client } = await setup({
      submissionTimings: { processingAfterMs: 10, completeAfterMs: 20 },
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.post("/v1/orders", validOrder(`po-list-${i}`))).json.submissionId);
      if (i === 2) sandbox.clock.advance(20);
    }
    const all = await client.get("/v1/orders/submissions?limit=2");
    expect(all.json.submissions.map((s: { submissionId: string }) => s.submissionId)).toEqual([
      ids[4],
      ids[3],
    ]);
    const next = await client.get(`/v1/orders/submissions?limit=2&cursor=${all.json.nextCursor}`);
    expect(next.json.submissions.map((s: { submissionId: string }) => s.submissionId)).toEqual([
      ids[2],
      ids[1],
    ]);
    const completed = await client.get("/v1/orders/submissions?status=completed");
    expect(completed.json.submissions.map((s: { submissionId: string }) => s.submissionId)).toEqual(
      [ids[2], ids[1], ids[0]],
    );
    expect(completed.json.nextCursor).toBeNull();
  });

  it("rejects a bad status or a limit above 100 with invalid_request", async () => {
    const { client } = await setup();
    for (const q of ["status=done", "limit=101", "limit=0", "limit=abc"]) {
      const { status, json } = await client.get(`/v1/orders/submissions?${q}`);
      expect([status, json.code]).toEqual([400, "invalid_request"]);
    }
    expect((await client.get("/v1/orders/submissions?limit=100")).status).toBe(200);
    expect((await client.get("/v1/orders/submissions?cursor=abc")).json.code).toBe(
      "invalid_cursor",
    );
  });

  it("hides another partner's submission as not found, and validates the id", async () => {
    const { sandbox, client } = await setup();
    const { json } = await client.post("/v1/orders", validOrder());
    const other = api(sandbox, await tokenFor(sandbox, null, sandbox.otherCredentials));
    const hidden = await other.get(`/v1/orders/submissions/${json.submissionId}`);
    expect([hidden.status, hidden.json.code]).toEqual([404, "submission_not_found"]);
    const missing = await client.get(`/v1/orders/submissions/${crypto.randomUUID()}`);
    expect(missing.json.code).toBe("submission_not_found");
    expect((await client.get("/v1/orders/submissions/not-a-uuid")).json.code).toBe(
      "invalid_submission_id",
    );
  });
});
