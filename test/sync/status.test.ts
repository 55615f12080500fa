import { afterEach, describe, expect, it } from "vitest";
import { quiet, recorder } from "../support/logger.js";
import { listed, setup, setupWith } from "./support.js";

/** status(): what an operator sees, read from the store. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const MINUTE = 60_000;

describe("mirror.status()", () => {
  it("tells the last sweep, open orders, what is due and how late, and each consumer's lag", async () => {
    const s = setup(":memory:", { logger: quiet });
    cleanups.push(
      () => s.mirror.close(),
      () => s.sandbox.close(),
    );
    const before = await s.mirror.status();
    expect(before).toMatchObject({ lastSweep: null, openOrders: 0, dueNow: 0, consumers: [] });
    expect(before.schemaVersion).toBeGreaterThanOrEqual(1);

    const report = await s.mirror.sync();
    const stored = await Promise.all((await listed(s.client)).map((n) => s.mirror.get(n)));
    const open = stored.filter((o) => o && !o.closed).length;
    const after = await s.mirror.status();
    expect(after.lastSweep).toEqual({
      at: new Date(s.sandbox.clock.now()).toISOString(),
      ok: true,
    });
    expect(after.sweepHolder).toBeNull();
    expect(after.openOrders).toBe(open);
    expect(after.dueNow).toBe(0);
    expect(after.oldestDueLagMs).toBeNull();
    expect(after.account).toEqual({ partnerId: "ptn_sandbox", baseUrl: s.sandbox.baseUrl });

    // Six minutes on, every order read in the sync is due (open ones, and closed ones once more),
    // the oldest a minute late.
    s.sandbox.clock.advance(6 * MINUTE);
    const due = await s.mirror.status();
    expect(due.dueNow).toBe(report.ordersAdded);
    expect(due.oldestDueLagMs).toBe(MINUTE);

    // A consumer that finished three changes trails by the rest.
    const abort = new AbortController();
    let seen = 0;
    for await (const _ of s.mirror.changes({ consumer: "billing", signal: abort.signal })) {
      if (++seen === 4) break; // the fourth is not finished: the position is the third's id
    }
    const [billing] = (await s.mirror.status()).consumers;
    expect(billing?.name).toBe("billing");
    expect(billing?.lagChanges).toBe(report.changesWritten - 3);
    expect(billing?.lagMs).toBe(6 * MINUTE);
  });

  it("names an order kept out as invalid: its number, field and reason, until it reads cleanly", async () => {
    let poison: number | undefined;
    const log = recorder();
    const s = setupWith({ logger: log }, (request, sandbox) => {
      if (new URL(request.url).pathname !== `/v1/orders/${poison}/items`) return undefined;
      void sandbox;
      return Response.json({
        items: [{ orderNumber: poison, itemNumber: 1, lineTotal: "abc", lineListTotal: null }],
        nextCursor: null,
      });
    });
    cleanups.push(
      () => s.mirror.close(),
      () => s.sandbox.close(),
    );
    poison = s.sandbox.admin.placeOrder({ lines: 1 });
    const report = await s.mirror.sync();
    const kept = { orderNumber: poison, field: "items[].lineTotal" };
    expect(report.invalidOrders).toEqual([expect.objectContaining(kept)]);
    expect((await s.mirror.status()).invalidOrders).toEqual([expect.objectContaining(kept)]);
    expect(report.invalidOrders[0]?.reason).toBe("text that is not a plain decimal");
    expect(await s.mirror.get(poison)).toBeUndefined();
    expect(
      log.calls.some((c) => String(c[1]).includes(`order ${poison} kept out: items[].lineTotal`)),
    ).toBe(true);
    // The others are stored.
    expect(report.ordersAdded).toBe(report.ordersSeen - 1);

    // Mended on the service: the next sweep stores it and the entry goes.
    const mended = poison;
    poison = undefined;
    s.sandbox.clock.advance(20 * MINUTE);
    await s.mirror.sync();
    expect(await s.mirror.get(mended)).toBeDefined();
    expect((await s.mirror.status()).invalidOrders).toEqual([]);
  });
});
