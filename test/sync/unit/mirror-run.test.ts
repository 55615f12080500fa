import { afterEach, describe, expect, it } from "vitest";
import { MirrorError } from "../../../src/sync/errors";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import type { SyncProgress, SyncReport } from "../../../src/sync/types";
import { json, problem } from "../../support/fake-server";
import { type MirrorHarness, mirrorHarness, storedRow } from "./mirror-support";

/**
 * run() on a scripted service and a clock whose sleeps move time: each test ends the loop after a
 * known number of sleeps and asserts what it asked for, what it waited and what it said.
 */
const made: MirrorHarness[] = [];
const holders: string[] = [];
function harness(...args: Parameters<typeof mirrorHarness>): MirrorHarness {
  const h = mirrorHarness(...args);
  made.push(h);
  return h;
}
afterEach(async () => {
  for (const h of made.splice(0)) await h.mirror.close();
  for (const holder of holders.splice(0)) retireHolder(holder);
});

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const LIST = "GET /v1/orders?limit=200";
const polled = (n: number) => [
  `GET /v1/orders/${n}/items?limit=200`,
  `GET /v1/orders/${n}/shipments?limit=50`,
];

/** Runs the loop until its `sleeps`-th sleep; resolves with what run() ended with. */
async function runFor(h: MirrorHarness, sleeps: number, options: Record<string, unknown> = {}) {
  h.clock.stopAfter(sleeps);
  return h.mirror.run({ signal: h.clock.signal, ...options });
}

/**
 * Orders stored by an earlier process, each due at the time given, and a sweep finished now: the
 * loop's first sweep is not due, so the polls alone are seen.
 */
async function storedDue(h: MirrorHarness, due: [number, number | null][]) {
  await h.store.open();
  for (const [n, at] of due) {
    h.service.add(n);
    await h.store.commit(n, () => ({ next: storedRow(n, at), changes: [] }));
  }
  await h.store.setCheckpoint("sweep:finished-at", String(h.clock.now()));
}

describe("run: the schedule", () => {
  it("sweeps at once, polls open orders every openOrderIntervalMs and sweeps again every sweepIntervalMs (defaults 5 and 15 min)", async () => {
    const h = harness();
    h.service.add(1);
    await runFor(h, 4);
    expect(h.clock.sleeps).toEqual([5 * MINUTE, 5 * MINUTE, 5 * MINUTE, 5 * MINUTE]);
    expect(h.service.calls).toEqual([
      "GET /v1/me",
      LIST,
      ...polled(1),
      ...polled(1),
      ...polled(1),
      LIST,
      ...polled(1),
    ]);
    expect(h.warnings).toEqual([]);
  });

  it("with nothing to poll, sleeps until the next sweep when it comes before an open-order interval", async () => {
    const h = harness({ openOrderIntervalMs: HOUR });
    await runFor(h, 2);
    expect(h.clock.sleeps).toEqual([15 * MINUTE, 15 * MINUTE]);
    expect(h.service.count(LIST)).toBe(2);
  });

  it("wakes for an order due before the interval ends", async () => {
    const h = harness({ sweepIntervalMs: HOUR, sweepLeaseMs: HOUR });
    const now = h.clock.now();
    await storedDue(h, [[7, now + 2 * MINUTE]]);
    await runFor(h, 1);
    expect(h.clock.sleeps).toEqual([2 * MINUTE]);
    expect(h.service.calls).toEqual(["GET /v1/me"]);
  });

  it("an order that fell due during a round is polled after a 1 ms pause, not after a whole wait", async () => {
    const h = harness({ sweepIntervalMs: HOUR, sweepLeaseMs: HOUR });
    const now = h.clock.now();
    await storedDue(h, [
      [1, now],
      [2, now + 500],
    ]);
    h.service.server.on("GET /v1/orders/1/items", () => {
      h.clock.advance(SECOND);
      return json({ items: [], nextCursor: null });
    });
    await runFor(h, 2);
    expect(h.clock.sleeps[0]).toBe(1);
    expect(h.service.calls).toEqual(["GET /v1/me", ...polled(1), ...polled(2)]);
    // Late by a second, not by an interval: no warning.
    expect(h.warnings).toEqual([]);
  });

  it.each([
    ["the sweep lease (60 s by default)", {}, MINUTE],
    ["the sweep interval when it is shorter", { sweepIntervalMs: 30 * SECOND }, 30 * SECOND],
  ])("with the sweep held by another process, looks again after %s", async (_, options, wait) => {
    const h = harness(options);
    const other = newHolder();
    holders.push(other);
    await h.store.open();
    await h.store.lease("sweep", other, h.clock.now(), h.clock.now() + 10 * HOUR);
    const passes: SyncReport[] = [];
    await runFor(h, 2, { onPass: (report: SyncReport) => passes.push(report) });
    expect(h.clock.sleeps).toEqual([wait, wait]);
    expect(h.service.calls).toEqual(["GET /v1/me"]);
    // No sweep was made: no pass is reported.
    expect(passes).toEqual([]);
  });

  it("a sweep falling due stops a round of polls between claims; the rest are polled after it", async () => {
    const h = harness({ concurrency: 1, sweepIntervalMs: MINUTE });
    for (const n of [1, 2, 3, 4, 5, 6]) h.service.add(n);
    await h.store.open();
    for (const n of [1, 2, 3, 4, 5, 6]) {
      await h.store.commit(n, () => ({ next: storedRow(n, h.clock.now()), changes: [] }));
    }
    // The first poll takes exactly until the next sweep is due.
    h.service.server.on(
      "GET /v1/orders/1/items",
      () => {
        h.clock.advance(MINUTE);
        return json({ items: [], nextCursor: null });
      },
      () => json({ items: [], nextCursor: null }),
    );
    await runFor(h, 2);
    expect(h.clock.sleeps[0]).toBe(0);
    expect(h.service.calls).toEqual([
      "GET /v1/me",
      LIST,
      ...polled(1),
      ...polled(2),
      ...polled(3),
      ...polled(4),
      LIST,
      ...polled(5),
      ...polled(6),
    ]);
  });

  it("an abort during a round of polls ends it between claims, and ends run()", async () => {
    const h = harness({ concurrency: 1, sweepIntervalMs: HOUR, sweepLeaseMs: HOUR });
    await storedDue(
      h,
      [1, 2, 3, 4, 5, 6].map((n) => [n, h.clock.now()]),
    );
    h.service.server.on("GET /v1/orders/1/items", () => {
      h.clock.abort();
      return json({ items: [], nextCursor: null });
    });
    await expect(runFor(h, 100)).resolves.toBeUndefined();
    expect(h.service.calls).toEqual([
      "GET /v1/me",
      ...polled(1),
      ...polled(2),
      ...polled(3),
      ...polled(4),
    ]);
    expect(h.warnings).toEqual([]);
  });
});

describe("run: passes", () => {
  it("hands each sweep's report to onPass, counting what was done since the previous one; a failing onPass does not stop the loop", async () => {
    const h = harness();
    h.service.add(1);
    const passes: SyncReport[] = [];
    const progress: SyncProgress[] = [];
    await runFor(h, 4, {
      onPass: (report: SyncReport) => {
        passes.push(report);
        throw new Error("the caller's handler failed");
      },
      onProgress: (p: SyncProgress) => progress.push(p),
    });
    expect(passes).toEqual([
      expect.objectContaining({ ordersSeen: 1, ordersAdded: 1, itemsReread: 1, requests: 3 }),
      // Two rounds of polls, then a sweep that found the order unchanged.
      expect.objectContaining({ ordersSeen: 1, ordersAdded: 0, itemsReread: 2, requests: 5 }),
    ]);
    expect(progress[0]).toMatchObject({ pages: 1, orders: 1, requests: 3 });
    expect(h.service.count(LIST)).toBe(2);
  });
});

describe("run: failures waited out", () => {
  it("a failing sweep is tried again after 1, 2, 4, 8, 16 min, then every 16 min, each said with its code", async () => {
    const h = harness({ sweepIntervalMs: 10 * HOUR, openOrderIntervalMs: 10 * HOUR });
    h.service.server.on("GET /v1/orders", () => problem(503, "service_unavailable"));
    await runFor(h, 6);
    expect(h.clock.sleeps).toEqual([60, 120, 240, 480, 960, 960].map((s) => s * SECOND));
    const lastTry = h.clock.now() - 960 * SECOND;
    expect(h.warnings).toEqual(
      [60, 120, 240, 480, 960, 960].map(
        (s) => `sweep failed (service_unavailable); the next try is in ${s} s`,
      ),
    );
    const warned = h.lines.find((l) => l.level === "warn");
    expect(warned?.fields).toEqual({
      code: "service_unavailable",
      error: expect.stringContaining("service_unavailable"),
    });
    expect((await h.mirror.status()).lastError).toEqual({
      at: new Date(lastTry).toISOString(),
      code: "service_unavailable",
      message: `sweep failed: ${warned?.fields?.error}`,
    });
  });

  it("a sweep that succeeds resets the backoff; the wait never exceeds the sweep interval", async () => {
    const h = harness({ sweepIntervalMs: 100 * SECOND, openOrderIntervalMs: 10 * HOUR });
    const ok = () => json({ orders: [], nextCursor: null });
    const fail = () => problem(503, "service_unavailable");
    h.service.server.on("GET /v1/orders", fail, fail, ok, fail, fail);
    await runFor(h, 5);
    expect(h.clock.sleeps).toEqual([60, 100, 100, 60, 100].map((s) => s * SECOND));
  });

  it("failing rounds of polls wait 1, 2, 4... s, at most the open-order interval, and a good round resets it", async () => {
    const h = harness({
      sweepIntervalMs: 10 * HOUR,
      sweepLeaseMs: 10 * HOUR,
      openOrderIntervalMs: 30 * SECOND,
    });
    await storedDue(h, [[1, h.clock.now()]]);
    // Rounds 1-6 and 8 fail (the database read-only), round 7 reads.
    h.overrides.claimDue = (...args) => {
      if (h.clock.sleeps.length === 6) return h.real.claimDue(...args);
      return Promise.reject(new Error("attempt to write a readonly database"));
    };
    await runFor(h, 8);
    expect(h.clock.sleeps).toEqual([1, 2, 4, 8, 16, 30, 30, 1].map((s) => s * SECOND));
    expect(h.warnings).toEqual(
      [1, 2, 4, 8, 16, 30, 1].map(
        (s) => `open-order polls failed (Error); they are tried again in ${s} s`,
      ),
    );
    expect(h.service.calls).toEqual(["GET /v1/me", ...polled(1)]);
  });

  it("failing rounds of polls wait at most 64 s", async () => {
    const h = harness({ sweepIntervalMs: 10 * HOUR, sweepLeaseMs: 10 * HOUR });
    await storedDue(h, [[1, h.clock.now()]]);
    h.overrides.claimDue = () => Promise.reject(new Error("disk full"));
    await runFor(h, 8);
    expect(h.clock.sleeps).toEqual([1, 2, 4, 8, 16, 32, 64, 64].map((s) => s * SECOND));
  });

  it("a warning keeps 300 characters of the error's message; the last error says what failed", async () => {
    const h = harness({ sweepIntervalMs: 10 * HOUR, sweepLeaseMs: 10 * HOUR });
    await storedDue(h, [[1, h.clock.now()]]);
    h.overrides.claimDue = () => Promise.reject(new Error("y".repeat(400)));
    await runFor(h, 1);
    expect(h.lines.find((l) => l.level === "warn")?.fields).toEqual({
      code: "Error",
      error: "y".repeat(300),
    });
    expect((await h.mirror.status()).lastError).toEqual({
      at: new Date(h.clock.now() - SECOND).toISOString(),
      code: "Error",
      message: `open-order polls failed: ${"y".repeat(300)}`,
    });
  });

  it("a poll schedule that cannot be read is read again in 5 s", async () => {
    const h = harness({ sweepIntervalMs: 10 * HOUR });
    h.overrides.nextDue = () => Promise.reject(new Error("database is locked"));
    await runFor(h, 1);
    expect(h.clock.sleeps).toEqual([5 * SECOND]);
    expect(h.warnings).toEqual([
      "open-order polls failed (Error); they are tried again in 1 s",
      "reading the poll schedule failed (Error); trying again in 5 s",
    ]);
  });

  it("a transient start failure is waited out: 1, 2, 4 s, then the loop runs", async () => {
    const h = harness();
    const down = () => problem(503, "service_unavailable");
    h.service.server.on("GET /v1/me", down, down, down, () =>
      json({ partnerId: "partner-7", grantedSiteIds: [101], scopes: [] }),
    );
    await runFor(h, 4);
    expect(h.clock.sleeps).toEqual([1 * SECOND, 2 * SECOND, 4 * SECOND, 5 * MINUTE]);
    expect(h.warnings).toEqual(
      [1, 2, 4].map(
        (s) => `starting the mirror failed (service_unavailable); trying again in ${s} s`,
      ),
    );
    expect(h.service.calls).toEqual(Array(4).fill("GET /v1/me").concat([LIST]));
  });

  it("start retries wait at most a minute, and an abort while waiting ends run() without a sweep", async () => {
    const h = harness();
    h.service.server.on("GET /v1/me", () => problem(503, "service_unavailable"));
    await expect(runFor(h, 8)).resolves.toBeUndefined();
    expect(h.clock.sleeps).toEqual([1, 2, 4, 8, 16, 32, 60, 60].map((s) => s * SECOND));
    expect(h.service.count(LIST)).toBe(0);
  });
});

describe("run: aborted while something fails", () => {
  it("a sweep that fails because the loop was stopped is not warned of", async () => {
    const h = harness();
    h.service.server.on("GET /v1/orders", () => {
      h.clock.abort();
      return problem(503, "service_unavailable");
    });
    await expect(runFor(h, 100)).resolves.toBeUndefined();
    expect(h.warnings).toEqual([]);
    expect(h.clock.sleeps).toEqual([]);
  });

  it("a round of polls that fails as the loop is stopped is not warned of", async () => {
    const h = harness({ sweepIntervalMs: HOUR, sweepLeaseMs: HOUR });
    await storedDue(h, [[1, h.clock.now()]]);
    h.overrides.claimDue = () => {
      h.clock.abort();
      return Promise.reject(new Error("database is locked"));
    };
    await expect(runFor(h, 100)).resolves.toBeUndefined();
    expect(h.warnings).toEqual([]);
  });
});

describe("run: errors no retry can fix end it", () => {
  it("a credential without the orders scope, after a transient failure, ends run() with its code and hint", async () => {
    const h = harness();
    h.service.server.on(
      "GET /v1/orders",
      () => problem(503, "service_unavailable"),
      () => problem(403, "insufficient_scope"),
    );
    // No signal: only the fatal error ends it.
    const error = (await h.mirror.run().catch((e: unknown) => e)) as MirrorError;
    expect(error).toBeInstanceOf(MirrorError);
    expect(error.code).toBe("insufficient_scope");
    expect(error.message).toMatch(/^The mirror stops: /);
    expect(error.hint).toMatch(/orders:read/);
    expect(h.clock.sleeps).toEqual([MINUTE]);
    expect(h.warnings).toEqual(["sweep failed (service_unavailable); the next try is in 60 s"]);
    expect(h.lines.filter((l) => l.level === "error")).toEqual([
      { level: "error", message: error.message, fields: { code: "insufficient_scope" } },
    ]);
    expect((await h.mirror.status()).lastError).toEqual({
      at: new Date(h.clock.now()).toISOString(),
      code: "insufficient_scope",
      message: error.message,
    });
  });

  it("a poll refused for a missing scope ends run(), after a round that failed and was waited out", async () => {
    const h = harness({ sweepIntervalMs: HOUR, sweepLeaseMs: HOUR });
    await storedDue(h, [[1, h.clock.now()]]);
    h.overrides.claimDue = (...args) => {
      if (h.clock.sleeps.length === 0) return Promise.reject(new Error("database is locked"));
      return h.real.claimDue(...args);
    };
    h.service.server.on("GET /v1/orders/1/items", () => problem(403, "insufficient_scope"));
    // No signal: only the fatal error ends it.
    await expect(h.mirror.run()).rejects.toMatchObject({ code: "insufficient_scope" });
    expect(h.clock.sleeps).toEqual([SECOND]);
    expect(h.warnings).toEqual(["open-order polls failed (Error); they are tried again in 1 s"]);
  });

  it("a credential refused while a sweep reads its orders ends run()", async () => {
    const h = harness();
    h.service.add(1).add(2);
    h.service.server.on("GET /v1/orders/2/items", () => problem(401, "invalid_token"));
    const error = (await runFor(h, 20).catch((e: unknown) => e)) as MirrorError;
    expect(error).toMatchObject({
      code: "invalid_token",
      message: expect.stringMatching(/^The mirror stops: /),
    });
    expect(h.clock.sleeps).toEqual([]);
    expect(h.warnings).toEqual([]);
    expect((await h.mirror.status()).lastError).toMatchObject({ code: "invalid_token" });
  });

  it("a store of another account ends run() at its start", async () => {
    const h = harness();
    await h.store.open();
    await h.store.claimAccount({ partnerId: "someone-else", baseUrl: "https://api.test" });
    await expect(runFor(h, 3)).rejects.toMatchObject({ code: "store_account_mismatch" });
    expect(h.clock.sleeps).toEqual([]);
    expect(h.service.count(LIST)).toBe(0);
  });

  it("a closed mirror refuses to run", async () => {
    const h = harness();
    await h.mirror.close();
    await expect(h.mirror.run()).rejects.toMatchObject({ code: "mirror_closed" });
  });
});
