import type { Change, NewChange, StoredOrder } from "../types";
import { reviveItem, reviveOrder, reviveShipment } from "../values";

/**
 * Rows as both stores keep them: one row per order (the order, its items and its shipments as JSON
 * text, exact money inside), an append-only changes table, checkpoints and consumer positions.
 */
export interface OrderRow {
  order_number: number | string;
  site_id: number | string;
  data: string;
  items: string | null;
  shipments: string | null;
  closed: number | boolean;
  unresolvable: number | boolean;
  next_poll_at: number | string | null;
  seen_in_sweep: number | string;
}

export interface ChangeRow {
  id: number | string;
  type: string;
  order_number: number | string;
  site_id: number | string;
  observed_at: string;
  cause: string;
  payload: string;
  snapshot: number | boolean;
}

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
  ];
}

export function rowToOrder(row: OrderRow): StoredOrder {
  return {
    orderNumber: Number(row.order_number),
    siteId: Number(row.site_id),
    order: JSON.parse(row.data),
    items: row.items === null ? null : JSON.parse(row.items),
    shipments: row.shipments === null ? null : JSON.parse(row.shipments),
    closed: Boolean(row.closed),
    unresolvable: Boolean(row.unresolvable),
    nextPollAt: row.next_poll_at === null ? null : Number(row.next_poll_at),
    seenInSweep: Number(row.seen_in_sweep),
  };
}

/** The columns of a change, its payload being everything but the common fields. */
export function changeToRow(change: NewChange): unknown[] {
  const { type, orderNumber, siteId, observedAt, cause, snapshot, ...payload } =
    change as NewChange & Record<string, unknown>;
  return [type, orderNumber, siteId, observedAt, cause, JSON.stringify(payload)];
}

/**
 * Whether a change belongs to the snapshot while the first complete sweep has not ended: only what
 * the sweep itself wrote does (webhooks, polls and refreshes meanwhile report live changes).
 */
export function snapshotCandidate(change: NewChange): boolean {
  return change.cause === "sweep";
}

export function rowToChange(row: ChangeRow): Change {
  const payload = JSON.parse(row.payload) as Record<string, unknown>;
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
