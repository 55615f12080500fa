import { PartnerOrders, RequestValidationError } from "partner-orders";
import { createSandbox } from "partner-orders/testing";
import { afterAll, describe, expect, it } from "vitest";
import { rejection } from "../../support/client";

/**
 * A JavaScript number is exact only up to 2^53 - 1, while the API's positive integers have no
 * ceiling: the SDK refuses a larger one before sending (it would arrive rounded, naming another
 * record), with a message that says it is too large, not "not a positive integer".
 */
const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
const client = new PartnerOrders({
  baseUrl: sandbox.baseUrl,
  ...sandbox.credentials,
  fetch: sandbox.fetch,
  clock: sandbox.clock,
});
afterAll(() => sandbox.close());

// 2^53 + 2 is a double exactly, so the value under test is the value the caller wrote.
const UNSAFE = 2 ** 53 + 2;
const tooLarge = /is above 9007199254740991 \(2\^53 - 1\)/;

async function refused(call: PromiseLike<unknown>, path: string) {
  const before = sandbox.requests.length;
  const error = await rejection(call);
  expect(error).toBeInstanceOf(RequestValidationError);
  const violation = (error as RequestValidationError).violations.find((v) => v.path === path);
  expect(violation?.message).toMatch(tooLarge);
  expect(sandbox.requests.length, "nothing may be sent").toBe(before);
}

const line = {
  productId: sandbox.fixtures.products.stockTracked,
  variantId: sandbox.fixtures.variants.plenty,
  partnerLineId: "line-1",
  quantity: 1,
};
const order = (patch: Record<string, unknown>, linePatch: Record<string, unknown> = {}) => ({
  siteId: sandbox.fixtures.sites.main,
  partnerOrderId: "po-big",
  shipTo: {
    name: "Ada",
    address1: "1 Way",
    city: "London",
    state: "LDN",
    postalCode: "N1",
    country: "GB",
  },
  lines: [{ ...line, ...linePatch }],
  ...patch,
});

describe("integers above 2^53 - 1 are refused before sending", () => {
  it("in an order request: siteId, a line's quantity and variantId", async () => {
    await refused(client.orders.submit(order({ siteId: UNSAFE })), "siteId");
    await refused(client.orders.submit(order({}, { quantity: UNSAFE })), "lines[0].quantity");
    await refused(
      client.submitOrderAndWait(order({}, { variantId: UNSAFE })),
      "lines[0].variantId",
    );
  });

  it("in parameters: a siteId filter, an order number (number or digits), a quote quantity", async () => {
    await refused(client.orders.list({ siteId: UNSAFE }), "siteId");
    await refused(client.products.list({ siteId: UNSAFE }), "siteId");
    await refused(client.orders.get(UNSAFE), "orderNumber");
    await refused(client.orders.get("9007199254740993" as unknown as number), "orderNumber");
    await refused(client.products.quote(sandbox.fixtures.products.pod, UNSAFE), "quantity");
  });

  it("still sends the largest exact one, which the sandbox answers by its rules", async () => {
    const error = await rejection(client.orders.get(Number.MAX_SAFE_INTEGER));
    expect(error).toMatchObject({ status: 404, code: "order_not_found" });
  });
});
