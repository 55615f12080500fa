// @ts-nocheck
import type { ProductRecord, SiteRecord, VariantRecord } from "./model";

/**
 * Prices come only from the catalog and the site's rules, never from a request (API document,
 * general rule 4). All arithmetic is in whole cents.
 */
export interface LinePrice {
  /** Extended list amount: list price x quantity, with the site markup. */
  listCents: number;
  /** After the offering discount, before order-level adjustments. */
  beforeAdjustmentsCents: number;
}

export function priceLine(
  site: SiteRecord,
  product: ProductRecord,
  variant: VariantRecord,
  quantity: number,
): LinePrice {
  const listCents = Math.round(variant.unitPriceCents * quantity * (1 + site.markupPercent / 100));
  const beforeAdjustmentsCents = Math.round(listCents * (1 - product.discountPercent / 100));
  return { listCents, beforeAdjustmentsCents };
}

/** The order-level adjustment (shipping) that makes lines not sum to the order's totalPrice. */
export const SHIPPING_CENTS = 750;

/** The catalog entry of `productId` orderable on `siteId`, or undefined when absent or inactive. */
export function catalogEntry(
  products: readonly ProductRecord[],
  siteId: number,
  productId: string,
) {
  return products.find((p) => p.productId === productId && p.siteId === siteId && p.listed);
}

/** Why `quantity` cannot be ordered of `variant`, or undefined. Used by quotes and submissions alike. */
export function quantityProblem(variant: VariantRecord, quantity: number): string | undefined {
  if (variant.minQuantity !== null && quantity < variant.minQuantity) {
    return `Quantity ${quantity} is below the minimum of ${variant.minQuantity}.`;
  }
  if (variant.maxQuantity !== null && quantity > variant.maxQuantity) {
    return `Quantity ${quantity} is above the maximum of ${variant.maxQuantity}.`;
  }
  // A valid positive integer, yet more than the platform prices or produces: a business rejection
  // (422 quote_invalid, or a failed submission), never a malformed request.
  if (!Number.isSafeInteger(quantity)) {
    return `Quantity ${quantity} is more than the platform can price or produce.`;
  }
  return undefined;
}
