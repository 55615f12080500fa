/** The changes the mirror records, as consumers read them (a leaf: imports only the models). */

import type { Order, OrderItem, Shipment } from "../core/models";

/**
 * What made the mirror read an order: a sweep of the list, an open-order poll, a webhook,
 * `refresh()`, or `resync()` (every order re-read).
 */
export type ChangeCause = "sweep" | "poll" | "webhook" | "refresh" | "resync";

/** Fields every {@link Change} carries. */
export interface ChangeBase {
  /** Increasing: a later change has a larger id. Dedupe by it. */
  id: number;
  /** The order the change belongs to. */
  orderNumber: number;
  /** The order's site. */
  siteId: number;
  /** When the mirror saw the difference (ISO 8601, the mirror's clock). */
  observedAt: string;
  /** What made the mirror read the order: `sweep`, `poll`, `webhook`, `refresh` or `resync`. */
  cause: ChangeCause;
  /**
   * True for what the store's first complete pass over its account wrote (the backfill: every
   * order as first found by the first sweep that reached the end of the list); false for
   * everything after, and for what webhooks, polls and `refresh()` found meanwhile.
   */
  snapshot: boolean;
}

/**
 * Where a consumer seen for the first time starts: `beginning` at the oldest change kept, `now`
 * after the newest change. A consumer with a stored position always goes on from it.
 */
export type ChangesFrom = "beginning" | "now";

/** A field-level difference: which fields moved, and what they were before. */
export interface FieldChanges {
  /** The names of the fields whose values differ from the stored ones. */
  fields: string[];
  /** The stored values of those fields before this change (money as exact decimal text). */
  previous: Record<string, unknown>;
}

/**
 * One difference the mirror recorded, written in the same transaction as the new state, so none is
 * lost or invented by a crash. Values are the service's as sent; nothing is re-derived.
 */
export type Change = ChangeBase &
  (
    | {
        /** A new order. */
        type: "order.added";
        /** The order as read. */
        order: Order;
      }
    | ({
        /** Fields of the order differ from the stored ones. */
        type: "order.changed";
        /** The order as read. */
        order: Order;
      } & FieldChanges)
    | {
        /** A new line. */
        type: "item.added";
        /** The line as read. */
        item: OrderItem;
      }
    | ({
        /** Fields of a line differ (its quantity, totals...). */
        type: "item.changed";
        /** The line as read. */
        item: OrderItem;
      } & FieldChanges)
    | {
        /** A line became cancelled (it stays listed). */
        type: "item.cancelled";
        /** The line as read. */
        item: OrderItem;
      }
    | {
        /** A new shipment. */
        type: "shipment.added";
        /** The shipment as read. */
        shipment: Shipment;
      }
    | ({
        /** Fields of a shipment differ (its service, tracking, dates...). */
        type: "shipment.changed";
        /** The shipment as read. */
        shipment: Shipment;
      } & FieldChanges)
    | {
        /** A shipment shipped (its shippedOn was set). */
        type: "shipment.shipped";
        /** The shipment as read. */
        shipment: Shipment;
        /** Its `trackingNumbers` as the service sent them (empty: see `shipment.tracking_fault`). */
        trackingNumbers: string[];
      }
    | {
        /** The carrier reported delivery. */
        type: "shipment.delivered";
        /** The shipment as read. */
        shipment: Shipment;
      }
    | {
        /** A shipment left the list (cancelled). */
        type: "shipment.removed";
        /** The shipment as last stored. */
        shipment: Shipment;
      }
    | {
        /** Shipped with no tracking: the API document's data fault, reported, never re-derived. */
        type: "shipment.tracking_fault";
        /** The shipment as read. */
        shipment: Shipment;
      }
    | {
        /** A stored order now answers 404: kept and flagged, never deleted or marked cancelled. */
        type: "order.unresolvable";
      }
    | {
        /** An order that answered 404 answers again (it is no longer flagged unresolvable). */
        type: "order.restored";
        /** The order as read. */
        order: Order;
      }
  );

/** The `type` of a {@link Change}. */
export type ChangeType = Change["type"];

/**
 * A change before the store gives it its id and decides whether it belongs to the snapshot (a
 * `sweep` change written before the first complete sweep ended).
 */
export type NewChange = Omit<Change, "id" | "snapshot"> extends infer C ? C : never;
