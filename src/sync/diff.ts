import { PartnerOrdersError } from "../core/errors";
import type { ChangeCause, Commit, NewChange, StoredOrder } from "./types";

type Row = Record<string, unknown>;

/** The order as a read leaves it, for choosing its next poll. */
export interface ReadOutcome {
  /** The order as stored after the read. */
  order: Row;
  /** Its shipments as stored after the read (null when never read). */
  shipments: Row[] | null;
  /** True when the read recorded a change. */
  changed: boolean;
}

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
  /** Anything but a list of rows counts as not read: the stored lines are kept. */
  items?: Row[];
  /** Anything but a list of rows counts as not read: the stored shipments are kept. */
  shipments?: Row[];
  /**
   * Epoch ms; the mirror's schedule for the order's next poll, computed by the caller from whether
   * it is closed (and was), the row as it will be stored and whether this read changed anything.
   */
  nextPollAt: (
    closed: boolean,
    wasClosed: boolean | undefined,
    after: ReadOutcome,
  ) => number | null;
  sweep?: number;
  /** The partner's id of the order, when the mirror learnt it (an event, a submission). */
  partnerOrderId?: string;
}

/**
 * Equal as JSON values, whatever the order of an object's keys: PostgreSQL's `jsonb` gives keys
 * back in its own order, and a reordered row is not a change (nor a reason to re-read an order).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isObject(a) || !isObject(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
}

const isObject = (value: unknown): value is Row => typeof value === "object" && value !== null;
const isRow = (value: unknown): value is Row => isObject(value) && !Array.isArray(value);
const rowsOf = (value: unknown): Row[] | undefined =>
  Array.isArray(value) && value.every(isRow) ? value : undefined;

/**
 * Field names whose values differ, and the stored values of those fields (null when absent);
 * `toldBy` leaves out fields another change of the same read already tells.
 */
function fieldDiff(before: Row, after: Row, toldBy?: (field: string) => boolean) {
  const fields: string[] = [];
  const previous: Row = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (toldBy?.(key) || sameJson(before[key], after[key])) continue;
    fields.push(key);
    previous[key] = before[key] ?? null;
  }
  return { fields, previous };
}

/**
 * Pairs each row read with a stored row of the same number. Several rows with one number (or with
 * none) are paired in list order, so none is compared twice or lost; `unpaired` gives the stored
 * rows no read row took, in stored order.
 */
function pairing(before: Row[], key: string) {
  const free = new Map<unknown, Row[]>();
  for (const row of before) free.set(row[key], [...(free.get(row[key]) ?? []), row]);
  return {
    pair: (row: Row): Row | undefined => free.get(row[key])?.shift(),
    unpaired: () => before.filter((row) => (free.get(row[key]) as Row[]).includes(row)),
  };
}

/** The site the row is filed under: the order's own, else the stored one; never NaN. */
function siteOf(order: Row, current: StoredOrder | undefined, orderNumber: number): number {
  if (Number.isSafeInteger(order.siteId)) return order.siteId as number;
  if (current) return current.siteId;
  throw new PartnerOrdersError(
    `Order ${orderNumber} was read without a whole-number siteId, so it is not stored; it is read again on the next sweep.`,
  );
}

const shipped = (s: Row) => s.shippedOn !== null && s.shippedOn !== undefined;
const tracking = (s: Row) =>
  Array.isArray(s.trackingNumbers) ? (s.trackingNumbers as string[]) : [];
/** What `shipment.shipped` already tells: the date and the tracking the shipment left with. */
const SHIPPING_FIELDS = ["shippedOn", "trackingNumbers", "packages", "manualTrackingNumber"];

/**
 * The heart of the mirror, a pure function: the stored row and what was just read give the new row
 * and every change between them, each kind reported once. Run by the store inside its transaction.
 * Undefined when there is nothing to write.
 *
 * @throws {PartnerOrdersError} when an order to store carries no usable `siteId` (nothing stored).
 */
export function decide(current: StoredOrder | undefined, seen: Observation): Commit | undefined {
  const { orderNumber, observedAt, cause } = seen;
  const changes: NewChange[] = [];
  // The common fields first, then the change's own, in that order (its payload's text follows it).
  // Assigned onto a fresh literal: a second spread into one literal cost V8 a slow copy per change.
  const push = (siteId: number, change: Row) =>
    changes.push(Object.assign({ orderNumber, observedAt, cause, siteId }, change) as NewChange);

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
    if (!isRow(listed)) return undefined;
    const siteId = siteOf(listed, undefined, seen.orderNumber);
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
      ...partnerOrderIdOf(seen, undefined),
    };
    return { next, changes };
  }

  const read = isRow(seen.order) ? seen.order : undefined;
  const items = rowsOf(seen.items);
  const shipments = rowsOf(seen.shipments);
  // A read that brought nothing back is no news, and no proof that a flagged order answers again.
  if (!read && !items && !shipments) return undefined;
  const order = read ?? current?.order;
  if (!order) return undefined; // items or shipments of an order never read: read it whole first
  const siteId = siteOf(order, current, seen.orderNumber);
  const closed = order.closed === true;

  if (current?.unresolvable) push(siteId, { type: "order.restored", order });
  // An order not read this time is the stored one, which differs in nothing.
  if (!current) push(siteId, { type: "order.added", order });
  else {
    const { fields, previous } = fieldDiff(current.order, order);
    if (fields.length) push(siteId, { type: "order.changed", order, fields, previous });
  }

  if (items) diffItems(current?.items ?? null, items, (c) => push(siteId, c));
  if (shipments) diffShipments(current?.shipments ?? null, shipments, (c) => push(siteId, c));

  const stored = shipments ?? current?.shipments ?? null;
  const after = { order, shipments: stored, changed: changes.length > 0 };
  const next: StoredOrder = {
    orderNumber: seen.orderNumber,
    siteId,
    order,
    items: items ?? current?.items ?? null,
    shipments: stored,
    closed,
    unresolvable: false,
    nextPollAt: seen.nextPollAt(closed, current?.closed, after),
    seenInSweep: seen.sweep ?? current?.seenInSweep ?? 0,
    ...partnerOrderIdOf(seen, current),
  };
  return { next, changes };
}

/** The partnerOrderId to keep: the one just learnt, else the stored one; absent when neither. */
function partnerOrderIdOf(seen: Observation, current: StoredOrder | undefined) {
  const id = seen.partnerOrderId ?? current?.partnerOrderId;
  return id === undefined ? {} : { partnerOrderId: id };
}

/**
 * Lines never leave the list (a cancelled one stays, `cancelled: true`), so a stored line missing
 * from a read is not reported: no change can say more than the service did.
 */
function diffItems(before: Row[] | null, after: Row[], push: (change: Row) => void) {
  const { pair } = pairing(before ?? [], "itemNumber");
  for (const item of after) {
    const prior = pair(item);
    if (!prior) push({ type: "item.added", item });
    // Like a shipment first seen shipped: a line first seen cancelled is reported cancelled too.
    const cancelled = item.cancelled === true && prior?.cancelled !== true;
    if (cancelled) push({ type: "item.cancelled", item });
    if (!prior) continue;
    const { fields, previous } = fieldDiff(prior, item, (key) => cancelled && key === "cancelled");
    if (fields.length) push({ type: "item.changed", item, fields, previous });
  }
}

function diffShipments(before: Row[] | null, after: Row[], push: (change: Row) => void) {
  const { pair, unpaired } = pairing(before ?? [], "shipmentNumber");
  for (const shipment of after) {
    const prior = pair(shipment);
    if (!prior) push({ type: "shipment.added", shipment });
    const shippedNow = shipped(shipment) && !(prior && shipped(prior));
    if (shippedNow)
      push({ type: "shipment.shipped", shipment, trackingNumbers: tracking(shipment) });
    // The Shipment invariant: shipped always has tracking. Reported when it starts being broken.
    const faulty = shipped(shipment) && tracking(shipment).length === 0;
    const wasFaulty = prior ? shipped(prior) && tracking(prior).length === 0 : false;
    if (faulty && !wasFaulty) push({ type: "shipment.tracking_fault", shipment });
    const deliveredNow = Boolean(shipment.deliveredOn) && !prior?.deliveredOn;
    if (deliveredNow) push({ type: "shipment.delivered", shipment });
    if (prior) {
      // The shipping is reported once: its date and tracking travel in `shipment.shipped`.
      const told = (key: string) =>
        (shippedNow && SHIPPING_FIELDS.includes(key)) || (deliveredNow && key === "deliveredOn");
      const { fields, previous } = fieldDiff(prior, shipment, told);
      if (fields.length) push({ type: "shipment.changed", shipment, fields, previous });
    }
  }
  for (const gone of unpaired()) push({ type: "shipment.removed", shipment: gone });
}
