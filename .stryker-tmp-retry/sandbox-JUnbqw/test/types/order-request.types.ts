/**
 * Compile-time checks, run by `npm run typecheck`: what a partner must not be able to write.
 * Each `@ts-expect-error` fails the type check if the line below it ever compiles.
 */
// @ts-nocheck

import type { OrderRequest } from "partner-orders";

const shipTo = {
  name: "Ada",
  address1: "1 Main St",
  city: "Springfield",
  state: "IL",
  postalCode: "62701",
  country: "US",
};
const line = { productId: "SLO_1", partnerLineId: "line-1", quantity: 2 };

export const orderLevel: OrderRequest = { siteId: 1, partnerOrderId: "po-1", shipTo, lines: [line] };
export const lineLevel: OrderRequest = {
  siteId: 1,
  partnerOrderId: "po-2",
  lines: [{ ...line, shipTo }],
};
export const withEmail: OrderRequest = {
  siteId: 1,
  partnerOrderId: "po-3",
  shipTo: { ...shipTo, email: "ada@example.com" },
  lines: [line],
};

//  an unknown top-level key is rejected by the service
export const unknownKey: OrderRequest = { siteId: 1, partnerOrderId: "x", shipTo, lines: [line], note: "" };
//  there is no price in any request: unitPrice does not exist
export const unitPrice: OrderRequest = { siteId: 1, partnerOrderId: "x", shipTo, lines: [{ ...line, unitPrice: 1 }] };
//  partnerOrderId is required
export const noPartnerOrderId: OrderRequest = { siteId: 1, shipTo, lines: [line] };
//  quantity is required on a line
export const noQuantity: OrderRequest = { siteId: 1, partnerOrderId: "x", shipTo, lines: [{ productId: "SLO_1", partnerLineId: "l" }] };
//  both an order-level shipTo and line-level ones
export const both: OrderRequest = { siteId: 1, partnerOrderId: "x", shipTo, lines: [{ ...line, shipTo }] };
//  neither an order-level shipTo nor line-level ones
export const neither: OrderRequest = { siteId: 1, partnerOrderId: "x", lines: [line] };
//  email is accepted only on the order-level shipTo
export const lineEmail: OrderRequest = { siteId: 1, partnerOrderId: "x", lines: [{ ...line, shipTo: { ...shipTo, email: "a@b.c" } }] };
//  siteId is a number
export const siteIdString: OrderRequest = { siteId: "1", partnerOrderId: "x", shipTo, lines: [line] };
