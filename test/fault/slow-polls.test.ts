import { expect, it } from "vitest";
import { recorder } from "../support/logger.js";
import { settle, setupWith } from "../sync/support.js";

/**
 * 10,000 open orders on a service where every request takes 150 ms: a round of polls needs about
 * 3,000 s, the interval is 5 min. The mirror cannot keep up, and must say so with the numbers; its
 * poll passes still end, and its sweeps (every 10 min) still run, first.
 */
it("10,000 open orders with polls slower than the interval: passes end, sweeps run, the warning names the numbers", async () => {
  const log = recorder();
  const s = setupWith(
    { openOrderIntervalMs: 5 * 60_000, sweepIntervalMs: 10 * 60_000, logger: log },
    (_request, sandbox) => {
      sandbox.clock.advance(150);
      return undefined;
    },
  );
  for (let i = 0; i < 10_000; i++) s.sandbox.admin.placeOrder({ lines: 1 });
  const abort = new AbortController();
  const running = s.mirror.run({ signal: abort.signal });
  const sweepStarts = () =>
    s.sandbox.requests.filter((r) => r.path === "/v1/orders" && !r.search.includes("cursor"))
      .length;
  // Requests move time; when the mirror sleeps, time is moved for it.
  for (let i = 0; i < 200_000 && sweepStarts() < 4; i++) {
    await settle(5);
    s.sandbox.clock.advance(10);
  }
  abort.abort();
  await running;
  expect(sweepStarts()).toBeGreaterThanOrEqual(4);
  const status = await s.mirror.status();
  expect(status.openOrders).toBeGreaterThan(10_000);
  // Behind: orders wait far longer than one interval past their time.
  expect(status.oldestDueLagMs).toBeGreaterThan(5 * 60_000);
  const behind = log.calls.find((c) => String(c[1]).includes("cannot keep up"));
  const open = (behind?.[2] as { openOrders: number } | undefined)?.openOrders ?? 0;
  expect(open).toBeGreaterThan(10_000);
  expect(String(behind?.[1])).toContain(
    `${open} open orders need about ${open * 2} requests every 300 s`,
  );
  // Each request moves time 150 ms, whatever else is in flight: about 7 requests a second.
  const achieved = (behind?.[2] as { achievedPerSecond?: number } | undefined)?.achievedPerSecond;
  expect(achieved).toBeGreaterThan(5);
  expect(achieved).toBeLessThan(8);
  await s.mirror.close();
  await s.sandbox.close();
}, 300_000);
