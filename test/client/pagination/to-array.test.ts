import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { type FakeServer, json, type Recorded } from "../../support/fake-server";

/** Serves GET /v1/orders as `pageCount` pages of `pageSize` orders, numbered from 1. */
function servePages(server: FakeServer, pageCount: number, pageSize: number) {
  server.on("GET /v1/orders", (request: Recorded) => {
    const cursor = request.url.searchParams.get("cursor");
    const index = cursor === null ? 0 : Number(cursor.slice(1));
    const orders = Array.from({ length: pageSize }, (_, i) => ({
      orderNumber: index * pageSize + i + 1,
    }));
    return json({ orders, nextCursor: index + 1 < pageCount ? `c${index + 1}` : null });
  });
}

const pagesAsked = (server: FakeServer) => server.to("GET /v1/orders").length;

describe("Paginated.toArray()", () => {
  it("collects every item of every page, in order", async () => {
    const { client, server } = harness();
    servePages(server, 3, 2);
    const orders = await client.orders.list().toArray();
    expect(orders.map((o) => o.orderNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pagesAsked(server)).toBe(3);
  });

  it("returns a list of exactly max items", async () => {
    const { client, server } = harness();
    servePages(server, 2, 3);
    const orders = await client.orders.list().toArray({ max: 6 });
    expect(orders).toHaveLength(6);
  });

  it("throws a PartnerOrdersError at item max + 1 and asks for no later page", async () => {
    const { client, server } = harness();
    servePages(server, 10, 3);
    // Item 6 is the last of page 2, item 7 the first of page 3: page 4 and later are never asked for.
    const error = await rejection(client.orders.list().toArray({ max: 6 }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toMatch(/more than 6 items/);
    expect(pagesAsked(server)).toBe(3);
  });

  it("stops within the page that holds item max + 1", async () => {
    const { client, server } = harness();
    servePages(server, 10, 3);
    const error = await rejection(client.orders.list().toArray({ max: 4 }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(pagesAsked(server)).toBe(2);
  });

  it("defaults max to 10,000 items", async () => {
    const { client, server } = harness();
    servePages(server, 60, 200);
    const error = await rejection(client.orders.list({ limit: 200 }).toArray());
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toMatch(/more than 10000 items/);
    // 10,000 items fill 50 pages of 200; item 10,001 is on page 51.
    expect(pagesAsked(server)).toBe(51);
  });

  it("collects 10,000 items under the default", async () => {
    const { client, server } = harness();
    servePages(server, 50, 200);
    expect(await client.orders.list({ limit: 200 }).toArray()).toHaveLength(10_000);
  });

  it.each([-1, 1.5, Number.NaN])("refuses max %s before any request", async (max) => {
    const { client, server } = harness();
    servePages(server, 1, 1);
    const error = await rejection(client.orders.list().toArray({ max }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(pagesAsked(server)).toBe(0);
  });

  it("accepts max: Infinity", async () => {
    const { client, server } = harness();
    servePages(server, 2, 2);
    expect(await client.orders.list().toArray({ max: Number.POSITIVE_INFINITY })).toHaveLength(4);
  });

  it("works on every list, items and shipments included", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/100001/items", () =>
      json({ items: [{ lineNumber: 1 }, { lineNumber: 2 }], nextCursor: null }),
    );
    const error = await rejection(client.orders.items(100001).toArray({ max: 1 }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
  });
});

describe("toArray({ max }) at its bounds", () => {
  it("max 0 is a whole number >= 0: an empty list gives an empty array", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => json({ orders: [], nextCursor: null }));
    expect(await client.orders.list().toArray({ max: 0 })).toEqual([]);
  });

  it("a max that is not a whole number >= 0 says what it takes", async () => {
    const { client } = harness();
    const error = await rejection(client.orders.list().toArray({ max: -1 }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toBe(
      "toArray({ max }) takes a whole number >= 0, or Infinity.",
    );
  });

  it("a longer list says how to read it without the limit", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () =>
      json({ orders: [{ orderNumber: 1 }, { orderNumber: 2 }], nextCursor: null }),
    );
    const error = await rejection(client.orders.list().toArray({ max: 1 }));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toBe(
      "The list has more than 1 items, the most toArray() collects; iterate it with " +
        "`for await` to keep memory constant, or pass a larger { max }.",
    );
  });
});
