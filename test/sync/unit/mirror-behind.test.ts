import { afterEach, describe, expect, it } from "vitest";
import { PollRounds } from "../../../src/sync/keep-up";
import type { Reader } from "../../../src/sync/reader";
import { sqliteStore } from "../../../src/sync/stores/sqlite";
import { json, problem } from "../../support/fake-server";
import { testContext } from "./context-support";
import { type MirrorHarness, mirrorHarness, storedRow } from "./mirror-support";

/**
 * The warning that this process cannot keep up with its open orders: said when an order has
 * waited a whole interval past its time after a round, with the numbers an operator needs.
 */
const made: MirrorHarness[] = [];
afterEach(async () => {
  for (const h of made.splice(0)) await h.mirror.close();
});

const SECOND = 1_000;
const HOUR = 3_600_000;
const ORDERS = [1, 2, 3, 4, 5, 6, 7];

/**
 * Seven open orders due now, polled every minute, one read at a time; the sweep is not due. The
 * first round is instant; in the second, each order's items take `secondsEach` of the clock (or
 * fail after that long with `failing`).
 */
async function slowSecondRound(secondsEach: number, failing = false): Promise<MirrorHarness> {
  const h = mirrorHarness({
    concurrency: 1,
    openOrderIntervalMs: 60 * SECOND,
    sweepIntervalMs: 10 * HOUR,
    sweepLeaseMs: 10 * HOUR,
  });
  made.push(h);
  await h.store.open();
  for (const n of ORDERS) {
    h.service.add(n);
    await h.store.commit(n, () => ({ next: storedRow(n, h.clock.now()), changes: [] }));
    h.service.server.on(`GET /v1/orders/${n}/items`, () => {
      if (h.clock.sleeps.length === 0) return json({ items: [], nextCursor: null });
      h.clock.advance(secondsEach * SECOND);
      return failing ? problem(503, "service_unavailable") : json({ items: [], nextCursor: null });
    });
  }
  await h.store.setCheckpoint("sweep:finished-at", String(h.clock.now()));
  return h;
}

const behind = (h: MirrorHarness) =>
  h.lines.filter((l) => (l.fields as { code?: string } | undefined)?.code === "falling_behind");

describe("falling behind", () => {
  it("a round that leaves an order a whole interval late says so, with the rates and what to change", async () => {
    const h = await slowSecondRound(20);
    h.clock.stopAfter(2);
    await h.mirror.run({ signal: h.clock.signal });
    // 14 requests (items and shipments of 7 orders) in the 140 s of the second round.
    expect(h.clock.sleeps).toEqual([60 * SECOND, 1]);
    expect(behind(h)).toEqual([
      {
        level: "warn",
        message:
          "cannot keep up with open orders: 7 open orders need about 14 requests every 60 s (0.2/s); this process made 0.1/s in its last round, and the oldest due order is 60 s late. Raise openOrderIntervalMs to at least 140 s, raise concurrency (now 1), or share the work among processes on postgresStore.",
        fields: {
          code: "falling_behind",
          openOrders: 7,
          requestsPerRound: 14,
          achievedPerSecond: 0.1,
        },
      },
    ]);
  });

  it("an order late by less than an interval is no reason to warn", async () => {
    const h = await slowSecondRound(19);
    h.clock.stopAfter(2);
    await h.mirror.run({ signal: h.clock.signal });
    expect(behind(h)).toEqual([]);
  });

  it("a round whose reads all failed names no interval to raise to", async () => {
    const h = await slowSecondRound(20, true);
    h.clock.stopAfter(2);
    await h.mirror.run({ signal: h.clock.signal });
    expect(behind(h).map((l) => l.message)).toEqual([
      "cannot keep up with open orders: 7 open orders need about 14 requests every 60 s (0.2/s); this process made 0.0/s in its last round, and the oldest due order is 80 s late. Raise openOrderIntervalMs, raise concurrency (now 1), or share the work among processes on postgresStore.",
    ]);
    expect(h.warnings).toContain(
      "reading order 1 failed (service_unavailable); it is read again next round",
    );
  });

  it("no warning when the due orders were polled meanwhile (by another process)", async () => {
    const h = await slowSecondRound(20);
    h.overrides.dueStats = async (now) => ({ ...(await h.real.dueStats(now)), oldestDueAt: null });
    h.clock.stopAfter(2);
    await h.mirror.run({ signal: h.clock.signal });
    expect(behind(h)).toEqual([]);
  });
});

describe("falling behind, round after round", () => {
  it("is said once per interval: rounds 20 s apart warn at the first and again a whole interval later", async () => {
    const store = sqliteStore(":memory:");
    await store.open();
    const ctx = testContext(store, {}, { openIntervalMs: 60 * SECOND, concurrency: 1 });
    // Order 1 has been due for 10 minutes; each round takes 20 s and makes 2 requests without
    // catching up (its reads were cut short, as by a sweep falling due).
    await store.commit(1, () => ({
      next: storedRow(1, ctx.clock.wall - 600 * SECOND),
      changes: [],
    }));
    const reader = {
      async pollDue() {
        ctx.clock.wall += 20 * SECOND;
        ctx.report.requests += 2;
        return { polled: 0, failed: 0 };
      },
    } as unknown as Reader;
    const rounds = new PollRounds(ctx, reader);
    const late: number[] = [];
    for (let round = 1; round <= 5; round++) {
      const before = ctx.logged.length;
      await rounds.round(() => false);
      if (ctx.logged.length > before) late.push(round);
    }
    // Warned after rounds 1 and 4 (60 s apart), not after 2, 3 (20 and 40 s after) or 5.
    expect(late).toEqual([1, 4]);
    expect(ctx.logged.map((l) => l.message.match(/oldest due order is (\d+) s late/)?.[1])).toEqual(
      ["620", "680"],
    );
    await store.close();
  });
});
