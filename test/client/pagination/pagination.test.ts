import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { harness } from "../../support/client";
import type { FakeServer, Recorded } from "../../support/fake-server";
import { json, problem } from "../../support/fake-server";

const site = (siteId: number) => ({ siteId, name: `Site ${siteId}`, homeUrl: null, live: true });

/** Serves `pages` of GET /v1/orders in order: page i is answered for cursor `c{i}` (none for 0). */
function servePages(server: FakeServer, pages: number[][], cursorOf = (i: number) => `c${i}`) {
  server.on("GET /v1/orders", (request: Recorded) => {
    const cursor = request.url.searchParams.get("cursor");
    const index = cursor === null ? 0 : pages.findIndex((_, i) => cursorOf(i) === cursor);
    if (index < 0) return problem(400, "invalid_cursor");
    const next = index + 1 < pages.length ? cursorOf(index + 1) : null;
    return json({
      orders: (pages[index] ?? []).map((n) => ({ orderNumber: n })),
      nextCursor: next,
    });
  });
}

const numbers = (items: { orderNumber: number }[]) => items.map((o) => o.orderNumber);
const cursors = (server: FakeServer) =>
  server.to("GET /v1/orders").map((r) => r.url.searchParams.get("cursor"));

describe("for await over items", () => {
  it("walks every item with exactly one request per page", async () => {
    const { client, server } = harness();
    servePages(server, [[1, 2], [3], [4, 5]]);
    const seen: number[] = [];
    for await (const order of client.orders.list()) seen.push(order.orderNumber);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(cursors(server)).toEqual([null, "c1", "c2"]);
  });

  it("fetches the next page only when the previous one is consumed", async () => {
    const { client, server } = harness();
    servePages(server, [[1, 2], [3]]);
    const iterator = client.orders.list()[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ orderNumber: 1 });
    expect((await iterator.next()).value).toMatchObject({ orderNumber: 2 });
    expect(server.to("GET /v1/orders")).toHaveLength(1);
    expect((await iterator.next()).value).toMatchObject({ orderNumber: 3 });
    expect(server.to("GET /v1/orders")).toHaveLength(2);
  });

  it("follows an empty page that still carries a cursor, and stops only at null", async () => {
    const { client, server } = harness();
    servePages(server, [[], [], [7], []]);
    const seen: number[] = [];
    for await (const order of client.orders.list()) seen.push(order.orderNumber);
    expect(seen).toEqual([7]);
    expect(cursors(server)).toEqual([null, "c1", "c2", "c3"]);
  });

  it("throws a PartnerOrdersError when a cursor comes back unchanged, instead of looping", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/orders",
      () => json({ orders: [{ orderNumber: 1 }], nextCursor: "same" }),
      () => json({ orders: [{ orderNumber: 2 }], nextCursor: "same" }),
    );
    const seen: number[] = [];
    let error: unknown;
    try {
      for await (const order of client.orders.list()) seen.push(order.orderNumber);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(seen).toEqual([1]);
    expect(server.to("GET /v1/orders")).toHaveLength(2);
  });

  it("two consumers of one iterator never fetch a page twice and see every item once", async () => {
    const { client, server } = harness();
    servePages(server, [[1, 2, 3], [4], [], [5, 6]]);
    const iterator = client.orders.list()[Symbol.asyncIterator]();
    const consume = async (into: number[]) => {
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
        into.push(r.value.orderNumber);
      }
    };
    const a: number[] = [];
    const b: number[] = [];
    await Promise.all([consume(a), consume(b)]);
    expect([...a, ...b].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(cursors(server)).toEqual([null, "c1", "c2", "c3"]);
  });

  it("a 401 mid-iteration refreshes the token and neither skips nor repeats an item", async () => {
    const { client, server } = harness();
    let page2Calls = 0;
    server.on("GET /v1/orders", (request) => {
      const cursor = request.url.searchParams.get("cursor");
      if (cursor === null)
        return json({ orders: [{ orderNumber: 1 }, { orderNumber: 2 }], nextCursor: "c1" });
      if (cursor === "c1" && page2Calls++ === 0) return problem(401, "invalid_token");
      return json({ orders: [{ orderNumber: 3 }], nextCursor: null });
    });
    const seen: number[] = [];
    for await (const order of client.orders.list()) seen.push(order.orderNumber);
    expect(seen).toEqual([1, 2, 3]);
    expect(server.tokenRequests).toHaveLength(2);
    expect(cursors(server)).toEqual([null, "c1", "c1"]);
    expect(server.to("GET /v1/orders").map((r) => r.headers.get("authorization"))).toEqual([
      "Bearer token-1",
      "Bearer token-1",
      "Bearer token-2",
    ]);
  });
});

describe("pages", () => {
  it("await gives the first Page with hasNextPage() and getNextPage()", async () => {
    const { client, server } = harness();
    servePages(server, [[1], [2]]);
    const first = await client.orders.list();
    expect(numbers(first.data)).toEqual([1]);
    expect(first.nextCursor).toBe("c1");
    expect(first.hasNextPage()).toBe(true);
    const second = await first.getNextPage();
    expect(numbers(second.data)).toEqual([2]);
    expect(second.hasNextPage()).toBe(false);
    await expect(second.getNextPage()).rejects.toBeInstanceOf(PartnerOrdersError);
    expect(server.to("GET /v1/orders")).toHaveLength(2);
  });

  it(".pages() iterates page by page", async () => {
    const { client, server } = harness();
    servePages(server, [[1, 2], [], [3]]);
    const pages: number[][] = [];
    for await (const page of client.orders.list().pages()) pages.push(numbers(page.data));
    expect(pages).toEqual([[1, 2], [], [3]]);
  });

  it("{ cursor } resumes, sending the cursor exactly as given", async () => {
    const { client, server } = harness();
    const stored = "eyJr Ijo+/=&x=1%20é";
    servePages(server, [[1], [2], [3]], (i) => (i === 1 ? stored : `c${i}`));
    const seen: number[] = [];
    for await (const order of client.orders.list({ cursor: stored })) seen.push(order.orderNumber);
    expect(seen).toEqual([2, 3]);
    expect(cursors(server)).toEqual([stored, "c2"]);
    expect(server.at(0, "GET /v1/orders").url.searchParams.getAll("cursor")).toEqual([stored]);
  });

  it("sends list filters as query parameters", async () => {
    const { client, server } = harness();
    servePages(server, [[1]]);
    await client.orders.list({ siteId: 7, status: "Shipped", limit: 10 });
    const query = server.at(0, "GET /v1/orders").url.searchParams;
    expect(Object.fromEntries(query)).toEqual({ siteId: "7", status: "Shipped", limit: "10" });
  });
});

describe("shipments with packagesComplete: false", () => {
  const shipment = (n: number) => ({ shipmentNumber: n, trackingNumbers: [`T${n}`], packages: [] });

  it("re-requests the page with a smaller limit until complete", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/orders/9/shipments",
      () => json({ shipments: [shipment(1)], nextCursor: "s1", packagesComplete: false }),
      () => json({ shipments: [shipment(1)], nextCursor: "s1", packagesComplete: false }),
      () => json({ shipments: [shipment(1)], nextCursor: "s1", packagesComplete: true }),
      () => json({ shipments: [shipment(2)], nextCursor: "s2", packagesComplete: false }),
      () =>
        json({ shipments: [shipment(2), shipment(3)], nextCursor: null, packagesComplete: true }),
    );
    const seen: number[] = [];
    for await (const s of client.orders.shipments(9, { limit: 40 })) seen.push(s.shipmentNumber);
    expect(seen).toEqual([1, 2, 3]);
    const sent = server
      .to("GET /v1/orders/9/shipments")
      .map((r) => [r.url.searchParams.get("limit"), r.url.searchParams.get("cursor")]);
    expect(sent).toEqual([
      ["40", null],
      ["20", null],
      ["10", null],
      ["40", "s1"],
      ["20", "s1"],
    ]);
  });

  it("starts halving from the default of 25 when no limit was given", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/orders/9/shipments",
      () => json({ shipments: [], nextCursor: null, packagesComplete: false }),
      () => json({ shipments: [shipment(1)], nextCursor: null, packagesComplete: true }),
    );
    await client.orders.shipments(9);
    const limits = server
      .to("GET /v1/orders/9/shipments")
      .map((r) => r.url.searchParams.get("limit"));
    expect(limits).toEqual([null, "12"]);
  });
});

describe("withResponse()", () => {
  it("on a call gives the data, the status and the headers", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", () =>
      json({ sites: [site(7)] }, 200, { "x-ratelimit-remaining": "41" }),
    );
    const { data, response } = await client.sites.list().withResponse();
    expect(data).toEqual([site(7)]);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("41");
  });

  it("on a list gives the first page and its response", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () =>
      json({ orders: [{ orderNumber: 1 }], nextCursor: null }, 200, {
        "x-ratelimit-remaining": "3",
      }),
    );
    const { data, response } = await client.orders.list().withResponse();
    expect(numbers(data.data)).toEqual([1]);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("3");
  });
});
