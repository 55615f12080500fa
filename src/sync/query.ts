import type { OrderItem, Shipment } from "../core/models";
import { checkOrderQuery } from "./stores/order-columns";
import type { MirroredOrder, MirrorStore, StoredOrder } from "./types";
import { reviveItem, reviveOrder, reviveShipment } from "./values";

/**
 * Filters of {@link OrderMirror.orders}, each on a typed, indexed column of the store; every filter
 * given must match. Orders come by order number, ascending.
 */
export interface OrderQuery {
  /** Only orders of this site. */
  siteId?: number;
  /** Only orders whose `status` is exactly this (the service's text, case included). */
  status?: string;
  /** Only closed orders (`true`) or only open ones (`false`). */
  closed?: boolean;
  /** Only orders the service answers 404 for (`true`), or only the others (`false`). */
  unresolvable?: boolean;
  /**
   * Only orders whose `updatedOn` is at or after this time (a `Date`, or ISO 8601 text). The
   * service's `updatedOn` does not move for shipments, tracking or quantities: for "what changed",
   * read `changes()`.
   */
  updatedSince?: Date | string;
  /** Only orders with a line whose `externalId` is exactly this. */
  externalId?: string;
  /**
   * Only orders whose partnerOrderId the mirror learnt as this (from a webhook event, or a
   * submission through the mirror's client).
   */
  partnerOrderId?: string;
  /**
   * At most this many orders.
   * @default no limit: every matching order
   */
  limit?: number;
}

/** Orders read from the store per query: one page of the keyset. */
const PAGE = 200;

/** A stored row as `get()` and `orders()` give it: money as `Decimal`, null kept null. */
export function mirrored(row: StoredOrder): MirroredOrder {
  const order = {
    ...reviveOrder(row.order),
    items: (row.items ?? []).map((item) => reviveItem<OrderItem>(item)),
    shipments: (row.shipments ?? []).map((shipment) => reviveShipment<Shipment>(shipment)),
    unresolvable: row.unresolvable,
  } as MirroredOrder;
  if (row.partnerOrderId !== undefined) order.partnerOrderId = row.partnerOrderId;
  return order;
}

/**
 * The stored orders matching `options`, a page at a time, each page the orders numbered above the
 * last one yielded (a keyset: an order written meanwhile is neither yielded twice nor skipped over
 * for the others). Bad options are refused before the first read.
 */
export async function* queryOrders(
  store: MirrorStore,
  options: OrderQuery | undefined,
  opened: () => Promise<void>,
): AsyncGenerator<MirroredOrder, void, undefined> {
  const { limit, ...filters } = checkOrderQuery(options);
  await opened();
  let after = 0;
  let left = limit;
  while (left > 0) {
    const size = Math.min(PAGE, left);
    const page = await store.orders({ ...filters, after, limit: size });
    for (const row of page) yield mirrored(row);
    left -= page.length;
    const last = page[page.length - 1];
    if (!last || page.length < size) return;
    after = last.orderNumber;
  }
}
