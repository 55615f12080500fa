import type { ChangeCause, Commit, NewChange, StoredOrder } from "./types";

type Row = Record<string, unknown>;

/** What one read of an order brought back; a part left out was not read this time. */
export interface Observation {
  orderNumber: number;
  cause: ChangeCause;
  observedAt: string;
  /** The order as the service answered it (JSON-ready), or "gone" for a 404 `order_not_found`. */
  order?: Row | "gone";
  /**
   * The row `GET /v1/orders` showed, when a sweep started this read. An order listed but answering
   * 404 for its items or shipments, and never stored, is stored as listed and flagged unresolvable.
   */
  listed?: Row;
  items?: Row[];
  shipments?: Row[];
  /** Epoch ms; the mirror's schedule for the order's next poll, computed by the caller. */
  nextPollAt: (closed: boolean, wasClosed: boolean | undefined) => number | null;
  sweep?: number;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Field names whose values differ, and the stored values of those fields. */
function fieldDiff(before: Row, after: Row, ignore: readonly string[] = []) {
  const fields: string[] = [];
  const previous: Row = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (ignore.includes(key) || same(before[key], after[key])) continue;
    fields.push(key);
    previous[key] = before[key] ?? null;
  }
  return { fields, previous };
}

const shipped = (s: Row) => s.shippedOn !== null && s.shippedOn !== undefined;
const tracking = (s: Row) =>
  Array.isArray(s.trackingNumbers) ? (s.trackingNumbers as string[]) : [];
/** What `shipment.shipped` already tells: the date and the tracking the shipment left with. */
const SHIPPING_FIELDS = ["shippedOn", "trackingNumbers", "packages", "manualTrackingNumber"];

/**
 * The heart of the mirror, a pure function: the stored row and what was just read give the new row
 * and every change between them, each kind reported once. Run by the store inside its transaction.
 */
export function decide(current: StoredOrder | undefined, seen: Observation): Commit | undefined {
  const base = { orderNumber: seen.orderNumber, observedAt: seen.observedAt, cause: seen.cause };
  const changes: NewChange[] = [];
  const push = (siteId: number, change: Record<string, unknown>) =>
    changes.push({ ...base, siteId, ...change } as NewChange);

  if (seen.order === "gone") {
    // Errors rule 4: a 404 is not proof the order is gone. Keep it, flag it once.
    if (current) {
      if (current.unresolvable) return undefined;
      push(current.siteId, { type: "order.unresolvable" });
      return { next: { ...current, unresolvable: true, nextPollAt: null }, changes };
    }
    // Listed, then 404 for its lines or shipments: the list row is the one answer it gave, so it is
    // stored and flagged, rather than an order the partner can see in the list going unmentioned.
    const listed = seen.listed;
    if (!listed) return undefined;
    const siteId = Number(listed.siteId);
    push(siteId, { type: "order.added", order: listed });
    push(siteId, { type: "order.unresolvable" });
    const next: StoredOrder = {
      orderNumber: seen.orderNumber,
      siteId,
      order: listed,
      items: null,
      shipments: null,
      closed: listed.closed === true,
      unresolvable: true,
      nextPollAt: null,
      seenInSweep: seen.sweep ?? 0,
    };
    return { next, changes };
  }

  const order = seen.order ?? current?.order;
  if (!order) return undefined; // items or shipments of an order never read: read it whole first
  const siteId = Number(order.siteId ?? current?.siteId);
  const closed = order.closed === true;

  if (current?.unresolvable) push(siteId, { type: "order.restored", order });
  if (seen.order) {
    if (!current) push(siteId, { type: "order.added", order });
    else {
      const { fields, previous } = fieldDiff(current.order, order);
      if (fields.length) push(siteId, { type: "order.changed", order, fields, previous });
    }
  }

  if (seen.items) diffItems(current?.items ?? null, seen.items, (c) => push(siteId, c));
  if (seen.shipments)
    diffShipments(current?.shipments ?? null, seen.shipments, (c) => push(siteId, c));

  const next: StoredOrder = {
    orderNumber: seen.orderNumber,
    siteId,
    order,
    items: seen.items ?? current?.items ?? null,
    shipments: seen.shipments ?? current?.shipments ?? null,
    closed,
    unresolvable: false,
    nextPollAt: seen.nextPollAt(closed, current?.closed),
    seenInSweep: seen.sweep ?? current?.seenInSweep ?? 0,
  };
  return { next, changes };
}

function diffItems(before: Row[] | null, after: Row[], push: (change: Row) => void) {
  const old = new Map((before ?? []).map((i) => [i.itemNumber, i]));
  for (const item of after) {
    const prior = old.get(item.itemNumber);
    if (!prior) push({ type: "item.added", item });
    // Like a shipment first seen shipped: a line first seen cancelled is reported cancelled too.
    if (item.cancelled === true && prior?.cancelled !== true)
      push({ type: "item.cancelled", item });
    if (!prior) continue;
    const { fields, previous } = fieldDiff(prior, item, ["cancelled"]);
    if (fields.length) push({ type: "item.changed", item, fields, previous });
  }
}

function diffShipments(before: Row[] | null, after: Row[], push: (change: Row) => void) {
  const old = new Map((before ?? []).map((s) => [s.shipmentNumber, s]));
  for (const shipment of after) {
    const prior = old.get(shipment.shipmentNumber);
    old.delete(shipment.shipmentNumber);
    if (!prior) push({ type: "shipment.added", shipment });
    const ignore: string[] = [];
    const wasShipped = prior ? shipped(prior) : false;
    if (shipped(shipment) && !wasShipped) {
      push({ type: "shipment.shipped", shipment, trackingNumbers: tracking(shipment) });
      // The shipping is reported once: its date and tracking travel in `shipment.shipped`.
      ignore.push(...SHIPPING_FIELDS);
    }
    // The Shipment invariant: shipped always has tracking. Reported when it starts being broken.
    const faulty = shipped(shipment) && tracking(shipment).length === 0;
    const wasFaulty = prior ? shipped(prior) && tracking(prior).length === 0 : false;
    if (faulty && !wasFaulty) push({ type: "shipment.tracking_fault", shipment });
    if (shipment.deliveredOn && !prior?.deliveredOn) {
      push({ type: "shipment.delivered", shipment });
      ignore.push("deliveredOn");
    }
    if (prior) {
      const { fields, previous } = fieldDiff(prior, shipment, ignore);
      if (fields.length) push({ type: "shipment.changed", shipment, fields, previous });
    }
  }
  for (const gone of old.values()) push({ type: "shipment.removed", shipment: gone });
}
