import type { Change, NewChange, StoredOrder } from "../types";
import { reviveItem, reviveOrder, reviveShipment } from "../values";
import { typedColumns } from "./order-columns";

/** JSON as a store gives it back: text (SQLite), or already parsed (`jsonb` through pg). */
type Json<T> = string | T;

/**
 * Rows as both stores keep them: one row per order (the order, its items and its shipments as JSON,
 * exact money inside, and typed columns beside it), an append-only changes table, checkpoints and
 * consumer positions.
 */
export interface OrderRow {
  order_number: number | string;
  site_id: number | string;
  data: Json<Record<string, unknown>>;
  items: Json<Record<string, unknown>[]> | null;
  shipments: Json<Record<string, unknown>[]> | null;
  closed: number | boolean;
  unresolvable: number | boolean;
  next_poll_at: number | string | null;
  seen_in_sweep: number | string;
  partner_order_id?: string | null;
}

export interface ChangeRow {
  id: number | string;
  type: string;
  order_number: number | string;
  site_id: number | string;
  observed_at: string;
  cause: string;
  payload: Json<Record<string, unknown>>;
  snapshot: number | boolean;
}

/** A JSON column's value: parsed when the driver gave text. */
function parsed<T>(value: Json<T>): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/**
 * The values of an order's row in column order: the nine of version 2, then the typed columns of
 * version 3 (`TYPED_ORDER_COLUMNS`).
 */
export function orderToRow(order: StoredOrder): unknown[] {
  return [
    order.orderNumber,
    order.siteId,
    JSON.stringify(order.order),
    order.items === null ? null : JSON.stringify(order.items),
    order.shipments === null ? null : JSON.stringify(order.shipments),
    order.closed,
    order.unresolvable,
    order.nextPollAt,
    order.seenInSweep,
    ...typedColumns(order),
  ];
}

export function rowToOrder(row: OrderRow): StoredOrder {
  const order: StoredOrder = {
    orderNumber: Number(row.order_number),
    siteId: Number(row.site_id),
    order: parsed(row.data),
    items: row.items === null ? null : parsed(row.items),
    shipments: row.shipments === null ? null : parsed(row.shipments),
    closed: Boolean(row.closed),
    unresolvable: Boolean(row.unresolvable),
    nextPollAt: row.next_poll_at === null ? null : Number(row.next_poll_at),
    seenInSweep: Number(row.seen_in_sweep),
  };
  // Present only once learnt, like the field of the order `get()` gives.
  if (typeof row.partner_order_id === "string") order.partnerOrderId = row.partner_order_id;
  return order;
}

/** The columns of a change, its payload being everything but the common fields. */
export function changeToRow(change: NewChange): unknown[] {
  const { type, orderNumber, siteId, observedAt, cause } = change;
  return [type, orderNumber, siteId, observedAt, cause, JSON.stringify(changePayload(change))];
}

/** A change's payload: everything but the columns of its own. */
export function changePayload(change: NewChange): Record<string, unknown> {
  const { type, orderNumber, siteId, observedAt, cause, snapshot, ...payload } =
    change as NewChange & Record<string, unknown>;
  return payload;
}

/**
 * Whether a change belongs to the snapshot while the first complete sweep has not ended: only what
 * the sweep itself wrote does (webhooks, polls and refreshes meanwhile report live changes).
 */
export function snapshotCandidate(change: NewChange): boolean {
  return change.cause === "sweep";
}

export function rowToChange(row: ChangeRow): Change {
  const payload = { ...parsed(row.payload) };
  if (payload.order) payload.order = reviveOrder(payload.order as Record<string, unknown>);
  if (payload.item) payload.item = reviveItem(payload.item as Record<string, unknown>);
  if (payload.shipment)
    payload.shipment = reviveShipment(payload.shipment as Record<string, unknown>);
  return {
    id: Number(row.id),
    type: row.type,
    orderNumber: Number(row.order_number),
    siteId: Number(row.site_id),
    observedAt: row.observed_at,
    cause: row.cause,
    snapshot: Boolean(row.snapshot),
    ...payload,
  } as Change;
}
