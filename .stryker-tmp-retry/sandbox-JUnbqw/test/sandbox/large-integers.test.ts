// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, tokenFor, validOrder } from "./helpers";

/**
 * siteId, quantity and variantId are "positive integers, no other ceiling" (API document, Limits),
 * and path order numbers are positive integers: one above 2^53 - 1 is a valid integer, never
 * "not a positive integer". It then meets the grant and catalog rules like any other value.
 */
const BIG = "9007199254740993"; // 2^53 + 1: a JavaScript number cannot hold it
const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
let client: ReturnType<typeof api>;
beforeAll(async () => {
  client = api(sandbox, await tokenFor(sandbox));
});
afterAll(() => sandbox.close());

/** The order body as text, with `value` written verbatim at a placeholder (no rounding on the way). */
function orderText(patch: (order: ReturnType<typeof validOrder>) => void, value: string): string {
  const order = validOrder();
  patch(order);
  return JSON.stringify(order).replace('"__BIG__"', value);
}

describe("integers above 2^53 - 1", () => {
  it.each(["/v1/orders", "/v1/products"])(
    "a siteId query of %s is a positive integer outside the grant",
    async (path) => {
      const { status, json } = await client.get(`${path}?siteId=${BIG}`);
      expect([status, json.code]).toEqual([400, "invalid_site_id"]);
      expect(json.detail).toMatch(/not a granted site/);
      // A siteId that is not a positive integer at all gets the same code, told apart in detail.
      const bad = await client.get(`${path}?siteId=12a`);
      expect(bad.json.detail).toMatch(/not a positive integer/);
    },
  );

  it.each([
    [BIG, ""],
    [BIG, "/items"],
    [BIG, "/shipments"],
    ["99999999999999999999", ""],
  ])(
    "an order number path segment %s is a well-formed number that resolves to nothing (%s)",
    async (n, suffix) => {
      const { status, json } = await client.get(`/v1/orders/${n}${suffix}`);
      expect([status, json.code]).toEqual([404, "order_not_found"]);
    },
  );

  it("a limit query is capped, not refused", async () => {
    const { status, json } = await client.get(`/v1/orders?limit=${BIG}`);
    expect(status).toBe(200);
    expect(json.orders).toHaveLength(200);
  });

  it("a siteId in an order body is outside the grant: 400 invalid_site_id, not invalid_request", async () => {
    const body = orderText((o) => Object.assign(o, { siteId: "__BIG__" }), BIG);
    const { status, json } = await client.post("/v1/orders", body);
    expect([status, json.code]).toEqual([400, "invalid_site_id"]);
  });

  it.each([
    ["quantity", "lines[0].quantity"],
    ["variantId", "lines[0].variantId"],
  ])("a line %s is accepted, then rejected by the platform's rules", async (field, path) => {
    const body = orderText((o) => Object.assign(o.lines[0] as object, { [field]: "__BIG__" }), BIG);
    const created = await client.post("/v1/orders", body);
    expect(created.status).toBe(201);
    await sandbox.clock.runAll();
    const { json } = await client.get(`/v1/orders/submissions/${created.json.submissionId}`);
    expect(json.status).toBe("failed");
    expect(json.errors).toContainEqual(
      expect.objectContaining({ code: "order_rejected", field: path, partnerLineId: "line-1" }),
    );
  });

  it("a quote quantity is a business rejection (422 quote_invalid), not invalid_quantity", async () => {
    const { status, json } = await client.post(
      `/v1/products/${sandbox.fixtures.products.pod}/quote`,
      `{"quantity":${BIG}}`,
    );
    expect([status, json.code]).toEqual([422, "quote_invalid"]);
  });
});
