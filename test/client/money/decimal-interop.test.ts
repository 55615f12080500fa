import { Decimal as DecimalJs } from "decimal.js";
import { Decimal } from "partner-orders";
import { describe, expect, it } from "vitest";
import { harness } from "../../support/client";
import { json } from "../../support/fake-server";

describe("Decimal", () => {
  it("is decimal.js's own constructor, so money equals values a partner builds with decimal.js", async () => {
    expect(Decimal).toBe(DecimalJs);
    const { client, server } = harness();
    server.on("GET /v1/orders/7", () =>
      json({
        orderNumber: 7,
        totals: {
          item: "12.3400000000",
          shipping: null,
          tax: "0.0000000000",
          order: "12.3400000000",
        },
      }),
    );
    const order = await client.orders.get(7);
    expect(order.totals.item).toEqual(new DecimalJs("12.3400000000"));
    expect(order.totals.item).toBeInstanceOf(DecimalJs);
    expect(order.totals.shipping).toBeNull();
  });
});
