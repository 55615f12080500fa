/** An order's shapes: as the mirror hands it out, as a store keeps it, and a store's query. */

import type { Order, OrderItem, Shipment } from "../core/models";

/** A stored order with its items and shipments, money as `Decimal`, null kept null. */
export interface MirroredOrder extends Order {
  /** The order's lines as last read, cancelled ones included. */
  items: OrderItem[];
  /** The order's shipments as last read, with tracking as the service derived it. */
  shipments: Shipment[];
  /** True while the service answers 404 for it (Errors rule 4: not proof it is gone). */
  unresolvable: boolean;
  /**
   * The partner's own id of the order, present once the mirror learnt it: from a webhook event
   * (events carry it for orders submitted through the API) or from a submission made through the
   * mirror's client. The service's `Order` has no such field.
   */
  partnerOrderId?: string;
}

/** An order's row as a store keeps it: JSON-ready values (money as decimal text). */
export interface StoredOrder {
  /** The order's number (the row's key). */
  orderNumber: number;
  /** The order's site. */
  siteId: number;
  /** The order as the service last answered it. */
  order: Record<string, unknown>;
  /** Null until first read. */
  items: Record<string, unknown>[] | null;
  /** Null until first read. */
  shipments: Record<string, unknown>[] | null;
  /** The order's `closed` as last read. */
  closed: boolean;
  /** The partner's id of the order, once learnt (from an event or a submission); never cleared. */
  partnerOrderId?: string;
  /** True while the service answers 404 for it. */
  unresolvable: boolean;
  /** Epoch ms when items and shipments are next due; null when only a webhook or refresh re-reads. */
  nextPollAt: number | null;
  /**
   * The sweep that last saw this order on the list. Stores keep the larger of the stored and the
   * written value: a read that began before the sweep marked the order must not unmark it.
   */
  seenInSweep: number;
}

/** What `orders()` asks a store for: its filters, checked, and the keyset position. */
export interface StoreOrderQuery {
  /** Orders of this site. */
  siteId?: number;
  /** Orders whose status is exactly this. */
  status?: string;
  /** Closed orders (true) or open ones (false). */
  closed?: boolean;
  /** Orders flagged unresolvable (true) or not (false). */
  unresolvable?: boolean;
  /** Orders whose `updatedOn` is at or after this time, as UTC ISO 8601 text with milliseconds. */
  updatedSince?: string;
  /** Orders with a line carrying this `externalId`. */
  externalId?: string;
  /** Orders whose partnerOrderId the mirror learnt as this. */
  partnerOrderId?: string;
  /** Orders numbered above this one. */
  after: number;
  /** At most this many. */
  limit: number;
}
