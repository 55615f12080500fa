import type { components, operations } from "../generated/openapi";
import type { Decimal } from "./decimal";

// Spec types, decimal fields as `Decimal`; `@property` documents what the spec leaves bare.
type Schemas = components["schemas"];
type With<T, Changes> = Omit<T, keyof Changes> & Changes;

/** Order totals: each a `Decimal`, or `null` when not computed. Null is not zero. @interface */
export type OrderTotals = { [K in keyof Schemas["OrderTotals"]]: Decimal | null };
/**
 * An order (GET /v1/orders, GET /v1/orders/{orderNumber}). Unknown fields pass through. @interface
 * @property orderNumber The platform's order number.
 * @property siteId The granted site the order belongs to.
 * @property purchaseOrder The purchase order reference.
 * @property projectName The project name.
 * @property closed Whether the order is closed.
 */
export type Order = With<
  Schemas["Order"],
  {
    /** Item, shipping, tax and order totals, each exact or `null` when not computed. */
    totals: OrderTotals;
  }
>;
/**
 * A line of an order (GET /v1/orders/{orderNumber}/items). @interface
 * @property orderNumber The order this line belongs to.
 * @property siteId The order's site.
 * @property productName The product's name.
 */
export type OrderItem = With<
  Schemas["OrderItem"],
  {
    /** Whole-line extended list amount before discounts and adjustments; not per-unit. */
    lineListTotal: Decimal | null;
    /** Whole-line final amount after discounts and adjustments; `null` means not priced. */
    lineTotal: Decimal | null;
  }
>;
/**
 * A shipment of an order (GET /v1/orders/{orderNumber}/shipments). @interface
 * @property orderNumber The order this shipment belongs to.
 * @property siteId The order's site.
 */
export type Shipment = Schemas["Shipment"];
/** A package of a shipment: its `sequence` (an ordering hint) and carrier number. @interface */
export type Package = Schemas["Package"];
/**
 * A catalog entry, one per variant (GET /v1/products); prices come from a {@link Quote}. @interface
 * @property productId `SLO_` (site-owned) or `SLS_` (shared to the site) plus 1 to 18 digits; treat as opaque.
 * @property name The product's name.
 * @property description The product's description, or `null`.
 * @property serviceType `STOCK` (warehoused inventory) or `POD` (print on demand, quoted per order).
 * @property shippable Whether the product ships.
 */
export type Product = With<
  Schemas["Product"],
  {
    /** Per-unit weight; `null` for print-on-demand products. */
    weight: Decimal | null;
  }
>;
/**
 * One variant of a {@link ProductDetail}, its fields as on {@link Product}. @interface
 * @property variantId The variant id, `null` for print on demand; send it back exactly as received.
 * @property sku The variant's SKU; `null` for print on demand.
 * @property availableInventory Stock on hand; `null` when `inventoryTracked` is false (unknown, not zero).
 * @property inventoryTracked Whether `availableInventory` means anything.
 * @property minQuantity Smallest quantity that can be ordered; `null` means no minimum.
 * @property maxQuantity Largest quantity that can be ordered; `null` means no maximum.
 */
export type ProductVariant = With<
  Schemas["ProductVariant"],
  {
    /** Per-unit weight; `null` for print-on-demand products. */
    weight: Decimal | null;
  }
>;
/**
 * A product with all its variants (GET /v1/products/{productId}). @interface
 * @property productId `SLO_` or `SLS_` plus 1 to 18 digits; treat as opaque.
 * @property siteId The granted site that owns the product.
 * @property name The product's name.
 * @property description The product's description, or `null`.
 * @property serviceType `STOCK` or `POD`.
 * @property shippable Whether the product ships.
 */
export type ProductDetail = With<
  Schemas["ProductDetail"],
  {
    /** Every variant of the product, with its inventory and quantity bounds. */
    variants: ProductVariant[];
  }
>;
/**
 * A price quote for a product at a quantity (POST /v1/products/{productId}/quote). @interface
 * @property productId The product quoted.
 * @property quantity The quantity quoted.
 */
export type Quote = With<
  Schemas["Quote"],
  {
    /** Site price after site markup and offering discount, never a customer's negotiated price. */
    totalPrice: Decimal;
  }
>;
/**
 * A granted site (GET /v1/sites). A site that is not `live` is still listed. @interface
 * @property siteId The site's id.
 * @property name The site's name.
 */
export type Site = Schemas["Site"];
/**
 * The credential's own description (GET /v1/me). @interface
 * @property partnerId The partner this credential belongs to; compare it when rotating credentials.
 * @property partnerName The partner's name.
 * @property authMethod `COGNITO_M2M` (bearer token), `MTLS` (client certificate) or `COGNITO_USER` (interactive sign-in).
 */
export type Principal = Schemas["Principal"];

/** A line of a completed submission: whole-line amounts, never per-unit prices. @interface */
export type SubmittedOrderLine = With<
  Schemas["SubmittedOrderLine"],
  {
    /** Whole-line extended list amount before discounts and adjustments. */
    lineListTotal: Decimal;
    /** Whole-line total before adjustments; reconcile adjusted orders against the items endpoint. */
    lineTotalBeforeAdjustments: Decimal;
  }
>;
/**
 * The order a `completed` submission created. @interface
 * @property projectId The platform's project id.
 */
export type SubmittedOrder = With<
  Schemas["SubmittedOrder"],
  {
    /** Order total after adjustments. */
    totalPrice: Decimal;
    /** One per submitted line. On an adjusted order the lines do not sum to `totalPrice`. */
    lines: SubmittedOrderLine[];
  }
>;
/** `queued`, `processing`, then `completed` or `failed`, both terminal. @useDeclaredType */
export type SubmissionStatus = Schemas["SubmissionStatus"];
/** Why a `failed` submission was rejected: its own kind of `code`, not a problem's. @interface */
export type SubmissionError = Schemas["SubmissionError"];
type SubmissionFields = Omit<Schemas["Submission"], "status" | "order" | "errors">;
/** A submission still at work, `queued` or `processing`. @interface */
export type PendingSubmission = SubmissionFields & {
  /** Not terminal yet: poll again (`submissions.wait()` does). */
  status: "queued" | "processing";
  /** Only a `completed` submission has an order. */
  order?: never;
  /** Only a `failed` submission has errors. */
  errors?: never;
};
/** A submission that created its order: terminal. @interface */
export type CompletedSubmission = SubmissionFields & {
  /** Terminal: the order exists. */
  status: "completed";
  /** The created order. */
  order: SubmittedOrder;
  /** Only a `failed` submission has errors. */
  errors?: never;
};
/** A rejected submission: fix `errors`, submit under a new `partnerOrderId`. @interface */
export type FailedSubmission = SubmissionFields & {
  /** Terminal: no order was created. */
  status: "failed";
  /** One entry per problem. */
  errors: SubmissionError[];
  /** Only a `completed` submission has an order. */
  order?: never;
};
/** An order submission, narrowed by `status`; a status added later reads as "still in progress". */
export type Submission = PendingSubmission | CompletedSubmission | FailedSubmission;

/** The body of POST /v1/orders; `partnerOrderId` is its idempotency key. @useDeclaredType */
export type OrderRequest = Schemas["OrderRequest"];
/**
 * One line of an {@link OrderRequest}; prices come from the catalog. @interface
 * @property quantity Positive whole number.
 * @property sku Up to 100 characters.
 * @property jobName Customer-facing job name, up to 200 characters.
 * @property artworkUrl Artwork location, up to 2000 characters.
 * @property templateVariables Up to 50 entries; keys up to 100 characters (not `__proto__`, `constructor` or `prototype`), values up to 2000.
 * @property shipTo This line's address, only when every line has one and the order has none; never with `email`.
 */
export type OrderLineRequest = Schemas["OrderLineRequest"];
/**
 * The order-level ship-to address. @interface
 * @property name Recipient name, up to 200 characters.
 * @property company Company, up to 200 characters.
 * @property address1 First address line, up to 200 characters.
 * @property address2 Second address line, up to 200 characters.
 * @property city City, up to 200 characters.
 * @property state State or region, up to 100 characters.
 * @property postalCode Postal code, up to 20 characters.
 * @property phone Phone number, up to 40 characters.
 * @property email Up to 254 characters; becomes the order's ship-notification address.
 */
export type ShipTo = Schemas["ShipTo"];
/**
 * A line-level ship-to address: a {@link ShipTo} without `email`. @interface
 * @property name Recipient name, up to 200 characters.
 * @property company Company, up to 200 characters.
 * @property address1 First address line, up to 200 characters.
 * @property address2 Second address line, up to 200 characters.
 * @property city City, up to 200 characters.
 * @property state State or region, up to 100 characters.
 * @property postalCode Postal code, up to 20 characters.
 * @property phone Phone number, up to 40 characters.
 */
export type LineShipTo = Schemas["LineShipTo"];

/** @internal The generated success body of an operation, money not yet converted. */
export type WireBody<K extends keyof operations> = operations[K]["responses"] extends {
  200: { content: { "application/json": infer Body } };
}
  ? Body
  : operations[K]["responses"] extends { 201: { content: { "application/json": infer Body } } }
    ? Body
    : never;

/** @internal Each operation's decoded success body (held to the spec by test/types/models.types.ts). */
export interface ResponseModels {
  ping: undefined;
  getMe: Principal;
  listSites: With<WireBody<"listSites">, { sites: Site[] }>;
  listOrders: With<WireBody<"listOrders">, { orders: Order[] }>;
  getOrder: Order;
  listOrderItems: With<WireBody<"listOrderItems">, { items: OrderItem[] }>;
  listOrderShipments: With<WireBody<"listOrderShipments">, { shipments: Shipment[] }>;
  submitOrder: Submission;
  listSubmissions: With<WireBody<"listSubmissions">, { submissions: Submission[] }>;
  getSubmission: Submission;
  listProducts: With<WireBody<"listProducts">, { products: Product[] }>;
  getProduct: ProductDetail;
  quoteProduct: Quote;
}
