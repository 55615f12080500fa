import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { harness } from "../../support/client";
import { json } from "../../support/fake-server";

describe("a cursor cycle", () => {
  it("stops the walk with an error instead of looping (A -> B -> A)", async () => {
    const { client, server } = harness();
    const next: Record<string, string> = { start: "A", A: "B", B: "A" };
    server.on("GET /v1/orders", (request) => {
      const cursor = request.url.searchParams.get("cursor") ?? "start";
      return json({ orders: [{ orderNumber: cursor.length }], nextCursor: next[cursor] ?? null });
    });
    const seen: number[] = [];
    const walk = async () => {
      for await (const order of client.orders.list()) seen.push(order.orderNumber);
    };
    await expect(walk()).rejects.toBeInstanceOf(PartnerOrdersError);
    // start, A and B were each fetched once; the second A was never requested.
    expect(server.to("GET /v1/orders")).toHaveLength(3);
    expect(seen).toHaveLength(3);
  });
});
