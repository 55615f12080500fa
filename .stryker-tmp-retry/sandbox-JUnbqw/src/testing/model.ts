/**
 * The sandbox's own data model. It mirrors the API document's resources plus the staff-side facts
 * the API never shows (grants, capabilities, prices, hidden lines), and is independent of the SDK's
 * generated types on purpose: the sandbox plays the service, not the client.
 */
// @ts-nocheck


export type ServiceType = "STOCK" | "POD";
export type SubmissionStatus = "queued" | "processing" | "completed" | "failed";

export interface PartnerRecord {
  /** The partner's id, as GET /v1/me reports it. */
  partnerId: string;
  /** The partner's display name. */
  partnerName: string;
  /** Full scope strings (`partner-api/orders:read`); the ceiling of every token's scopes. */
  capabilities: string[];
  /** The sites this partner may see; none means every credential of it is refused. */
  grantedSiteIds: number[];
  /** A disabled partner's credentials are all refused with 401 `invalid_token`. */
  disabled: boolean;
}

export interface ClientRecord {
  clientId: string;
  clientSecret: string;
  partnerId: string;
}

export interface SiteRecord {
  siteId: number;
  name: string;
  homeUrl: string | null;
  live: boolean;
  /** False: POST /v1/orders answers 409 ordering_not_provisioned (API document, POST /v1/orders 2). */
  orderingUser: boolean;
  /** Site rule applied to list prices, in percent. */
  markupPercent: number;
}

export interface VariantRecord {
  /** Null for POD (API document, Product). */
  variantId: number | null;
  sku: string | null;
  availableInventory: number | null;
  inventoryTracked: boolean;
  minQuantity: number | null;
  maxQuantity: number | null;
  weight: string | null;
  updatedOn: string;
  /** Catalog list price per unit, in cents. Never published (API document, Product). */
  unitPriceCents: number;
}

export interface ProductRecord {
  productId: string;
  siteId: number;
  name: string;
  description: string | null;
  serviceType: ServiceType;
  shippable: boolean;
  /** False: an inactive entry, absent from the list and rejected at submission. */
  listed: boolean;
  /** False: in the catalog but the platform cannot price it (quote_product_not_found). */
  priceable: boolean;
  /** Offering discount in percent, applied after the site markup. */
  discountPercent: number;
  variants: VariantRecord[];
}

export interface ItemRecord {
  orderNumber: number;
  siteId: number;
  itemNumber: number;
  sku: string | null;
  productName: string;
  productCode: string;
  jobName: string | null;
  externalId: string | null;
  quantity: number;
  lineListTotal: string | null;
  lineTotal: string | null;
  shipped: boolean;
  shippedOn: string | null;
  cancelled: boolean;
  estimatedShipBy: string | null;
  shipBy: string | null;
  turnaroundBusinessDays: number | null;
  /** False for lines hidden from the customer and internal production records (never listed). */
  visible: boolean;
}

export interface PackageRecord {
  sequence: number;
  trackingNumber: string | null;
}

export interface ShipmentRecord {
  shipmentNumber: number;
  shippingService: string | null;
  manualTrackingNumber: string | null;
  shippedOn: string | null;
  deliveredOn: string | null;
  estimatedShipBy: string | null;
  shipBy: string | null;
  deliverBy: string | null;
  packages: PackageRecord[];
}

export interface OrderTotalsRecord {
  item: string | null;
  shipping: string | null;
  tax: string | null;
  order: string | null;
}

export interface OrderRecord {
  orderNumber: number;
  status: string;
  placedOn: string;
  updatedOn: string;
  shippedOn: string | null;
  purchaseOrder: string | null;
  projectName: string | null;
  projectId: number;
  siteId: number;
  totals: OrderTotalsRecord;
  closed: boolean;
  /** Present only on orders submitted through the API (webhook payload rule 7). */
  partnerOrderId?: string;
  /** The partner that submitted it through the API; only that partner's events carry partnerOrderId. */
  submittedBy?: string;
  items: ItemRecord[];
  shipments: ShipmentRecord[];
  /** Hidden by staff: answers 404 and leaves the list, as an order moved out of the grant does. */
  hidden?: boolean;
}

export interface SubmittedOrderLine {
  partnerLineId: string;
  quantity: number;
  lineListTotal: number;
  lineTotalBeforeAdjustments: number;
}

export interface SubmittedOrder {
  orderNumber: number;
  status: string;
  totalPrice: number;
  projectId: number;
  lines: SubmittedOrderLine[];
}

export interface SubmissionError {
  code: string;
  detail: string;
  field?: string;
  partnerLineId?: string;
}

export interface ShipToInput {
  name?: string;
  company?: string;
  address1?: string;
  address2?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  country?: string;
  phone?: string;
  email?: string;
}

export interface OrderLineInput {
  productId: string;
  partnerLineId: string;
  quantity: number;
  variantId?: number | null;
  sku?: string;
  jobName?: string;
  artworkUrl?: string;
  templateVariables?: Record<string, string>;
  shipTo?: ShipToInput;
}

export interface OrderRequestInput {
  siteId: number;
  partnerOrderId: string;
  shipTo?: ShipToInput;
  lines: OrderLineInput[];
}

export interface SubmissionRecord {
  submissionId: string;
  partnerId: string;
  partnerOrderId: string;
  /** Canonical JSON of the request, to tell "identical body" from "different body". */
  bodyKey: string;
  request: OrderRequestInput;
  status: SubmissionStatus;
  /** Creation order, newest first in the list. */
  seq: number;
  order?: SubmittedOrder;
  errors?: SubmissionError[];
}
