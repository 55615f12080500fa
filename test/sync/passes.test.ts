import { afterEach, describe, expect, it } from "vitest";
import { quiet, recorder } from "../support/logger.js";
import { type Setup, settle, setupWith } from "./support.js";

/** Bounded passes: a round of polls slower than the interval still ends, and sweeps still run. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A service whose every request takes `ms` of the sandbox's time once `slow` is set. */
function slowService(options: Parameters<typeof setupWith>[0], ms: number) {
  const state = { slow: false };
  const s = setupWith(options, (_request, sandbox) => {
    if (state.slow) sandbox.clock.advance(ms);
    return undefined;
  });
  cleanups.push(
    () => s.mirror.close(),
    () => s.sandbox.close(),
  );
  return { s, state };
}

const shipmentReads = (s: Setup) => {
  const perOrder = new Map<string, number>();
  for (const r of s.sandbox.requests.filter((q) => q.path.endsWith("/shipments")))
    perOrder.set(r.path, (perOrder.get(r.path) ?? 0) + 1);
  return perOrder;
};

describe("a pass of open-order polls", () => {
  it("ends when a round takes longer than the interval, reading each due order once", async () => {
    const { s, state } = slowService({ openOrderIntervalMs: 800, logger: quiet }, 150);
    await s.mirror.sync();
    s.sandbox.clock.advance(1_000);
    state.slow = true;
    s.sandbox.resetCounters();
    // Each order's two reads take 300 ms, so the round outlasts the interval many times over; a
    // pass that claimed again whatever came due would never end.
    const report = await s.mirror.sync();
    // One read per order: as many reads reported as distinct orders read (an order's shipments
    // may take several pages, so requests are not counted).
    const reads = shipmentReads(s);
    expect(reads.size).toBeGreaterThan(100);
    expect(report.shipmentsReread).toBe(reads.size);
  }, 60_000);

  it("in run(), a due sweep goes first, and a process that cannot keep up says so with the numbers", async () => {
    const log = recorder();
    const { s, state } = slowService(
      { openOrderIntervalMs: 800, sweepIntervalMs: 20_000, logger: log },
      150,
    );
    await s.mirror.sync();
    state.slow = true;
    s.sandbox.resetCounters();
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    const sweeps = () =>
      s.sandbox.requests.filter((r) => r.path === "/v1/orders" && !r.search.includes("cursor"))
        .length;
    // Requests move time; when the mirror waits, time is moved for it.
    for (let i = 0; i < 20_000 && sweeps() < 3; i++) {
      await settle(5);
      s.sandbox.clock.advance(10);
    }
    abort.abort();
    await running;
    // Three sweeps began while polls were always behind (each round needs about 60 s).
    expect(sweeps()).toBeGreaterThanOrEqual(3);
    const behind = log.calls.find(
      (c) => c[0] === "warn" && String(c[1]).includes("cannot keep up"),
    );
    expect(behind).toBeDefined();
    const message = String(behind?.[1]);
    const open = (await s.mirror.status()).openOrders;
    expect(message).toContain(`${open} open orders need about ${open * 2} requests every 0.8 s`);
    expect(message).toMatch(/this process made [\d.]+\/s/);
    expect(message).toMatch(/Raise openOrderIntervalMs to at least \d+ s/);
    expect(behind?.[2]).toMatchObject({ code: "falling_behind", openOrders: open });
  }, 120_000);
});
