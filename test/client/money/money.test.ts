import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { Decimal } from "../../../src/core/money";
import { harness, rejection } from "../../support/client";
import { json, raw } from "../../support/fake-server";
import { order, orderRequest, submissionId } from "../../support/fixtures";

function expectDecimal(value: unknown, text: string): void {
  expect(Decimal.isDecimal(value)).toBe(true);
  expect((value as Decimal).equals(text)).toBe(true);
}

/** A completed submission with number-encoded money, written as raw JSON text. */
function submissionText(total: string, listTotal: string, beforeAdjustments: string): string {
  return `{"submissionId":"${submissionId}","status":"completed","order":{"orderNumber":1,"status":"Pending","totalPrice":${total},"projectId":2,"lines":[{"partnerLineId":"l1","quantity":3,"lineListTotal":${listTotal},"lineTotalBeforeAdjustments":${beforeAdjustments},"futureField":0.1}],"futureOrderField":{"n":1.5}},"futureTop":[1,2]}`;
}

describe("string-encoded money and weights", () => {
  it("Order.totals are Decimals keeping all 10 fractional digits; null stays null", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9", () =>
      json(
        order(9, {
          item: "12345678901234.1234567891",
          shipping: "0.0000000001",
          tax: null,
          order: "12345678901234.1234567892",
        }),
      ),
    );
    const result = await client.orders.get(9);
    expect(result.totals.item?.toFixed(10)).toBe("12345678901234.1234567891");
    expect(result.totals.shipping?.toFixed(10)).toBe("0.0000000001");
    expect(result.totals.tax).toBeNull();
    expect(result.totals.order?.toFixed(10)).toBe("12345678901234.1234567892");
  });

  it("orders.list totals are Decimals", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () =>
      json({ orders: [order(1, { item: "2.5000000000", order: null })], nextCursor: null }),
    );
    const [first] = (await client.orders.list()).data;
    expectDecimal(first?.totals.item, "2.5");
    expect(first?.totals.order).toBeNull();
  });

  it("OrderItem lineListTotal and lineTotal are Decimals, nulls kept", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9/items", () =>
      json({
        items: [
          { itemNumber: 1, lineListTotal: "10.1000000000", lineTotal: "9.9999999999" },
          { itemNumber: 2, lineListTotal: null, lineTotal: null },
        ],
        nextCursor: null,
      }),
    );
    const items = (await client.orders.items(9)).data;
    expectDecimal(items[0]?.lineListTotal, "10.1");
    expect(items[0]?.lineTotal?.toFixed(10)).toBe("9.9999999999");
    expect(items[1]?.lineListTotal).toBeNull();
    expect(items[1]?.lineTotal).toBeNull();
  });

  it("Product weight and ProductDetail variants[].weight are Decimals, POD null kept", async () => {
    const { client, server } = harness();
    server.on("GET /v1/products", () =>
      json({
        products: [
          { productId: "SLO_1", weight: "0.25" },
          { productId: "SLO_2", weight: null },
        ],
        nextCursor: null,
      }),
    );
    server.on("GET /v1/products/SLO_1", () =>
      json({
        productId: "SLO_1",
        variants: [
          { variantId: 1, weight: "1.125" },
          { variantId: 2, weight: null },
        ],
      }),
    );
    const products = (await client.products.list()).data;
    expectDecimal(products[0]?.weight, "0.25");
    expect(products[1]?.weight).toBeNull();
    const detail = await client.products.get("SLO_1");
    expectDecimal(detail.variants[0]?.weight, "1.125");
    expect(detail.variants[1]?.weight).toBeNull();
  });
});

describe("number-encoded money is exact as written", () => {
  const big = "12345678901234.567";
  const small = "0.12345678901234567";

  it("orders.submit: totalPrice and both line totals, 17 significant digits kept", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText(big, small, "1e-7"), 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(submission.order?.totalPrice.toString()).toBe(big);
    expect(submission.order?.lines[0]?.lineListTotal.toString()).toBe(small);
    expectDecimal(submission.order?.lines[0]?.lineTotalBeforeAdjustments, "0.0000001");
  });

  it("submissions.get and submissions.list", async () => {
    const { client, server } = harness();
    server.on(`GET /v1/orders/submissions/${submissionId}`, () =>
      raw(submissionText(big, small, big)),
    );
    server.on("GET /v1/orders/submissions", () =>
      raw(`{"submissions":[${submissionText(small, big, small)}],"nextCursor":null}`),
    );
    const one = await client.submissions.get(submissionId);
    expect(one.order?.totalPrice.toString()).toBe(big);
    expect(one.order?.lines[0]?.lineTotalBeforeAdjustments.toString()).toBe(big);
    const [listed] = (await client.submissions.list()).data;
    expect(listed?.order?.totalPrice.toString()).toBe(small);
    expect(listed?.order?.lines[0]?.lineListTotal.toString()).toBe(big);
    expect(listed?.order?.lines[0]?.lineTotalBeforeAdjustments.toString()).toBe(small);
  });

  it("Quote.totalPrice", async () => {
    const { client, server } = harness();
    server.on("POST /v1/products/SLS_7/quote", () =>
      raw(
        `{"productId":"SLS_7","quantity":2,"totalPrice":${big},"createdOn":"2030-01-01T00:00:00Z"}`,
      ),
    );
    const quote = await client.products.quote("SLS_7", 2);
    expect(quote.totalPrice.toString()).toBe(big);
    expect(quote.createdOn).toBe("2030-01-01T00:00:00Z");
  });

  it("unknown fields pass through untouched, numbers as numbers", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText("1", "2", "3"), 201));
    const { submission } = await client.orders.submit(orderRequest());
    const body = submission as unknown as Record<string, unknown>;
    expect(body.futureTop).toEqual([1, 2]);
    const orderBody = submission.order as unknown as Record<string, unknown>;
    expect(orderBody.futureOrderField).toEqual({ n: 1.5 });
    const line = submission.order?.lines[0] as unknown as Record<string, unknown> | undefined;
    expect(line?.futureField).toBe(0.1);
  });

  it("a submission without an order (queued) needs no money", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => json({ submissionId, status: "queued" }, 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(submission).toEqual({ submissionId, status: "queued" });
  });
});

describe("bad values in money fields", () => {
  it.each([
    ["a word in a string total", "GET /v1/orders/9", () => json(order(9, { item: "twelve" }))],
    ["an empty string total", "GET /v1/orders/9", () => json(order(9, { item: "" }))],
    [
      "an object total",
      "GET /v1/orders/9",
      () => json({ ...order(9), totals: { item: { v: 1 } } }),
    ],
  ])("%s gives a typed PartnerOrdersError", async (_, route, answer) => {
    const { client, server } = harness();
    server.on(route, answer);
    const error = await rejection(client.orders.get(9));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("totals.item");
  });

  it("a boolean totalPrice in a number-money response gives a typed PartnerOrdersError", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText("true", "1", "1"), 201));
    expect(await rejection(client.orders.submit(orderRequest()))).toBeInstanceOf(
      PartnerOrdersError,
    );
  });

  it("malformed JSON in a number-money response gives a typed PartnerOrdersError", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () =>
      raw(`{"submissionId":"x","order":{"totalPrice":1.2.3}}`, 201),
    );
    const error = await rejection(client.orders.submit(orderRequest()));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(error).not.toBeInstanceOf(SyntaxError);
  });
});

describe("__proto__ in a number-money response", () => {
  it("stays an own property and pollutes no prototype", async () => {
    const { client, server } = harness();
    const text = submissionText("5", "6", "7")
      .replace('{"submissionId"', '{"__proto__":{"polluted":"yes"},"submissionId"')
      .replace('"orderNumber":1', '"__proto__":{"isAdmin":true},"orderNumber":1');
    server.on("POST /v1/orders", () => raw(text, 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(submission)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(submission.order)).toBe(Object.prototype);
    expect((submission as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(submission, "__proto__")).toBe(true);
    expect(submission.order?.totalPrice.toString()).toBe("5");
  });
});
