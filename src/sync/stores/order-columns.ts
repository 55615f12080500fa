import { MirrorError } from "../errors";
import type { StoredOrder, StoreOrderQuery } from "../types";

/**
 * Schema version 3's part for orders: typed columns partners filter on (and query in SQL), beside
 * the order's JSON, and the table of the external ids its lines carry. Both stores fill them from
 * the same functions, on every write and once from the stored JSON when they migrate.
 */

type Row = Record<string, unknown>;

/** The typed columns of an order's row, in the order the stores' upserts bind them. */
export const TYPED_ORDER_COLUMNS = ["status", "updated_on", "total", "partner_order_id"] as const;

/** A decimal as the service writes money: digits, an optional fraction, never an exponent. */
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** An ISO 8601 date-time as the service writes them (a date first). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/**
 * The typed values of an order's row: its status, `updatedOn` as UTC ISO text, its total as the
 * exact decimal text the service sent (never a float), and the partnerOrderId when learnt. A value
 * the service sent in another shape is left null here; the JSON keeps it as sent.
 */
export function typedColumns(order: StoredOrder): (string | null)[] {
  const data = order.order;
  const totals = data.totals as Row | null | undefined;
  const total = typeof totals === "object" && totals !== null ? totals.order : undefined;
  return [
    typeof data.status === "string" ? data.status : null,
    isoTime(data.updatedOn),
    typeof total === "string" && DECIMAL.test(total) ? total : null,
    order.partnerOrderId ?? null,
  ];
}

/** A date-time as UTC ISO text with milliseconds, so that text order is time order; else null. */
export function isoTime(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== "string" || !ISO_DATE.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The distinct external ids of an order's lines, sorted (lines without one left out). */
export function externalIdsOf(items: readonly Row[] | null | undefined): string[] {
  const ids = new Set<string>();
  for (const item of items ?? []) {
    if (typeof item?.externalId === "string") ids.add(item.externalId);
  }
  return [...ids].sort();
}

/** True when the two item lists carry different sets of external ids. */
export function externalIdsMoved(
  before: readonly Row[] | null | undefined,
  after: readonly Row[] | null | undefined,
): boolean {
  const a = externalIdsOf(before);
  const b = externalIdsOf(after);
  return a.length !== b.length || a.some((id, i) => id !== b[i]);
}

/** Version 2 to 3 on SQLite: the typed columns, the external ids table and the filters' indexes. */
export function orderColumnsV3Sqlite(): string {
  return `
ALTER TABLE po_orders ADD COLUMN status TEXT;
ALTER TABLE po_orders ADD COLUMN updated_on TEXT;
ALTER TABLE po_orders ADD COLUMN total TEXT;
ALTER TABLE po_orders ADD COLUMN partner_order_id TEXT;
CREATE TABLE po_external_ids (
  external_id TEXT NOT NULL,
  order_number INTEGER NOT NULL,
  PRIMARY KEY (external_id, order_number)
) WITHOUT ROWID;
CREATE INDEX po_external_ids_order ON po_external_ids (order_number);
CREATE INDEX po_orders_site ON po_orders (site_id, order_number);
CREATE INDEX po_orders_status ON po_orders (status, order_number);
CREATE INDEX po_orders_updated ON po_orders (updated_on);
CREATE INDEX po_orders_partner_order ON po_orders (partner_order_id);
CREATE INDEX po_orders_open ON po_orders (order_number) WHERE closed = 0;`;
}

/**
 * Version 2 to 3 on PostgreSQL: the same, with the payloads as `jsonb`, the total as NUMERIC (exact,
 * its scale kept) and `updated_on` as `timestamptz`.
 */
export function orderColumnsV3Postgres(t: Record<"orders" | "changes" | "externalIds", string>) {
  return `
ALTER TABLE ${t.orders}
  ALTER COLUMN data TYPE jsonb USING data::jsonb,
  ALTER COLUMN items TYPE jsonb USING items::jsonb,
  ALTER COLUMN shipments TYPE jsonb USING shipments::jsonb,
  ADD COLUMN status TEXT,
  ADD COLUMN updated_on TIMESTAMPTZ,
  ADD COLUMN total NUMERIC,
  ADD COLUMN partner_order_id TEXT;
ALTER TABLE ${t.changes} ALTER COLUMN payload TYPE jsonb USING payload::jsonb;
CREATE TABLE ${t.externalIds} (
  external_id TEXT NOT NULL,
  order_number BIGINT NOT NULL,
  PRIMARY KEY (external_id, order_number)
);
CREATE INDEX po_external_ids_order ON ${t.externalIds} (order_number);
CREATE INDEX po_orders_site ON ${t.orders} (site_id, order_number);
CREATE INDEX po_orders_status ON ${t.orders} (status, order_number);
CREATE INDEX po_orders_updated ON ${t.orders} (updated_on);
CREATE INDEX po_orders_partner_order ON ${t.orders} (partner_order_id);
CREATE INDEX po_orders_open ON ${t.orders} (order_number) WHERE NOT closed;`;
}

/**
 * The WHERE clause and its values for a query, with `param(i)` naming the i-th value (`?` on
 * SQLite, `$i` on PostgreSQL) and `bool` writing a boolean as the store's SQL literal.
 */
export function orderFilter(
  query: StoreOrderQuery,
  externalIdsTable: string,
  param: (index: number) => string,
  bool: (value: boolean) => string,
): { where: string; values: unknown[] } {
  const values: unknown[] = [];
  const clauses: string[] = [];
  const add = (clause: (p: string) => string, value: unknown) => {
    values.push(value);
    clauses.push(clause(param(values.length)));
  };
  add((p) => `o.order_number > ${p}`, query.after);
  if (query.siteId !== undefined) add((p) => `o.site_id = ${p}`, query.siteId);
  if (query.status !== undefined) add((p) => `o.status = ${p}`, query.status);
  // Booleans as literals, not parameters: the planner can use the partial index of open orders
  // only when the statement itself says `closed` is false.
  if (query.closed !== undefined) clauses.push(`o.closed = ${bool(query.closed)}`);
  if (query.unresolvable !== undefined)
    clauses.push(`o.unresolvable = ${bool(query.unresolvable)}`);
  if (query.updatedSince !== undefined) add((p) => `o.updated_on >= ${p}`, query.updatedSince);
  if (query.partnerOrderId !== undefined)
    add((p) => `o.partner_order_id = ${p}`, query.partnerOrderId);
  if (query.externalId !== undefined)
    add(
      (p) =>
        // The ids' key leads with external_id: one index range, then the orders by their key.
        `o.order_number IN (SELECT e.order_number FROM ${externalIdsTable} e WHERE e.external_id = ${p})`,
      query.externalId,
    );
  return { where: clauses.join(" AND "), values };
}

/** Checks the options of `orders()` into a store query; a bad one is a typed error, never a crash. */
export function checkOrderQuery(options: unknown): Omit<StoreOrderQuery, "after" | "limit"> & {
  limit: number;
} {
  if (options === undefined) return { limit: Number.POSITIVE_INFINITY };
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw invalidQuery("the options must be an object");
  const o = options as Record<string, unknown>;
  const known = new Set([
    "siteId",
    "status",
    "closed",
    "unresolvable",
    "updatedSince",
    "externalId",
    "partnerOrderId",
    "limit",
  ]);
  const unknown = Object.keys(o).find((key) => !known.has(key) && o[key] !== undefined);
  if (unknown !== undefined) throw invalidQuery(`it has no option ${unknown.slice(0, 40)}`);
  const query: Omit<StoreOrderQuery, "after" | "limit"> & { limit: number } = {
    limit: Number.POSITIVE_INFINITY,
  };
  if (o.siteId !== undefined) {
    if (!isWhole(o.siteId)) throw invalidQuery("siteId must be a positive whole number");
    query.siteId = o.siteId;
  }
  for (const key of ["status", "externalId", "partnerOrderId"] as const) {
    if (o[key] === undefined) continue;
    if (typeof o[key] !== "string") throw invalidQuery(`${key} must be a string`);
    query[key] = o[key] as string;
  }
  for (const key of ["closed", "unresolvable"] as const) {
    if (o[key] === undefined) continue;
    if (typeof o[key] !== "boolean") throw invalidQuery(`${key} must be true or false`);
    query[key] = o[key] as boolean;
  }
  if (o.updatedSince !== undefined) {
    const since = isoTime(o.updatedSince);
    if (since === null)
      throw invalidQuery("updatedSince must be a Date or an ISO 8601 date-time text");
    query.updatedSince = since;
  }
  if (o.limit !== undefined) {
    if (!isWhole(o.limit)) throw invalidQuery("limit must be a positive whole number");
    query.limit = o.limit;
  }
  return query;
}

const isWhole = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) > 0;

function invalidQuery(what: string): MirrorError {
  return new MirrorError("invalid_query", `orders(): ${what}.`, {
    hint: "See OrderQuery in the API reference for the filters and their types.",
  });
}
