import { orderRequest } from "../support/fixtures";

/** Order requests for the validation tests, as plain JSON a caller without types could send. */
export type Json = Record<string, unknown>;

/** The order-level address of the client tests' request (test/support/fixtures.ts). */
export const address = (): Json => ({ ...orderRequest().shipTo });

export const line = (index = 0, extra: Json = {}): Json => ({
  productId: "SLO_123",
  partnerLineId: `line-${index}`,
  quantity: 1,
  ...extra,
});

/** A valid request with an order-level shipTo; `extra` overrides top-level fields. */
export const order = (extra: Json = {}): Json => ({
  siteId: 7,
  partnerOrderId: "PO-1",
  shipTo: address(),
  lines: [line()],
  ...extra,
});
