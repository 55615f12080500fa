import { PartnerOrders } from "partner-orders";
import {
  MIRROR_SCHEMA_VERSION,
  type MirrorStore,
  OrderMirror,
  sqliteStore,
} from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import type { NewChange, StoredOrder } from "../../../src/sync/types";
import { createSandboxClock } from "../../../src/testing/clock";
import { noWebhooks } from "../../support/fixtures";

/** status() on a store filled by hand: every figure is known in advance. */
const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const client = new PartnerOrders({
  baseUrl: "https://orders.invalid",
  clientId: "id",
  clientSecret: "secret",
});
const mirrors: OrderMirror[] = [];
const holders: string[] = [];
afterEach(async () => {
  for (const m of mirrors.splice(0)) await m.close();
  for (const h of holders.splice(0)) retireHolder(h);
});

function row(orderNumber: number, extra: Partial<StoredOrder> = {}): StoredOrder {
  return {
    orderNumber,
    siteId: 12,
    order: { orderNumber, status: "Open" },
    items: [],
    shipments: [],
    closed: false,
    unresolvable: false,
    nextPollAt: null,
    seenInSweep: 0,
    ...extra,
  };
}
function change(orderNumber: number, observedAt: string): NewChange {
  return {
    type: "order.added",
    orderNumber,
    siteId: 12,
    observedAt,
    cause: "sweep",
  } as unknown as NewChange;
}

async function mirrorOn(fill: (store: MirrorStore) => Promise<void>): Promise<OrderMirror> {
  const store = sqliteStore(":memory:");
  await store.open();
  await fill(store);
  const mirror = new OrderMirror({ client, store, clock: createSandboxClock("manual", NOW) });
  mirrors.push(mirror);
  return mirror;
}

describe("status", () => {
  it("an empty store: nothing due, no sweep, no consumers", async () => {
    const mirror = await mirrorOn(async () => {});
    expect(await mirror.status()).toEqual({
      lastSweep: null,
      sweepHolder: null,
      openOrders: 0,
      dueNow: 0,
      oldestDueLagMs: null,
      invalidOrders: [],
      lastError: null,
      consumers: [],
      schemaVersion: MIRROR_SCHEMA_VERSION,
      account: null,
      ...noWebhooks,
    });
  });

  it("tells open and due orders, the oldest one's lag, the holder, errors and each consumer's lag", async () => {
    const other = newHolder();
    holders.push(other);
    const mirror = await mirrorOn(async (store) => {
      const put = (order: StoredOrder, changes: NewChange[] = []) =>
        store.commit(order.orderNumber, () => ({ next: order, changes }));
      await put(row(1, { nextPollAt: NOW - 90_000 }), [
        change(1, new Date(NOW - 60_000).toISOString()),
      ]);
      await put(row(2, { nextPollAt: NOW + 5_000 }), [
        change(2, new Date(NOW - 30_000).toISOString()),
      ]);
      await put(row(3, { closed: true }), [change(3, new Date(NOW + 10_000).toISOString())]);
      await store.setPosition("behind", 1);
      await store.setPosition("current", 3);
      await store.setPosition("ahead", 5);
      await store.setCheckpoint("status:last-sweep", '{"at":"x"}');
      await store.setCheckpoint("status:last-error", '{"code":"c"}');
      await store.setCheckpoint("status:invalid-orders", "not json");
      await store.lease("sweep", other, NOW - 1_000, NOW + 59_000);
    });
    const status = await mirror.status();
    expect(status).toEqual({
      lastSweep: { at: "x" },
      sweepHolder: {
        holder: other,
        since: new Date(NOW - 1_000).toISOString(),
        expiresAt: new Date(NOW + 59_000).toISOString(),
        self: false,
      },
      openOrders: 2,
      dueNow: 1,
      oldestDueLagMs: 90_000,
      invalidOrders: [],
      lastError: { code: "c" },
      consumers: [
        { name: "ahead", position: 5, lagChanges: 0, lagMs: 0 },
        { name: "behind", position: 1, lagChanges: 2, lagMs: 30_000 },
        { name: "current", position: 3, lagChanges: 0, lagMs: 0 },
      ],
      schemaVersion: MIRROR_SCHEMA_VERSION,
      account: null,
      ...noWebhooks,
    });
  });

  it("a due order in the future of the clock has no negative lag; a consumer's change from the future neither", async () => {
    const mirror = await mirrorOn(async (store) => {
      await store.commit(1, () => ({
        next: row(1, { nextPollAt: NOW }),
        changes: [change(1, new Date(NOW + 10_000).toISOString())],
      }));
      await store.setPosition("c", 0);
      await store.setCheckpoint("status:invalid-orders", '[{"orderNumber":9}]');
    });
    const status = await mirror.status();
    expect(status.oldestDueLagMs).toBe(0);
    expect(status.dueNow).toBe(1);
    expect(status.consumers).toEqual([{ name: "c", position: 0, lagChanges: 1, lagMs: 0 }]);
    expect(status.invalidOrders).toEqual([{ orderNumber: 9 }]);
  });
});
