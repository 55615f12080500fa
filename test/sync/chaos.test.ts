import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChaosResult, missedOrRepeated, reported, runChaos } from "../support/chaos.js";
import { type PostgresServer, postgresAvailable, startPostgres } from "../support/postgres.js";

/**
 * Correctness under chaos (issue: the order mirror), at a size the suite can afford: a simulated day
 * in 15-minute steps. `npm run bench:sync` runs the same at the size.
 */
function expectConverged(result: ChaosResult) {
  expect(result.resumedWithCursor).toBe(true);

  // Field by field, every order the service lists.
  for (const { orderNumber, mirrored, served } of result.compared) {
    expect(mirrored, `order ${orderNumber}`).toEqual({
      ...(served as object),
      unresolvable: false,
    });
  }
  const h = result.history;
  expect(h.shipped.length).toBeGreaterThan(20);
  expect(h.hidden.length).toBeGreaterThan(0);
  for (const hidden of result.hiddenInMirror) expect(hidden?.unresolvable).toBe(true);

  // Every change of the world reported exactly once; nothing flagged but by a 404.
  expect(missedOrRepeated(result)).toEqual([]);
  // Nothing invented: no shipment or line change on the world's orders that the world did not make.
  const r = reported(result.outbox);
  const worldOrders = new Set(h.placed.map(String));
  const ours = (m: Map<string, number>) =>
    [...m.keys()].filter((k) => worldOrders.has(k.split(":")[0] as string)).sort();
  expect(ours(r.shipped)).toEqual([...h.shipped].sort());
  expect(ours(r.cancelled)).toEqual([...h.cancelled].sort());

  // A consumer reads every change once, in id order.
  expect(result.consumed).toEqual(result.outbox.map((row) => row.id));
}

describe("the mirror under chaos", () => {
  it("converges on the service and reports every change once", async () => {
    expectConverged(
      await runChaos({ orders: 120, steps: 96, stepMs: 15 * 60_000, changesPerStep: 3 }),
    );
  }, 240_000);
});

describe.runIf(postgresAvailable())("three processes on PostgreSQL under chaos", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("converge on the service and report every change once", async () => {
    const database = await server.createDatabase();
    try {
      expectConverged(
        await runChaos({
          orders: 60,
          steps: 48,
          stepMs: 15 * 60_000,
          changesPerStep: 3,
          workers: 3,
          postgresUrl: database.url,
        }),
      );
    } finally {
      await database.drop();
    }
  }, 240_000);
});
