import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import type { Page } from "../../../src/core/pagination";
import { harness } from "../../support/client";
import { json } from "../../support/fake-server";

/**
 * A listing resumed from a stored cursor whose cursors loop back to it (A -> B -> A): an error once
 * the loop closes, never an endless walk (API.md, Paginated: "a cursor that comes back unchanged is
 * an error, not a loop"; STYLE.md: the paginator guards against a cursor that repeats).
 */
function loopingServer() {
  const h = harness();
  const next: Record<string, string> = { A: "B", B: "A" };
  const number: Record<string, number> = { A: 1, B: 2 };
  h.server.on("GET /v1/orders", (request) => {
    const cursor = request.url.searchParams.get("cursor") ?? "";
    return json({
      orders: [{ orderNumber: number[cursor] ?? 0 }],
      nextCursor: next[cursor] ?? null,
    });
  });
  const cursors = () => h.server.to("GET /v1/orders").map((r) => r.url.searchParams.get("cursor"));
  return { ...h, cursors };
}

/** Rejects instead of hanging should the walk not stop: at most `limit` steps are taken. */
async function bounded(steps: AsyncIterable<unknown>, limit = 20): Promise<unknown> {
  let taken = 0;
  try {
    for await (const _ of steps) {
      if (++taken > limit) return new Error(`still walking after ${limit} steps`);
    }
  } catch (error) {
    return error;
  }
  return new Error("the walk ended without an error");
}

describe("resuming a listing whose cursors loop back (A -> B -> A)", () => {
  it("for await over items: an error after A and B, the second A never requested", async () => {
    const { client, cursors } = loopingServer();
    const seen: number[] = [];
    const error = await bounded(
      (async function* () {
        for await (const order of client.orders.list({ cursor: "A" })) {
          seen.push(order.orderNumber);
          yield order;
        }
      })(),
    );
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(seen).toEqual([1, 2]);
    expect(cursors()).toEqual(["A", "B"]);
  });

  it(".pages(): the same", async () => {
    const { client, cursors } = loopingServer();
    const error = await bounded(client.orders.list({ cursor: "A" }).pages());
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(cursors()).toEqual(["A", "B"]);
  });

  it("getNextPage() from the awaited first page: the same", async () => {
    const { client, cursors } = loopingServer();
    const error = await bounded(
      (async function* () {
        let page: Page<{ orderNumber: number }> = await client.orders.list({ cursor: "A" });
        yield page;
        while (page.hasNextPage()) {
          page = await page.getNextPage();
          yield page;
        }
      })(),
    );
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(cursors()).toEqual(["A", "B"]);
  });

  it("getNextPage() may still be asked twice of one page (a retry), fetching the same page", async () => {
    const { client, cursors } = loopingServer();
    const first = await client.orders.list({ cursor: "A" });
    const again = [await first.getNextPage(), await first.getNextPage()];
    expect(again.map((p) => p.data[0]?.orderNumber)).toEqual([2, 2]);
    expect(cursors()).toEqual(["A", "B", "B"]);
  });

  it("getNextPage() from a listing started without a cursor (start -> A -> B -> A): the same", async () => {
    const { client, server, cursors } = loopingServer();
    server.on("GET /v1/orders", (request) => {
      const cursor = request.url.searchParams.get("cursor");
      const next = cursor === null ? "A" : cursor === "A" ? "B" : "A";
      return json({ orders: [], nextCursor: next });
    });
    let page = await client.orders.list();
    const error = await bounded(
      (async function* () {
        while (page.hasNextPage()) {
          page = await page.getNextPage();
          yield page;
        }
      })(),
    );
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(cursors()).toEqual([null, "A", "B"]);
  });
});
