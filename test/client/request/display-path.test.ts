import { describe, expect, it } from "vitest";
import { displayPath, operation } from "../../../src/core/http/operation";

describe("a call's path", () => {
  it("is the route's own path when it names no parameter", () => {
    expect(displayPath(operation("listOrders", { params: { query: { limit: 5 } } }))).toBe(
      "/v1/orders",
    );
  });

  it("fills in each parameter, encoded, and keeps the text around it", () => {
    expect(
      displayPath(operation("listOrderItems", { params: { path: { orderNumber: 42 } } })),
    ).toBe("/v1/orders/42/items");
    expect(
      displayPath(operation("getSubmission", { params: { path: { submissionId: "a/b c?" } } })),
    ).toBe("/v1/orders/submissions/a%2Fb%20c%3F");
    expect(
      displayPath(
        operation("quoteProduct", {
          params: { path: { productId: "p-1" } },
          body: { quantity: 1 },
        }),
      ),
    ).toBe("/v1/products/p-1/quote");
  });

  it("gives each call its own values though the route's parts are split once", () => {
    const path = (orderNumber: number) =>
      displayPath(operation("listOrderShipments", { params: { path: { orderNumber } } }));
    expect(path(1)).toBe("/v1/orders/1/shipments");
    expect(path(987654)).toBe("/v1/orders/987654/shipments");
    expect(path(1)).toBe("/v1/orders/1/shipments");
  });
});
