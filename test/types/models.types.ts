/**
 * Compile-time checks, run by `npm run typecheck`, that tie three generated sources together:
 * the spec's types (src/generated/openapi.d.ts), its money table (src/generated/money.ts) and its
 * routes (src/generated/routes.ts), with the models the client decodes into (src/core/models.ts).
 *
 * For every operation the client sends, its decoded model has exactly the fields of the generated
 * success body, and a `Decimal` at exactly the paths the money table converts: a spec change that
 * adds, renames, moves or drops a field or a money field breaks the type check until the models
 * follow. The three broken models at the end show the check tells them apart.
 */

import type { ApiOperationId } from "../../src/core/http/operation";
import type { Order, ResponseModels, WireBody } from "../../src/core/models";
import type { Decimal } from "../../src/core/money";
import type { decimalFields } from "../../src/generated/money";
import type { components, operations, paths } from "../../src/generated/openapi";
import type { routes } from "../../src/generated/routes";

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2
  ? true
  : false;
type Join<P extends string, K extends string> = P extends "" ? K : `${P}.${K}`;

/** Every field as a dotted path (`orders[].totals.item`), a `Decimal` counting as one field. */
type FieldPaths<T, P extends string = ""> = T extends Decimal
  ? never
  : T extends readonly (infer U)[]
    ? FieldPaths<U, `${P}[]`>
    : T extends object
      ? {
          [K in keyof T & string]-?: Join<P, K> | FieldPaths<NonNullable<T[K]>, Join<P, K>>;
        }[keyof T & string]
      : never;

/** The dotted paths of the `Decimal` fields, in the money table's notation. */
type DecimalPaths<T, P extends string = ""> = T extends Decimal
  ? P
  : T extends readonly (infer U)[]
    ? DecimalPaths<U, `${P}[]`>
    : T extends object
      ? { [K in keyof T & string]-?: DecimalPaths<T[K], Join<P, K>> }[keyof T & string]
      : never;

/** The paths the money table converts for operation K (none when it has no entry). */
type TablePaths<K> = K extends keyof typeof decimalFields
  ? (typeof decimalFields)[K][number][0]
  : never;

/** A model fits operation K: the generated body's fields, with money exactly where the table says. */
type Fits<Model, Wire, Money> = [
  Equal<FieldPaths<Model>, FieldPaths<Wire>>,
  Equal<DecimalPaths<Model>, Money>,
] extends [true, true]
  ? true
  : false;
type FitsOperation<K extends keyof ResponseModels & keyof operations, Model> = Fits<
  Model,
  WireBody<K>,
  TablePaths<K>
>;

/** The route the client takes for K is the path and method whose generated operation is K. */
type Routed<K extends keyof typeof routes> = Equal<
  paths[(typeof routes)[K]["path"]][(typeof routes)[K]["method"]],
  operations[K]
>;

/** Names of the operations whose model does not fit; `never` when all do. */
type Misfits = {
  [K in Exclude<ApiOperationId, "ping">]: FitsOperation<K, ResponseModels[K]> extends true ? never : K;
}[Exclude<ApiOperationId, "ping">];
type Misrouted = {
  [K in keyof typeof routes]: Routed<K> extends true ? never : K;
}[keyof typeof routes];

export const everyModelFits: Equal<Misfits, never> = true;
export const everyRouteIsTheSpecs: Equal<Misrouted, never> = true;
/** Every operation the client sends has a model, and every model an operation. */
export const oneModelPerOperation: Equal<keyof ResponseModels, ApiOperationId> = true;
/** Money in every decoded body the table names (the ping's body is never read). */
export const pingBodyUnread: Equal<ResponseModels["ping"], undefined> = true;

// Broken models the check refuses: totals left as the wire's text, a field the spec does not have,
// and a money field the table does not convert.
type Schemas = components["schemas"];
export const textTotalsRefused: FitsOperation<"getOrder", Omit<Order, "totals"> & Pick<Schemas["Order"], "totals">> =
  false;
export const extraFieldRefused: FitsOperation<"getOrder", Order & { placedBy: string }> = false;
export const extraMoneyRefused: FitsOperation<"getOrder", Omit<Order, "siteId"> & { siteId: Decimal }> = false;
