import { type Change, ChangesExpiredError, sqliteStore } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../src/core/errors";
import { quiet } from "../support/logger.js";
import { setup } from "./support.js";

/** The change stream as a data product: the snapshot flag, where consumers start, retention. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function make(options: Parameters<typeof setup>[1] = {}) {
  const store = sqliteStore(":memory:");
  const s = setup(":memory:", { logger: quiet, store, ...options });
  cleanups.push(
    () => s.mirror.close(),
    () => s.sandbox.close(),
  );
  return { ...s, store };
}

/**
 * The changes a loop hands out up to id `last`. The loop is stopped by an abort, so a named
 * consumer's position stays before the last one (not finished: at least once).
 */
async function drain(
  mirror: ReturnType<typeof make>["mirror"],
  options: { consumer?: string; from?: "beginning" | "now" },
  last: number,
): Promise<Change[]> {
  const seen: Change[] = [];
  if (last === 0) return seen;
  const abort = new AbortController();
  for await (const change of mirror.changes({ ...options, signal: abort.signal })) {
    seen.push(change);
    if (change.id >= last) abort.abort();
  }
  return seen;
}

async function settle(turns = 50) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(check: () => Promise<boolean> | boolean) {
  for (let i = 0; i < 20_000; i++) {
    if (await check()) return;
    await settle(1);
  }
  throw new Error("never happened");
}

describe("the snapshot flag", () => {
  it("is true for what the first complete sweep wrote, false for what came before and after it", async () => {
    const s = make();
    // Read by refresh() before any sweep: a live change, not part of the backfill.
    const early = s.sandbox.admin.placeOrder({ lines: 1 });
    const [refreshed] = await s.mirror.refresh(early);
    expect(refreshed).toMatchObject({ type: "order.added", cause: "refresh", snapshot: false });

    const first = await s.mirror.sync();
    expect(first.changesWritten).toBeGreaterThan(0);
    const backfill = await s.store.changesAfter(0, 100_000);
    const swept = backfill.filter((c) => c.cause === "sweep");
    expect(swept.length).toBe(first.changesWritten);
    expect(swept.every((c) => c.snapshot)).toBe(true);
    expect(backfill.filter((c) => c.cause === "refresh").every((c) => !c.snapshot)).toBe(true);

    // After the first complete sweep, even a sweep's changes are live.
    const later = s.sandbox.admin.placeOrder({ lines: 1 });
    s.sandbox.admin.shipShipment(early, 1);
    await s.mirror.sync();
    const live = await s.store.changesAfter(backfill.at(-1)?.id ?? 0, 100_000);
    expect(live.some((c) => c.orderNumber === later && c.type === "order.added")).toBe(true);
    expect(live.length).toBeGreaterThan(1);
    expect(live.every((c) => c.snapshot === false)).toBe(true);
    // The flag is stored, not derived when read: a restarted process reads the same.
    const again = s.restart();
    cleanups.unshift(() => again.close());
    const reread = await drain(again, { from: "beginning" }, await s.store.lastChangeId());
    expect(reread.map((c) => [c.id, c.snapshot])).toEqual(
      [...backfill, ...live].map((c) => [c.id, c.snapshot]),
    );
  });
});

describe("where a consumer starts", () => {
  it('from: "now" skips what was written before it first ran; its position then wins', async () => {
    const s = make();
    await s.mirror.sync();
    const before = await s.store.lastChangeId();
    const abort = new AbortController();
    const seen: Change[] = [];
    const reading = (async () => {
      for await (const c of s.mirror.changes({
        consumer: "mailer",
        from: "now",
        signal: abort.signal,
      })) {
        seen.push(c);
        abort.abort();
      }
    })();
    await until(async () => (await s.mirror.consumers()).some((c) => c.name === "mailer"));
    expect(await s.mirror.consumers()).toEqual([
      { name: "mailer", position: before, lagChanges: 0, lagMs: 0 },
    ]);
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.refresh(n);
    await reading;
    expect(seen.map((c) => [c.type, c.orderNumber])).toEqual([["order.added", n]]);

    // Its stored position wins over `from` from now on: "beginning" does not replay the backfill,
    // only the change it had not finished (the loop was aborted in its body).
    const next = await drain(
      s.mirror,
      { consumer: "mailer", from: "beginning" },
      await s.store.lastChangeId(),
    );
    expect(next[0]).toEqual(seen[0]);
  });

  it("refuses a start that is neither beginning nor now, and a consumer name that is no text", async () => {
    const s = make();
    const bad = s.mirror.changes({ consumer: "x", from: "later" as never }).next();
    await expect(bad).rejects.toMatchObject({
      code: "invalid_argument",
      message: 'changes()\'s from must be "beginning" or "now", not "later".',
    });
    await expect(s.mirror.changes({ consumer: "" }).next()).rejects.toMatchObject({
      code: "invalid_argument",
    });
    await expect(s.mirror.resetConsumer("x", "start" as never)).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("resetConsumer's to"),
    });
    await expect(s.mirror.resetConsumer(42 as never, "now")).rejects.toMatchObject({
      code: "invalid_argument",
      message: "resetConsumer needs a consumer name (non-empty text), not 42.",
    });
    expect(await s.mirror.consumers()).toEqual([]);
  });
});

describe("retention", () => {
  it("run() deletes changes older than retentionMs; a consumer behind them gets ChangesExpiredError, and resetConsumer moves it on", async () => {
    const s = make({ retentionMs: HOUR, sweepIntervalMs: 15 * MINUTE });
    await s.mirror.resetConsumer("billing", "beginning");
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    cleanups.unshift(async () => {
      abort.abort();
      await running;
    });
    await until(async () => (await s.store.lastChangeId()) > 0);
    await until(async () => (await s.mirror.status()).lastSweep !== null);
    const backfilled = await s.store.lastChangeId();
    // "fast" keeps up all along; "billing" is stopped at 0.
    const fast: Change[] = [];
    const reading = (async () => {
      for await (const c of s.mirror.changes({ consumer: "fast", signal: abort.signal }))
        fast.push(c);
    })();
    await until(() => fast.at(-1)?.id === backfilled);

    // Two hours on, with one new change: the backfill is older than the retention.
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    s.sandbox.clock.advance(2 * HOUR);
    await until(async () => (await s.store.prunedThrough()) > 0);
    await until(async () => (await s.store.lastChangeId()) > backfilled);
    expect(await s.store.prunedThrough()).toBe(backfilled);
    const kept = await s.store.changesAfter(0, 1000);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((c) => c.id > backfilled)).toBe(true);
    expect(kept.some((c) => c.orderNumber === n)).toBe(true);

    const error = await s.mirror
      .changes({ consumer: "billing" })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangesExpiredError);
    expect(error).toMatchObject({
      code: "changes_expired",
      consumer: "billing",
      position: 0,
      prunedThrough: backfilled,
      oldestKeptId: kept[0]?.id,
    });
    // The consumer that kept up lost nothing.
    await until(() => fast.at(-1)?.id === kept.at(-1)?.id);
    expect(fast.filter((c) => c.id > backfilled).map((c) => c.id)).toEqual(kept.map((c) => c.id));
    expect(fast.length).toBe(backfilled + kept.length);

    // status() and consumers() still tell its lag; a reset to the beginning reads what is kept.
    const listedConsumers = await s.mirror.consumers();
    expect(listedConsumers.find((c) => c.name === "billing")).toMatchObject({ position: 0 });
    expect((await s.mirror.status()).consumers).toEqual(listedConsumers);
    await s.mirror.resetConsumer("billing", "beginning");
    expect((await s.mirror.consumers()).find((c) => c.name === "billing")?.position).toBe(
      backfilled,
    );
    const after = await drain(s.mirror, { consumer: "billing" }, kept.at(-1)?.id ?? 0);
    expect(after.map((c) => c.id)).toEqual(kept.map((c) => c.id));
    await s.mirror.resetConsumer("billing", "now");
    expect((await s.mirror.consumers()).find((c) => c.name === "billing")).toMatchObject({
      position: await s.store.lastChangeId(),
      lagChanges: 0,
      lagMs: 0,
    });
    abort.abort();
    await reading;
  });

  it("retentionMs must be a positive number; one longer than the epoch deletes nothing", async () => {
    expect(() => make({ retentionMs: 0 })).toThrow(PartnerOrdersError);
    expect(() => make({ retentionMs: -1 })).toThrow("retentionMs must be a positive number.");
    const s = make({ retentionMs: Number.MAX_SAFE_INTEGER });
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    await until(async () => (await s.mirror.status()).lastSweep !== null);
    s.sandbox.clock.advance(400 * 24 * HOUR);
    await settle(200);
    abort.abort();
    await running;
    expect(await s.store.prunedThrough()).toBe(0);
  });
});
