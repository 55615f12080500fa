import { describe, expect, it } from "vitest";
import type { PartnerOrders } from "../../../src/client";
import {
  BadRequestError,
  PartnerOrdersError,
  RateLimitError,
  RequestValidationError,
  ResponseDecodeError,
} from "../../../src/core/errors";
import { listOrdersPage } from "../../../src/resources/lenient-page";
import { harness, rejection } from "../../support/client";
import { json, problem, raw } from "../../support/fake-server";
import { order } from "../../support/fixtures";

// One malformed order on a page of GET /v1/orders must not cost the mirror the whole page: the
// lenient page keeps it out, says which order and why, and hands on the others exactly as
// orders.list() would.

/** A page of orders 1001 (good), 1002 (its total is `bad`, verbatim JSON) and 1003 (good). */
function pageWithBadTotal(bad: string, nextCursor: string | null = "c-2"): string {
  const first = JSON.stringify(order(1001, { item: "12.3400000000", order: "15.0000000000" }));
  const third = JSON.stringify(order(1003, { item: "-0.5000000000", tax: "0.0100000000" }));
  const second = JSON.stringify(order(1002)).replace('"order":"1.0000000000"', `"order":${bad}`);
  return `{"orders":[${first},${second},${third}],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

describe("a page with one bad row among good ones", () => {
  it("keeps the good rows, decoded exactly, and rejects the bad one by index, number, field and reason", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => raw(pageWithBadTotal('"abc"')));

    const page = await listOrdersPage(client, { siteId: 7, limit: 3 });

    expect(page.data.map((o) => o.orderNumber)).toEqual([1001, 1003]);
    const [first, third] = page.data;
    expect(first?.totals.item?.toFixed(10)).toBe("12.3400000000");
    expect(first?.totals.order?.toFixed(10)).toBe("15.0000000000");
    expect(first?.totals.shipping).toBeNull();
    expect(third?.totals.item?.toFixed(10)).toBe("-0.5000000000");
    expect(third?.totals.tax?.toFixed(10)).toBe("0.0100000000");
    expect(third?.status).toBe("Pending");
    expect(page.rejected).toEqual([
      {
        index: 1,
        orderNumber: 1002,
        path: "orders[].totals.order",
        reason: "text that is not a plain decimal",
      },
    ]);
    expect(page.nextCursor).toBe("c-2");
  });

  it.each([
    ['"1e999"', "text that is not a plain decimal"],
    ['"abc"', "text that is not a plain decimal"],
    ['""', "text that is not a plain decimal"],
    ["1e999", "an amount out of range"],
    ["true", "a boolean where an amount is expected"],
    ['{"value":"1.5"}', "an object where an amount is expected"],
    ['["1.5"]', "an array where an amount is expected"],
  ])("a total written %s is rejected as %j", async (bad, reason) => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => raw(pageWithBadTotal(bad)));

    const page = await listOrdersPage(client);

    expect(page.data.map((o) => o.orderNumber)).toEqual([1001, 1003]);
    expect(page.rejected).toEqual([
      { index: 1, orderNumber: 1002, path: "orders[].totals.order", reason },
    ]);
  });

  it("a number where decimal text is expected is still read as orders.list() reads it", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => raw(pageWithBadTotal("15.25")));

    const page = await listOrdersPage(client);

    expect(page.rejected).toEqual([]);
    expect(page.data.map((o) => o.orderNumber)).toEqual([1001, 1002, 1003]);
    expect(page.data[1]?.totals.order?.toFixed(2)).toBe("15.25");
  });

  it.each([
    ["no orderNumber", undefined],
    ["an orderNumber in a string", "1002"],
    ["an orderNumber past 2^53", 2 ** 53 + 2],
    ["a fractional orderNumber", 1002.5],
  ])("a bad row with %s is rejected with orderNumber null", async (_name, orderNumber) => {
    const { client, server } = harness();
    const bad = { ...order(1002, { tax: "x" }), orderNumber };
    server.on("GET /v1/orders", () => json({ orders: [order(1001), bad], nextCursor: null }));

    const page = await listOrdersPage(client);

    expect(page.data.map((o) => o.orderNumber)).toEqual([1001]);
    expect(page.rejected).toEqual([
      {
        index: 1,
        orderNumber: null,
        path: "orders[].totals.tax",
        reason: "text that is not a plain decimal",
      },
    ]);
  });

  it("a row with two bad fields is rejected once, for the first in field order", async () => {
    const { client, server } = harness();
    const bad = order(1002, { tax: "x", order: "y" });
    server.on("GET /v1/orders", () => json({ orders: [bad, order(1003)], nextCursor: null }));

    const page = await listOrdersPage(client);

    expect(page.rejected).toEqual([
      {
        index: 0,
        orderNumber: 1002,
        path: "orders[].totals.tax",
        reason: "text that is not a plain decimal",
      },
    ]);
    expect(page.data.map((o) => o.orderNumber)).toEqual([1003]);
  });

  it("a page of only bad rows gives no data, every row rejected, and still its cursor", async () => {
    const { client, server } = harness();
    const orders = [order(1, { item: "a" }), order(2, { shipping: "b" })];
    server.on("GET /v1/orders", () => json({ orders, nextCursor: "c-9" }));

    const page = await listOrdersPage(client);

    expect(page.data).toEqual([]);
    expect(page.rejected.map((r) => [r.index, r.orderNumber, r.path])).toEqual([
      [0, 1, "orders[].totals.item"],
      [1, 2, "orders[].totals.shipping"],
    ]);
    expect(page.nextCursor).toBe("c-9");
  });
});

describe("the rest is orders.list()'s", () => {
  it("sends the query and credential orders.list() sends, and passes the next cursor as received", async () => {
    const { client, server } = harness();
    const next = "eyJrIjpbMV19/+=%20ü";
    server.on("GET /v1/orders", () => json({ orders: [order(5)], nextCursor: next }));

    const page = await listOrdersPage(client, { siteId: 7, cursor: "c-1", limit: 20 });

    expect(page.nextCursor).toBe(next);
    const request = server.at(0, "GET /v1/orders");
    expect(Object.fromEntries(request.url.searchParams)).toEqual({
      siteId: "7",
      limit: "20",
      cursor: "c-1",
    });
    expect(request.headers.get("authorization")).toBe("Bearer token-1");
  });

  it("the last page's null cursor stays null", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => json({ orders: [], nextCursor: null }));
    expect(await listOrdersPage(client)).toEqual({ data: [], nextCursor: null, rejected: [] });
  });

  it("an HTTP error throws the usual APIError", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => problem(400, "invalid_cursor"));

    const error = await rejection(listOrdersPage(client, { cursor: "stale" }));

    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).code).toBe("invalid_cursor");
    expect(server.apiRequests).toHaveLength(1);
  });

  it("a 429 is waited out and retried like any call", async () => {
    const { client, server, clock } = harness();
    server.on(
      "GET /v1/orders",
      () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "2" }),
      () => raw(pageWithBadTotal('"abc"', null)),
    );

    const page = await listOrdersPage(client);

    expect(server.apiRequests).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(page.rejected.map((r) => r.orderNumber)).toEqual([1002]);
  });

  it("retries used up throw the usual error", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("GET /v1/orders", () => problem(429, "rate_limit_exceeded"));
    expect(await rejection(listOrdersPage(client))).toBeInstanceOf(RateLimitError);
  });

  it("parameters are checked before anything is sent", async () => {
    const { client, server } = harness();
    const error = await rejection(listOrdersPage(client, { siteId: -1, limit: 0, cursor: "" }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).violations.map((v) => v.path)).toEqual([
      "siteId",
      "limit",
      "cursor",
    ]);
    expect(server.apiRequests).toEqual([]);
  });

  it("a page that hands back the cursor that fetched it is refused, as orders.list() refuses it", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => json({ orders: [order(1)], nextCursor: "c-1" }));
    const error = await rejection(listOrdersPage(client, { cursor: "c-1" }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("already followed");
  });

  it.each([
    ["a body without orders", '{"nextCursor":null}', "orders"],
    ["orders that are not a list", '{"orders":{"0":{}},"nextCursor":null}', "orders"],
    ["an empty body", "", "orders"],
    ["a body that is not JSON", "<html>", ""],
  ])("%s throws a ResponseDecodeError", async (_name, body, path) => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => raw(body));
    const error = await rejection(listOrdersPage(client));
    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect((error as ResponseDecodeError).path).toBe(path);
    expect((error as ResponseDecodeError).operationId).toBe("listOrders");
  });

  it("a client made by withOptions() reads through its own options", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => problem(503, "service_unavailable"));
    const patient = client.withOptions({ maxRetries: 3 });
    await rejection(listOrdersPage(patient));
    expect(server.apiRequests).toHaveLength(4);
  });

  it("anything but a client is refused", async () => {
    const error = await rejection(listOrdersPage({} as PartnerOrders));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toBe("listOrdersPage() needs a PartnerOrders client.");
  });
});
