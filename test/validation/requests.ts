/** Order requests for the validation tests, as plain JSON a caller without types could send. */
export type Json = Record<string, unknown>;

export const address = (): Json => ({
  name: "Ada Lovelace",
  address1: "1 Main St",
  city: "Springfield",
  state: "IL",
  postalCode: "62701",
  country: "US",
});

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
