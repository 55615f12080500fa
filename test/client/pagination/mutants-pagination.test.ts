import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";

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
