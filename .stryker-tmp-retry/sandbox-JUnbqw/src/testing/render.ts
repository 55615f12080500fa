// @ts-nocheck
import type {
  ItemRecord,
  OrderRecord,
  PackageRecord,
  ProductRecord,
  ShipmentRecord,
  SiteRecord,
  SubmissionRecord,
  VariantRecord,
} from "./model";

/** Records to response bodies, field for field as the API document's resource tables list them. */

export function renderOrder(o: OrderRecord) {
  return {
    orderNumber: o.orderNumber,
    status: o.status,
    placedOn: o.placedOn,
    updatedOn: o.updatedOn,
    shippedOn: o.shippedOn,
    purchaseOrder: o.purchaseOrder,
    projectName: o.projectName,
    siteId: o.siteId,
    totals: { ...o.totals },
    closed: o.closed,
  };
}

export function renderItem(i: ItemRecord) {
  const { visible: _hidden, ...item } = i;
  return item;
}

/**
 * Tracking precedence (API document, Shipment): distinct per-package carrier numbers if any exist;
 * otherwise the manual shipment-level number; otherwise an empty array. Never null.
 */
export function trackingNumbers(
  packages: readonly PackageRecord[],
  manual: string | null,
): string[] {
  const carrier = [
    ...new Set(packages.map((p) => p.trackingNumber).filter((n): n is string => !!n)),
  ];
  if (carrier.length > 0) return carrier;
  return manual ? [manual] : [];
}

export function renderShipment(s: ShipmentRecord, order: OrderRecord, packages = s.packages) {
  return {
    orderNumber: order.orderNumber,
    siteId: order.siteId,
    shipmentNumber: s.shipmentNumber,
    shippingService: s.shippingService,
    trackingNumbers: trackingNumbers(packages, s.manualTrackingNumber),
    manualTrackingNumber: s.manualTrackingNumber,
    shippedOn: s.shippedOn,
    deliveredOn: s.deliveredOn,
    estimatedShipBy: s.estimatedShipBy,
    shipBy: s.shipBy,
    deliverBy: s.deliverBy,
    packages: packages.map((p) => ({ ...p })),
  };
}

const variantFields = (v: VariantRecord) => ({
  variantId: v.variantId,
  sku: v.sku,
  // Untracked inventory is unknown, never 0 (API document, Versioning 4).
  availableInventory: v.inventoryTracked ? v.availableInventory : null,
  inventoryTracked: v.inventoryTracked,
  minQuantity: v.minQuantity,
  maxQuantity: v.maxQuantity,
  weight: v.weight,
});

export function renderProduct(p: ProductRecord, v: VariantRecord) {
  const { variantId, sku, availableInventory, inventoryTracked, minQuantity, maxQuantity, weight } =
    variantFields(v);
  return {
    siteId: p.siteId,
    productId: p.productId,
    variantId,
    sku,
    name: p.name,
    description: p.description,
    serviceType: p.serviceType,
    availableInventory,
    inventoryTracked,
    minQuantity,
    maxQuantity,
    shippable: p.shippable,
    weight,
    updatedOn: v.updatedOn,
  };
}

export function renderProductDetail(p: ProductRecord) {
  return {
    productId: p.productId,
    siteId: p.siteId,
    name: p.name,
    description: p.description,
    serviceType: p.serviceType,
    shippable: p.shippable,
    // The MAX across the variants (API document, ProductDetail); ISO strings compare in time order.
    updatedOn:
      p.variants
        .map((v) => v.updatedOn)
        .sort()
        .at(-1) ?? null,
    variants: p.variants.map(variantFields),
  };
}

export function renderSubmission(s: SubmissionRecord) {
  return {
    submissionId: s.submissionId,
    status: s.status,
    ...(s.status === "completed" && s.order ? { order: s.order } : {}),
    ...(s.status === "failed" && s.errors ? { errors: s.errors } : {}),
  };
}

export function renderSite(s: SiteRecord) {
  return { siteId: s.siteId, name: s.name, homeUrl: s.homeUrl, live: s.live };
}
