import type { components } from "../generated/openapi";
import type { Decimal } from "./money";

/**
 * The models partners read, derived from the generated spec types with every decimal field mapped
 * to `Decimal` (or `Decimal | null` where the API document allows null). Field names, optionality
 * and documentation come from spec/openapi.yaml; nothing here is typed twice.
 */
type Schemas = components["schemas"];
type With<T, Changes> = Omit<T, keyof Changes> & Changes;

/** Order totals: each a `Decimal`, or `null` when not computed. Null is not zero. */
export type OrderTotals = { [K in keyof Schemas["OrderTotals"]]: Decimal | null };
export type Order = With<Schemas["Order"], { totals: OrderTotals }>;
export type OrderItem = With<
  Schemas["OrderItem"],
  { lineListTotal: Decimal | null; lineTotal: Decimal | null }
>;
export type Shipment = Schemas["Shipment"];
export type Package = Schemas["Package"];
export type Product = With<Schemas["Product"], { weight: Decimal | null }>;
export type ProductVariant = With<Schemas["ProductVariant"], { weight: Decimal | null }>;
export type ProductDetail = With<Schemas["ProductDetail"], { variants: ProductVariant[] }>;
export type Quote = With<Schemas["Quote"], { totalPrice: Decimal }>;
export type Site = Schemas["Site"];
export type Principal = Schemas["Principal"];

/** A line of a completed submission: whole-line amounts, never per-unit prices. */
export type SubmittedOrderLine = With<
  Schemas["SubmittedOrderLine"],
  { lineListTotal: Decimal; lineTotalBeforeAdjustments: Decimal }
>;
export type SubmittedOrder = With<
  Schemas["SubmittedOrder"],
  { totalPrice: Decimal; lines: SubmittedOrderLine[] }
>;
export type SubmissionStatus = Schemas["SubmissionStatus"];
export type SubmissionError = Schemas["SubmissionError"];
export type Submission = With<Schemas["Submission"], { order?: SubmittedOrder }>;

export type OrderRequest = Schemas["OrderRequest"];
export type OrderLineRequest = Schemas["OrderLineRequest"];
export type ShipTo = Schemas["ShipTo"];
export type LineShipTo = Schemas["LineShipTo"];
