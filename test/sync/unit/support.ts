import type { Observation } from "../../../src/sync/diff";
import type { StoredOrder } from "../../../src/sync/types";

/** The mirror's clock when the read was made, as every change of these tests carries it. */
export const AT = "2026-03-01T12:00:00.000Z";
/** What the caller's schedule answers for the next poll, unless a test says otherwise. */
export const NEXT_POLL = 1_772_366_700_000;

/** A read of order 100001 by a sweep, with the parts a test gives. */
export function seen(extra: Partial<Observation> = {}): Observation {
  return {
    orderNumber: 100001,
    cause: "sweep",
    observedAt: AT,
    nextPollAt: () => NEXT_POLL,
    ...extra,
  };
}

/** Order 100001 as the service answers it, site 101, open. */
export function order(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderNumber: 100001,
    status: "In Production",
    siteId: 101,
    closed: false,
    totals: { item: "10.0000000000", shipping: "2.5000000000", tax: null, order: null },
    ...extra,
  };
}

/** Order 100001 as stored after an earlier read: every part read, next poll at 1000, sweep 3. */
export function stored(extra: Partial<StoredOrder> = {}): StoredOrder {
  return {
    orderNumber: 100001,
    siteId: 101,
    order: order(),
    items: [],
    shipments: [],
    closed: false,
    unresolvable: false,
    nextPollAt: 1000,
    seenInSweep: 3,
    ...extra,
  };
}

/** A change as decide writes it for order 100001, site 101 unless given, cause sweep. */
export function change(type: string, payload: Record<string, unknown> = {}, siteId = 101) {
  return { orderNumber: 100001, observedAt: AT, cause: "sweep", siteId, type, ...payload };
}
