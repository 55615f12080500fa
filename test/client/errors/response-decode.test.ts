import { describe, expect, it } from "vitest";
import { PartnerOrdersError, ResponseDecodeError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json, raw } from "../../support/fake-server";
import { order } from "../../support/fixtures";

// An answer the client cannot read is refused whole, with an error that says where: the field, and
// for a list the row, so a partner can find the order at fault instead of a page that fails forever.

describe("a list page with one bad row", () => {
  it("orders.list() refuses the page with a ResponseDecodeError naming the field and the order", async () => {
    const { client, server } = harness();
    const orders = [order(1001), order(1002, { order: "1e999" }), order(1003)];
    server.on("GET /v1/orders", () => json({ orders, nextCursor: "c-2" }));

    const error = await rejection(client.orders.list());

    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect(error).toBeInstanceOf(PartnerOrdersError);
    const decode = error as ResponseDecodeError;
    expect(decode.name).toBe("ResponseDecodeError");
    expect(decode.operationId).toBe("listOrders");
    expect(decode.path).toBe("orders[].totals.order");
    expect(decode.index).toBe(1);
    expect(decode.orderNumber).toBe(1002);
    expect(decode.reason).toBe("text that is not a plain decimal");
    expect(decode.message).toBe(
      "The listOrders response has a value at orders[].totals.order that is not a decimal amount " +
        "(orders[1], order 1002).",
    );
    expect(server.apiRequests, "never retried: the same answer would come back").toHaveLength(1);
  });

  it("for await stops at that page, after the items of the pages before it", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/orders",
      () => json({ orders: [order(1)], nextCursor: "c-2" }),
      () => json({ orders: [order(2), order(3, { tax: "abc" })], nextCursor: null }),
    );
    const seen: number[] = [];
    const error = await rejection(async () => {
      for await (const o of client.orders.list()) seen.push(o.orderNumber);
    });
    expect(seen).toEqual([1]);
    expect((error as ResponseDecodeError).orderNumber).toBe(3);
    expect((error as ResponseDecodeError).index).toBe(1);
  });
});

describe("other answers the client cannot read", () => {
  it("one order: the field, and no row", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9", () => json(order(9, { shipping: "abc" })));
    const error = (await rejection(client.orders.get(9))) as ResponseDecodeError;
    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect([error.operationId, error.path, error.index, error.orderNumber]).toEqual([
      "getOrder",
      "totals.shipping",
      undefined,
      undefined,
    ]);
    expect(error.message).toBe(
      "The getOrder response has a value at totals.shipping that is not a decimal amount.",
    );
  });

  it("a body that is not JSON", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9", () => raw("<html>"));
    const error = (await rejection(client.orders.get(9))) as ResponseDecodeError;
    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect([error.path, error.reason]).toEqual(["", "not valid JSON"]);
  });

  it.each([
    ["without orders", { nextCursor: null }],
    ["whose orders are not a list", { orders: { 0: order(1) }, nextCursor: null }],
  ])("a list page %s", async (_name, body) => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => json(body));
    const error = (await rejection(client.orders.list())) as ResponseDecodeError;
    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect(error.message).toBe('The listOrders response has no "orders" array.');
    expect([error.operationId, error.path, error.reason]).toEqual([
      "listOrders",
      "orders",
      "missing, or not an array",
    ]);
  });
});
