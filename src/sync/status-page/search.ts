import type { OrderQuery } from "../query";
import type { Change, MirroredOrder } from "../types";

/** What the search reads of a mirror: `get()` and `orders()`. */
export interface SearchableMirror {
  get(orderNumber: number): Promise<MirroredOrder | undefined>;
  orders(query?: OrderQuery): AsyncIterable<MirroredOrder>;
}

/** One stored order as the search shows it: text and numbers only, never a secret. */
export interface OrderRow {
  orderNumber: number;
  siteId: number | null;
  status: string | null;
  partnerOrderId: string | null;
  projectName: string | null;
  closed: boolean | null;
  unresolvable: boolean;
  updatedOn: string | null;
  total: string | null;
}

/** Orders a search answers with at most. */
export const SEARCH_LIMIT = 50;
/** Longer queries are refused: no order number, id or status is this long. */
export const QUERY_MAX = 200;

/**
 * Stored orders whose number, partnerOrderId or status is exactly `q`, by order number, at most
 * {@link SEARCH_LIMIT}; `more` when others match too. Every lookup is an indexed one.
 */
export async function searchOrders(
  mirror: SearchableMirror,
  q: string,
): Promise<{ orders: OrderRow[]; more: boolean }> {
  const found = new Map<number, MirroredOrder>();
  if (/^\d{1,15}$/.test(q)) {
    const order = await mirror.get(Number(q));
    if (order) found.set(order.orderNumber, order);
  }
  for (const query of [{ partnerOrderId: q }, { status: q }] satisfies OrderQuery[]) {
    for await (const order of mirror.orders({ ...query, limit: SEARCH_LIMIT + 1 })) {
      found.set(order.orderNumber, order);
    }
  }
  const orders = [...found.values()].sort((a, b) => a.orderNumber - b.orderNumber);
  return { orders: orders.slice(0, SEARCH_LIMIT).map(rowOf), more: orders.length > SEARCH_LIMIT };
}

function rowOf(order: MirroredOrder): OrderRow {
  // The service's rows are decoded leniently: a field it left out is shown as empty, not dropped.
  return {
    orderNumber: order.orderNumber,
    siteId: order.siteId ?? null,
    status: order.status ?? null,
    partnerOrderId: order.partnerOrderId ?? null,
    projectName: order.projectName ?? null,
    closed: order.closed ?? null,
    unresolvable: order.unresolvable,
    updatedOn: order.updatedOn ?? null,
    total: order.totals?.order?.toString() ?? null,
  };
}

/** A change as the live list shows it: its id, type, time and one line of text. */
export interface ChangeLine {
  id: number;
  type: string;
  observedAt: string;
  text: string;
}

/** One line per change: the order, the cause, the fields that moved, the order's status now. */
export function changeLine(change: Change): ChangeLine {
  const parts = [`order ${change.orderNumber}, site ${change.siteId}, ${change.cause}`];
  if ("fields" in change) parts.push(`fields: ${change.fields.join(", ")}`);
  if ("order" in change) parts.push(`status: ${change.order.status}`);
  if (change.type === "shipment.shipped") {
    parts.push(`tracking: ${change.trackingNumbers.join(", ") || "none"}`);
  }
  if (change.snapshot) parts.push("snapshot");
  return {
    id: change.id,
    type: change.type,
    observedAt: change.observedAt,
    text: parts.join("; "),
  };
}
