import { afterEach, describe, expect, it } from "vitest";
import { PollPolicy } from "../../../src/sync/poll-policy";
import type { PollPolicyName } from "../../../src/sync/poll-types";
import { sqliteStore } from "../../../src/sync/stores/sqlite";
import type { Change, MirrorStore, StoredOrder } from "../../../src/sync/types";
import { HEALTH_KEYS } from "../../../src/sync/webhook-health";
import { type Logged, TestClock, testLog } from "./context-support";

/** The poll policy on a real in-memory SQLite store and a clock that moves only when told. */

const MIN = 60_000;
const OPEN = 5 * MIN;
const MAX = 60 * MIN;
const stores: MirrorStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function storeWith(orders: number[] = [], nextPollAt?: number): Promise<MirrorStore> {
  const store = sqliteStore(":memory:");
  stores.push(store);
  await store.open();
  for (const n of orders)
    await store.commit(n, () => ({ next: row(n, nextPollAt ?? null), changes: [] }));
  return store;
}

function row(orderNumber: number, nextPollAt: number | null): StoredOrder {
  return {
    orderNumber,
    siteId: 101,
    order: { orderNumber, status: "Open" },
    items: [],
    shipments: [],
    closed: false,
    unresolvable: false,
    nextPollAt,
    seenInSweep: 0,
  };
}

function policyOn(store: MirrorStore, clock = new TestClock(), mode: PollPolicyName = "adaptive") {
  const logged: Logged[] = [];
  const policy = new PollPolicy({
    store,
    clock,
    log: testLog(logged),
    mode,
    openIntervalMs: OPEN,
    maxIntervalMs: MAX,
  });
  return { policy, clock, logged };
}

/** A change as a read records it. */
function found(type: string, orderNumber: number, cause: string, extra: object = {}): Change {
  return {
    id: 1,
    type,
    orderNumber,
    siteId: 101,
    observedAt: "2026-03-01T12:00:00.000Z",
    cause,
    snapshot: false,
    ...extra,
  } as unknown as Change;
}
const statusChanged = (n: number, cause = "poll") =>
  found("order.changed", n, cause, { fields: ["status"], previous: { status: "Open" } });

/** The next poll of order `n` read now, minus now. */
const waitOf = (policy: PollPolicy, clock: TestClock, n = 1) =>
  policy.nextPollAt({ orderNumber: n }) - clock.now();

/** A policy whose healthy spell began more than the longest interval ago: nothing left to spread. */
async function settledHealthy(store: MirrorStore) {
  const made = policyOn(store);
  await made.policy.announce(7, "order.status_changed");
  made.clock.wall += MAX;
  await made.policy.announce(8, "order.status_changed");
  return made;
}

describe("poll policy: webhook health decides the interval", () => {
  it("never relaxes without webhooks: every open order every openOrderIntervalMs", async () => {
    const { policy, clock } = policyOn(await storeWith());
    await policy.refresh();
    expect(policy.health.state).toBe("unknown");
    expect(policy.intervalMs).toBe(OPEN);
    expect(waitOf(policy, clock)).toBe(OPEN);
    // Changes found with no webhook ever received record nothing: there is no health to lose.
    await policy.found([statusChanged(1)]);
    expect(policy.health).toMatchObject({ state: "unknown", lastUnannounced: null });
  });

  it("relaxes once webhooks arrive: every open order maxOpenOrderIntervalMs after its last read, whatever the read found", async () => {
    const { policy, clock } = await settledHealthy(await storeWith());
    expect(policy.health.state).toBe("healthy");
    expect(policy.intervalMs).toBe(MAX);
    for (const n of [1, 2, 99_999, 123_456_789]) expect(waitOf(policy, clock, n)).toBe(MAX);
    // Counted from the read, not from when the next poll is chosen (its page written later).
    expect(policy.nextPollAt({ orderNumber: 1, at: clock.now() - 3 * MIN })).toBe(
      clock.now() - 3 * MIN + MAX,
    );
    // A change found (of a kind no webhook announces) does not shorten it: each poll an hour on.
    await policy.found([found("shipment.delivered", 1, "poll")]);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const wait = waitOf(policy, clock);
      waits.push(wait / MIN);
      clock.wall += wait;
    }
    expect(waits).toEqual([60, 60, 60, 60]);
  });

  it("spreads orders polled together over the first longest interval of a healthy spell, then an hour from each read", async () => {
    const { policy, clock } = policyOn(await storeWith());
    const start = clock.now();
    await policy.announce(7, "order.status_changed");
    // 1,100 orders read at once (after the first sync): their next polls fall evenly between the
    // short and the longest interval, about 100 in each 5 minutes, never past the longest.
    const orders = Array.from({ length: 1_100 }, (_, i) => 100_001 + i);
    const next = new Map(orders.map((n) => [n, policy.nextPollAt({ orderNumber: n })]));
    const buckets = new Array(11).fill(0);
    for (const at of next.values()) {
      expect(at).toBeGreaterThanOrEqual(start + OPEN);
      expect(at).toBeLessThan(start + MAX);
      buckets[Math.floor((at - start - OPEN) / (5 * MIN))]++;
    }
    for (const count of buckets) expect(count).toBeGreaterThan(70);
    for (const count of buckets) expect(count).toBeLessThan(130);
    // The same order, read again before its point in the spread, still goes there (the sweep read
    // it): no later than it was; read at its point, it is polled an hour on.
    const n = 100_001;
    const point = next.get(n) as number;
    clock.wall = start + 2 * MIN;
    expect(policy.nextPollAt({ orderNumber: n })).toBe(point);
    clock.wall = point;
    expect(waitOf(policy, clock, n)).toBe(MAX);
    // A read made before the spell began (its page written since) is never polled later than the
    // longest interval after it, wherever its point falls.
    for (const m of orders) {
      const at = start - 3 * MIN;
      const chosen = policy.nextPollAt({ orderNumber: m, at });
      expect(chosen).toBeLessThanOrEqual(at + MAX);
      expect(chosen).toBeGreaterThan(at);
    }
    // Another process (or a restart) puts each order at the same point.
    const other = policyOn(await storeWith(), new TestClock()).policy;
    await other.announce(7, "order.status_changed");
    expect(other.nextPollAt({ orderNumber: n, at: start })).toBe(point);
  });

  it("spreads again after a spell of degraded health, from when webhooks were healthy again", async () => {
    const { policy, clock } = await settledHealthy(await storeWith());
    await policy.found([statusChanged(2)]);
    expect(waitOf(policy, clock)).toBe(OPEN);
    // A day without a change found unannounced, webhooks arriving: healthy again.
    for (let h = 0; h < 24; h++) {
      clock.wall += 60 * MIN;
      await policy.announce(100 + h, "order.status_changed");
    }
    expect(policy.health.state).toBe("healthy");
    const again = clock.now();
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => waitOf(policy, clock, n));
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(OPEN);
      expect(wait).toBeLessThan(MAX);
    }
    expect(new Set(waits).size).toBe(waits.length);
    // Past the first interval of the spell: an hour from each read.
    clock.wall = again + MAX;
    expect(waitOf(policy, clock, 3)).toBe(MAX);
  });

  it("tightens on an announceable change a poll found unannounced: every open order due now, then the short interval", async () => {
    const store = await storeWith([1, 2, 3], Date.UTC(2026, 2, 1, 12, 50));
    const clock = new TestClock();
    const { policy } = policyOn(store, clock);
    await policy.announce(7, "order.status_changed");
    await policy.found([statusChanged(2)]);
    expect(policy.health).toMatchObject({
      state: "degraded",
      reason: "unannounced",
      lastUnannounced: {
        orderNumber: 2,
        type: "order.changed",
        at: new Date(clock.now()).toISOString(),
      },
    });
    expect(policy.intervalMs).toBe(OPEN);
    expect(waitOf(policy, clock)).toBe(OPEN);
    // Orders relaxed to 50 min from now are due now.
    expect(await store.dueStats(clock.now())).toMatchObject({ due: 3 });
    // Another process on the store believes it too, and a restarted one.
    const other = policyOn(store, clock).policy;
    await other.refresh();
    expect(other.health.state).toBe("degraded");
    // Once only: a second miss while degraded does not pull every order in again.
    await store.commit(1, () => ({ next: row(1, clock.now() + 50 * MIN), changes: [] }));
    await policy.found([statusChanged(3, "sweep")]);
    expect(await store.dueStats(clock.now())).toMatchObject({ due: 2 });
  });

  it("each kind a webhook announces counts when found unannounced, by a poll or a sweep", async () => {
    for (const change of [
      statusChanged(2, "sweep"),
      found("shipment.shipped", 2, "poll"),
      found("shipment.removed", 2, "poll"),
      found("item.cancelled", 2, "poll"),
    ]) {
      const { policy } = policyOn(await storeWith());
      await policy.announce(7, "order.status_changed");
      await policy.found([found("item.added", 2, "poll"), change]);
      expect(policy.health.lastUnannounced?.type).toBe(change.type);
    }
  });

  it("a change its webhook announced, or read by the webhook, does not count", async () => {
    const { policy } = policyOn(await storeWith());
    await policy.announce(2, "order.status_changed");
    await policy.announce(3, "shipment.cancelled");
    await policy.announce(4, "order_line.cancelled");
    // The webhook's read was joined by a poll already queued: the change says "poll".
    await policy.found([statusChanged(2)]);
    await policy.found([found("shipment.removed", 3, "poll")]);
    await policy.found([found("item.cancelled", 4, "sweep")]);
    await policy.found([found("shipment.shipped", 5, "webhook")]);
    expect(policy.health.state).toBe("healthy");
    // An announcement is used once: the same kind found again on that order was not announced.
    await policy.found([statusChanged(2)]);
    expect(policy.health.state).toBe("degraded");
  });

  it("an announcement of one kind does not cover another kind, nor a change found much later", async () => {
    const { policy, clock } = policyOn(await storeWith());
    await policy.announce(2, "order.status_changed");
    await policy.found([found("shipment.shipped", 2, "poll")]);
    expect(policy.health.lastUnannounced?.type).toBe("shipment.shipped");

    const late = policyOn(await storeWith(), clock).policy;
    await late.announce(3, "shipment.shipped");
    clock.wall += 2 * OPEN + 1;
    await late.announce(9, "order.status_changed");
    await late.found([found("shipment.shipped", 3, "poll")]);
    expect(late.health.state).toBe("degraded");
  });

  it("changes no webhook can announce do not count against webhook health", async () => {
    const { policy } = policyOn(await storeWith());
    await policy.announce(7, "order.status_changed");
    await policy.found([
      found("shipment.delivered", 2, "poll"),
      found("item.changed", 2, "poll", { fields: ["quantity"] }),
      found("shipment.changed", 2, "poll", { fields: ["trackingNumbers"] }),
      found("order.changed", 2, "sweep", { fields: ["totals"] }),
      found("shipment.added", 2, "poll"),
      found("shipment.tracking_fault", 2, "poll"),
    ]);
    expect(policy.health).toMatchObject({ state: "healthy", lastUnannounced: null });
  });

  it("an order new to the mirror, restored, refreshed or resynced does not count", async () => {
    const { policy } = policyOn(await storeWith());
    await policy.announce(7, "order.status_changed");
    await policy.found([found("order.added", 2, "sweep"), found("shipment.shipped", 2, "sweep")]);
    await policy.found([found("order.restored", 3, "poll"), statusChanged(3)]);
    await policy.found([statusChanged(4, "refresh")]);
    await policy.found([statusChanged(5, "resync")]);
    await policy.found([]);
    expect(policy.health.state).toBe("healthy");
  });

  it("tightens on a silence the delivery rate makes unlikely, and relaxes when webhooks come back", async () => {
    const store = await storeWith([1, 2], Date.UTC(2026, 2, 1, 14, 0));
    const { policy, clock } = policyOn(store);
    for (let i = 0; i < 7; i++) {
      await policy.announce(10 + i, "shipment.shipped");
      clock.wall += 10 * MIN;
    }
    // One every 10 min: a silence over 10 min x ln(1000) (69 min) is unlikely.
    expect(policy.health.silenceLimitMs).toBe(Math.round(10 * MIN * Math.log(1_000)));
    expect(policy.health.eventsPerHour).toBeCloseTo(6);
    clock.wall += 58 * MIN; // 68 min since the last
    await policy.refresh();
    expect(policy.health.state).toBe("healthy");
    clock.wall += 2 * MIN;
    await policy.refresh();
    expect(policy.health).toMatchObject({ state: "degraded", reason: "silence" });
    expect(waitOf(policy, clock)).toBe(OPEN);
    expect(await store.dueStats(clock.now())).toMatchObject({ due: 2 });
    await policy.announce(20, "shipment.shipped");
    expect(policy.health.state).toBe("healthy");
  });

  it("is healthy again a day after the last change found unannounced", async () => {
    const { policy, clock } = policyOn(await storeWith());
    await policy.announce(7, "order.status_changed");
    await policy.found([statusChanged(2)]);
    for (let h = 1; h < 24; h++) {
      clock.wall += 60 * MIN;
      await policy.announce(100 + h, "order.status_changed");
    }
    await policy.refresh();
    expect(policy.health.state).toBe("degraded");
    clock.wall += 60 * MIN;
    await policy.refresh();
    expect(policy.health.state).toBe("healthy");
  });

  it('"fixed" keeps the fixed interval and pulls nothing in, though it tracks health', async () => {
    const store = await storeWith([1], Date.UTC(2026, 2, 1, 12, 4));
    const { policy, clock } = policyOn(store, new TestClock(), "fixed");
    await policy.announce(7, "order.status_changed");
    expect(policy.health.state).toBe("healthy");
    expect(policy.intervalMs).toBe(OPEN);
    expect(waitOf(policy, clock)).toBe(OPEN);
    await policy.found([statusChanged(2)]);
    expect(policy.health.state).toBe("degraded");
    expect(await store.dueStats(clock.now())).toMatchObject({ due: 0 });
  });

  it("health survives a restart: a new policy on the store reads the deliveries and the last miss", async () => {
    const store = await storeWith();
    const clock = new TestClock();
    const first = policyOn(store, clock).policy;
    await Promise.all([
      first.announce(1, "shipment.shipped"),
      first.announce(2, "shipment.shipped"),
    ]);
    clock.wall += 10 * MIN;
    await first.announce(3, "shipment.shipped");
    expect(JSON.parse((await store.getCheckpoint(HEALTH_KEYS.events)) as string)).toEqual({
      first: clock.now() - 10 * MIN,
      last: clock.now(),
      count: 3,
    });
    const second = policyOn(store, clock).policy;
    expect(second.health.state).toBe("unknown");
    await second.refresh();
    expect(second.health).toMatchObject({ state: "healthy", eventsPerHour: 12 });
  });

  it("a store that cannot record health is warned of; polling goes on", async () => {
    const store = await storeWith();
    const { policy, logged } = policyOn(store);
    store.setCheckpoint = () => Promise.reject(new Error("disk full"));
    await policy.announce(7, "order.status_changed");
    await policy.found([statusChanged(2)]);
    expect(logged.map((l) => l.message)).toEqual([
      "recording a webhook's arrival failed; polling goes on",
      "recording a change no webhook announced failed; polling goes on",
      "bringing open orders back to the short interval failed; polling goes on",
    ]);
    expect(policy.health.state).toBe("degraded");
  });
});
