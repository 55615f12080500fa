// @ts-nocheck
import { Decimal, type Order, type OrderItem } from "partner-orders";
import { FIXTURES } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2E, orderFor, startE2E } from "./support";

/**
 * Money end to end (API.md "Money"): every amount the SDK hands out is a Decimal equal, digit for
 * digit, to what the sandbox wrote on the wire, and null stays null (API document, OrderTotals).
 */

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E({
    syncWaitMs: 0,
    submissionTimings: { processingAfterMs: 0, completeAfterMs: 0 },
  });
});
afterAll(() => e2e.close());

/** The SDK's value equals the raw decimal string exactly, or both are null. */
function expectExact(sdk: Decimal | null | undefined, raw: string | null, where: string) {
  if (raw === null) {
    expect(sdk, where).toBeNull();
    return;
  }
  expect(sdk, where).toBeInstanceOf(Decimal);
  const value = sdk as Decimal;
  expect(new Decimal(raw).equals(value), where).toBe(true);
  expect(value.toFixed(10), where).toBe(raw);
}

/** The JSON number written after `"key":` in a raw body, as its exact text, in order of appearance. */
function numbersInText(text: string, key: string): string[] {
  return [...text.matchAll(new RegExp(`"${key}":(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)`, "g"))].map(
    (m) => m[1] as string,
  );
}

describe("order totals", () => {
  it("every total of every order of a page equals the sandbox's decimal string", async () => {
    const page = await e2e.client.orders.list({ limit: 200 });
    const raw = (await e2e.raw("/v1/orders?limit=200")).json as {
      orders: Array<{ orderNumber: number; totals: Record<string, string | null> }>;
    };
    expect(page.data.map((o) => o.orderNumber)).toEqual(raw.orders.map((o) => o.orderNumber));
    let nulls = 0;
    for (const [i, order] of page.data.entries()) {
      const rawTotals = raw.orders[i]?.totals as Record<string, string | null>;
      for (const key of ["item", "shipping", "tax", "order"] as const) {
        if (rawTotals[key] === null) nulls++;
        expectExact(order.totals[key], rawTotals[key] ?? null, `order ${order.orderNumber} ${key}`);
      }
    }
    // The page covers both branches: computed totals and "not computed" nulls.
    expect(nulls).toBeGreaterThan(0);
  });

  it("every page of the list, and orders.get, agree to the last digit", async () => {
    const sdk: Order[] = [];
    for await (const order of e2e.client.orders.list({ siteId: FIXTURES.sites.main, limit: 200 }))
      sdk.push(order);
    expect(sdk).toHaveLength(FIXTURES.mainSiteOrderCount);
    const one = sdk[sdk.length - 1] as Order;
    const single = await e2e.client.orders.get(one.orderNumber);
    const raw = (await e2e.raw(`/v1/orders/${one.orderNumber}`)).json as {
      totals: Record<string, string | null>;
    };
    for (const key of ["item", "shipping", "tax", "order"] as const) {
      expectExact(single.totals[key], raw.totals[key] ?? null, `get ${key}`);
      expectExact(one.totals[key], raw.totals[key] ?? null, `list ${key}`);
    }
  });
});

describe("line totals", () => {
  it("every lineListTotal and lineTotal of every page equals the raw string, nulls kept", async () => {
    const items: OrderItem[] = [];
    for await (const item of e2e.client.orders.items(FIXTURES.orders.manyItems, { limit: 200 }))
      items.push(item);
    const raw = (await e2e.raw(`/v1/orders/${FIXTURES.orders.manyItems}/items?limit=200`)).json as {
      items: Array<{ lineListTotal: string | null; lineTotal: string | null }>;
    };
    expect(items).toHaveLength(raw.items.length);
    for (const [i, item] of items.entries()) {
      const r = raw.items[i] as { lineListTotal: string | null; lineTotal: string | null };
      expectExact(item.lineListTotal, r.lineListTotal, `item ${item.itemNumber} list`);
      expectExact(item.lineTotal, r.lineTotal, `item ${item.itemNumber} total`);
    }
  });
});

describe("submission and quote totals", () => {
  it("a completed submission's totalPrice and line amounts are exact Decimals", async () => {
    const { submission } = await e2e.client.orders.submit(orderFor("money-1"));
    e2e.sandbox.clock.advance(1);
    const done = await e2e.client.submissions.get(submission.submissionId);
    expect(done.status).toBe("completed");
    const text = (await e2e.raw(`/v1/orders/submissions/${submission.submissionId}`)).text;
    const [totalPrice] = numbersInText(text, "totalPrice");
    const listTotals = numbersInText(text, "lineListTotal");
    const beforeAdjustments = numbersInText(text, "lineTotalBeforeAdjustments");
    const order = done.order;
    expect(order?.totalPrice).toBeInstanceOf(Decimal);
    expect(order?.totalPrice.equals(new Decimal(totalPrice as string))).toBe(true);
    expect(order?.lines).toHaveLength(2);
    for (const [i, line] of (order?.lines ?? []).entries()) {
      expect(line.lineListTotal.equals(new Decimal(listTotals[i] as string))).toBe(true);
      expect(
        line.lineTotalBeforeAdjustments.equals(new Decimal(beforeAdjustments[i] as string)),
      ).toBe(true);
    }
    // The same amounts through the submissions list.
    const listed = (await e2e.client.submissions.list()).data.find(
      (s) => s.submissionId === submission.submissionId,
    );
    expect(listed?.order?.totalPrice.equals(order?.totalPrice as Decimal)).toBe(true);

    // The created order's string totals agree with the submission's number.
    const created = await e2e.client.orders.get(order?.orderNumber as number);
    expect(created.totals.order?.equals(order?.totalPrice as Decimal)).toBe(true);
  });

  it("a quote's totalPrice is the exact number on the wire", async () => {
    for (const [productId, quantity] of [
      [FIXTURES.products.pod, 7],
      [FIXTURES.products.stockTracked, 3],
      [FIXTURES.products.podWithMinimum, 1234],
    ] as const) {
      const quote = await e2e.client.products.quote(productId, quantity);
      const raw = await fetch(`${e2e.url}/v1/products/${productId}/quote`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${await tokenOf(e2e)}`,
        },
        body: JSON.stringify({ quantity }),
      });
      const [wire] = numbersInText(await raw.text(), "totalPrice");
      expect(quote.totalPrice.equals(new Decimal(wire as string)), productId).toBe(true);
    }
  });

  it("a JSON number with 17 significant digits keeps all of them over real HTTP", async () => {
    const wire = "12345678.123456789";
    e2e.sandbox.route({
      method: "POST",
      path: "/v1/products/{productId}/quote",
      handle: (ctx) =>
        new Response(
          `{"productId":"${ctx.params.productId}","quantity":1,"totalPrice":${wire},"createdOn":"2030-01-01T00:00:00Z"}`,
          { status: 200, headers: { "content-type": "application/json" } },
        ),
    });
    const quote = await e2e.client.products.quote(FIXTURES.products.pod, 1);
    expect(quote.totalPrice.toString()).toBe(wire);
    expect(Number(wire).toString()).not.toBe(wire); // a binary float would have lost a digit
  });
});

let token: string | undefined;
async function tokenOf(e: E2E): Promise<string> {
  if (token) return token;
  const response = await fetch(`${e.url}/oauth2/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: e.sandbox.credentials.clientId,
      client_secret: e.sandbox.credentials.clientSecret,
    }),
  });
  token = ((await response.json()) as { access_token: string }).access_token;
  return token;
}
