import { describe, expect, it } from "vitest";
import { decide } from "../../../src/sync/diff";
import { change, seen, stored } from "./support";

/** Shipment 1 of order 100001, not shipped yet: a service chosen, no tracking. */
const waiting = (extra: Record<string, unknown> = {}) => ({
  shipmentNumber: 1,
  shippingService: "Ground",
  trackingNumbers: [],
  manualTrackingNumber: null,
  shippedOn: null,
  deliveredOn: null,
  packages: [],
  ...extra,
});

/** The same shipment once shipped on 2 March, tracked by one package. */
const leftOn2March = (extra: Record<string, unknown> = {}) =>
  waiting({
    trackingNumbers: ["1Z999"],
    manualTrackingNumber: "M-1",
    shippedOn: "2026-03-02T09:00:00Z",
    packages: [{ sequence: 1, trackingNumber: "1Z999" }],
    ...extra,
  });

/** The changes of reading `shipments` after `before` was stored. */
const changes = (before: Record<string, unknown>[] | null, shipments: Record<string, unknown>[]) =>
  decide(stored({ shipments: before }), seen({ shipments }))?.changes;

describe("decide: a shipment seen for the first time", () => {
  it("not shipped is added only, whether shippedOn is null or absent", () => {
    const { shippedOn: _, ...noDate } = waiting();
    expect(changes(null, [waiting()])).toStrictEqual([
      change("shipment.added", { shipment: waiting() }),
    ]);
    expect(changes([], [noDate])).toStrictEqual([change("shipment.added", { shipment: noDate })]);
  });

  // A change the mirror missed the moment of is still reported once.
  it("shipped is added and shipped, with its tracking", () => {
    expect(changes(null, [leftOn2March()])).toStrictEqual([
      change("shipment.added", { shipment: leftOn2March() }),
      change("shipment.shipped", { shipment: leftOn2March(), trackingNumbers: ["1Z999"] }),
    ]);
  });

  it("shipped with no tracking is also a tracking fault", () => {
    const bare = waiting({ shippedOn: "2026-03-02T09:00:00Z" });
    expect(changes(null, [bare])).toStrictEqual([
      change("shipment.added", { shipment: bare }),
      change("shipment.shipped", { shipment: bare, trackingNumbers: [] }),
      change("shipment.tracking_fault", { shipment: bare }),
    ]);
  });

  it("shipped with tracking that is not a list is shipped with none, and a fault", () => {
    const odd = waiting({ shippedOn: "2026-03-02T09:00:00Z", trackingNumbers: "1Z999" });
    expect(changes(null, [odd])).toStrictEqual([
      change("shipment.added", { shipment: odd }),
      change("shipment.shipped", { shipment: odd, trackingNumbers: [] }),
      change("shipment.tracking_fault", { shipment: odd }),
    ]);
  });

  it("delivered is added, shipped and delivered", () => {
    const done = leftOn2March({ deliveredOn: "2026-03-04T15:00:00Z" });
    expect(changes(null, [done])).toStrictEqual([
      change("shipment.added", { shipment: done }),
      change("shipment.shipped", { shipment: done, trackingNumbers: ["1Z999"] }),
      change("shipment.delivered", { shipment: done }),
    ]);
  });
});

describe("decide: a shipment that ships", () => {
  it("is reported shipped once: its date and tracking make no change beside it", () => {
    expect(changes([waiting()], [leftOn2March()])).toStrictEqual([
      change("shipment.shipped", { shipment: leftOn2March(), trackingNumbers: ["1Z999"] }),
    ]);
  });

  it("still reports the other fields that moved as it shipped", () => {
    const after = leftOn2March({ shippingService: "Express", deliverBy: "2026-03-05" });
    expect(changes([waiting()], [after])).toStrictEqual([
      change("shipment.shipped", { shipment: after, trackingNumbers: ["1Z999"] }),
      change("shipment.changed", {
        shipment: after,
        fields: ["shippingService", "deliverBy"],
        previous: { shippingService: "Ground", deliverBy: null },
      }),
    ]);
  });

  it("with no tracking is a fault, and the tracking that comes later a change", () => {
    const bare = waiting({ shippedOn: "2026-03-02T09:00:00Z" });
    expect(changes([waiting()], [bare])).toStrictEqual([
      change("shipment.shipped", { shipment: bare, trackingNumbers: [] }),
      change("shipment.tracking_fault", { shipment: bare }),
    ]);
    expect(changes([bare], [bare])).toStrictEqual([]);
    expect(changes([bare], [leftOn2March()])).toStrictEqual([
      change("shipment.changed", {
        shipment: leftOn2March(),
        fields: ["trackingNumbers", "manualTrackingNumber", "packages"],
        previous: { trackingNumbers: [], manualTrackingNumber: null, packages: [] },
      }),
    ]);
  });
});

describe("decide: a shipment already shipped", () => {
  it("reports tracking added later as a change", () => {
    const more = leftOn2March({
      trackingNumbers: ["1Z999", "1Z998"],
      packages: [
        { sequence: 1, trackingNumber: "1Z999" },
        { sequence: 2, trackingNumber: "1Z998" },
      ],
    });
    expect(changes([leftOn2March()], [more])).toStrictEqual([
      change("shipment.changed", {
        shipment: more,
        fields: ["trackingNumbers", "packages"],
        previous: {
          trackingNumbers: ["1Z999"],
          packages: [{ sequence: 1, trackingNumber: "1Z999" }],
        },
      }),
    ]);
  });

  it("reports tracking that disappears as a fault and a change", () => {
    const lost = leftOn2March({ trackingNumbers: [] });
    expect(changes([leftOn2March()], [lost])).toStrictEqual([
      change("shipment.tracking_fault", { shipment: lost }),
      change("shipment.changed", {
        shipment: lost,
        fields: ["trackingNumbers"],
        previous: { trackingNumbers: ["1Z999"] },
      }),
    ]);
  });

  it("reports a new ship date as a change, not a second shipping", () => {
    const later = leftOn2March({ shippedOn: "2026-03-03T09:00:00Z" });
    expect(changes([leftOn2March()], [later])).toStrictEqual([
      change("shipment.changed", {
        shipment: later,
        fields: ["shippedOn"],
        previous: { shippedOn: "2026-03-02T09:00:00Z" },
      }),
    ]);
  });

  it("reports a ship date taken back as a change", () => {
    expect(changes([leftOn2March()], [waiting()])).toStrictEqual([
      change("shipment.changed", {
        shipment: waiting(),
        fields: ["trackingNumbers", "manualTrackingNumber", "shippedOn", "packages"],
        previous: {
          trackingNumbers: ["1Z999"],
          manualTrackingNumber: "M-1",
          shippedOn: "2026-03-02T09:00:00Z",
          packages: [{ sequence: 1, trackingNumber: "1Z999" }],
        },
      }),
    ]);
  });

  it("reports delivery once, and what else moved beside it", () => {
    const done = leftOn2March({ deliveredOn: "2026-03-04T15:00:00Z" });
    expect(changes([leftOn2March()], [done])).toStrictEqual([
      change("shipment.delivered", { shipment: done }),
    ]);
    expect(changes([done], [done])).toStrictEqual([]);
    const moved = leftOn2March({ deliveredOn: "2026-03-04T15:00:00Z", shippingService: "Air" });
    expect(changes([leftOn2March()], [moved])).toStrictEqual([
      change("shipment.delivered", { shipment: moved }),
      change("shipment.changed", {
        shipment: moved,
        fields: ["shippingService"],
        previous: { shippingService: "Ground" },
      }),
    ]);
  });
});

describe("decide: the list of shipments", () => {
  it("reports a shipment no longer listed removed, as stored, in stored order", () => {
    const two = waiting({ shipmentNumber: 2 });
    const three = waiting({ shipmentNumber: 3 });
    expect(changes([waiting(), two, three], [two])).toStrictEqual([
      change("shipment.removed", { shipment: waiting() }),
      change("shipment.removed", { shipment: three }),
    ]);
  });

  it("reports the shipments of a new order after the order", () => {
    const read = { orderNumber: 100001, siteId: 101, closed: false };
    const commit = decide(undefined, seen({ order: read, shipments: [waiting()] }));
    expect(commit?.changes.map((c) => c.type)).toEqual(["order.added", "shipment.added"]);
    expect(commit?.next.shipments).toEqual([waiting()]);
  });

  it("reports only the shipment that is new", () => {
    const two = waiting({ shipmentNumber: 2 });
    expect(changes([waiting()], [waiting(), two])).toStrictEqual([
      change("shipment.added", { shipment: two }),
    ]);
  });

  it("pairs shipments that share a number in list order: a second one is added, or removed", () => {
    const twin = waiting({ shippingService: "Air" });
    expect(changes([waiting()], [waiting(), twin])).toStrictEqual([
      change("shipment.added", { shipment: twin }),
    ]);
    expect(changes([waiting(), twin], [waiting()])).toStrictEqual([
      change("shipment.removed", { shipment: twin }),
    ]);
    expect(changes([waiting(), twin], [waiting(), twin])).toStrictEqual([]);
  });
});
