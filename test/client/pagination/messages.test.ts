import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";

describe("what a listing says when it cannot go on", () => {
  it("getNextPage() on the last page: a PartnerOrdersError saying there is none, nothing sent", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => json({ orders: [], nextCursor: null }));
    const page = await client.orders.list();
    expect(page.hasNextPage()).toBe(false);
    const error = await rejection(page.getNextPage());
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toBe("There is no next page.");
    expect(server.to("GET /v1/orders")).toHaveLength(1);
  });

  it("a cursor that comes back: says to restart the listing without a cursor", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () => json({ orders: [], nextCursor: "same" }));
    const error = await rejection(async () => {
      for await (const _ of client.orders.list({ cursor: "same" })) {
        // never reached: the first page already repeats its cursor
      }
    });
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("a cursor this listing had already followed");
    expect((error as Error).message).toContain("Restart the listing without a cursor.");
  });
});
