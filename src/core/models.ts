import type { components, operations } from "../generated/openapi";
import type { Decimal } from "./decimal";

// Spec types, decimal fields as `Decimal`; field descriptions come from the spec.
type Schemas = components["schemas"];
type With<T, Changes> = Omit<T, keyof Changes> & Changes;

/** Order totals: each a `Decimal`, or `null` when not computed. Null is not zero. @interface */
export type OrderTotals = { [K in keyof Schemas["OrderTotals"]]: Decimal | null };
/**
 * An order (GET /v1/orders, GET /v1/orders/{orderNumber}). Unknown fields pass through. @interface
 */
export type Order = With<
  Schemas["Order"],
  {
    /** Item, shipping, tax and order totals, each exact or `null` when not computed. */
    totals: OrderTotals;
  }
>;
/** A line of an order (GET /v1/orders/{orderNumber}/items). @interface */
export type OrderItem = With<
  Schemas["OrderItem"],
  {
    /** Whole-line extended list amount before discounts and adjustments; not per-unit. */
    lineListTotal: Decimal | null;
    /** Whole-line final amount after discounts and adjustments; `null` means not priced. */
    lineTotal: Decimal | null;
  }
>;
/** A shipment of an order (GET /v1/orders/{orderNumber}/shipments). @interface */
export type Shipment = Schemas["Shipment"];
/** A package of a shipment: its `sequence` (an ordering hint) and carrier number. @interface */
export type Package = Schemas["Package"];
/**
 * A catalog entry, one per variant (GET /v1/products); prices come from a {@link Quote}. @interface
 */
export type Product = With<
  Schemas["Product"],
  {
    /** Per-unit weight; `null` for print-on-demand products. */
    weight: Decimal | null;
  }
>;
/** One variant of a {@link ProductDetail}, its fields as on {@link Product}. @interface */
export type ProductVariant = With<
  Schemas["ProductVariant"],
  {
    /** Per-unit weight; `null` for print-on-demand products. */
    weight: Decimal | null;
  }
>;
/** A product with all its variants (GET /v1/products/{productId}). @interface */
export type ProductDetail = With<
  Schemas["ProductDetail"],
  {
    /** Every variant of the product, with its inventory and quantity bounds. */
    variants: ProductVariant[];
  }
>;
/** A price quote for a product at a quantity (POST /v1/products/{productId}/quote). @interface */
export type Quote = With<
  Schemas["Quote"],
  {
    /** Site price after site markup and offering discount, never a customer's negotiated price. */
    totalPrice: Decimal;
  }
>;
/** A granted site (GET /v1/sites). A site that is not `live` is still listed. @interface */
export type Site = Schemas["Site"];
/** The credential's own description (GET /v1/me). @interface */
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
/** The order a `completed` submission created. @interface */
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
/** One line of an {@link OrderRequest}; prices come from the catalog. @interface */
export type OrderLineRequest = Schemas["OrderLineRequest"];
/** The order-level ship-to address. @interface */
export type ShipTo = Schemas["ShipTo"];
/** A line-level ship-to address: a {@link ShipTo} without `email`. @interface */
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
