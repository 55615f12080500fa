import { PartnerOrders } from "partner-orders";
import {
  OrderMirror,
  postgresStore,
  StoreUnavailableError,
  SweepHeldError,
} from "partner-orders/sync";
import { createSandbox, createWorld } from "partner-orders/testing";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { postgresAvailable, type TestDatabase, usePostgres } from "../support/postgres.js";
import { truth } from "../sync/support.js";

/**
 * A real OrderMirror on a real PostgreSQL whose connections keep being terminated, and whose server
 * restarts once, while the world changes and the mirror syncs. Nothing may crash the process; a
 * pass may fail only with a typed store error (or its sweep lost with its connection), and once the
 * faults stop the mirror converges with no change recorded twice.
 */
const available = postgresAvailable();
const SITE = 103;
const MINUTE = 60_000;

describe.runIf(available)("a mirror on PostgreSQL while its connections fail", () => {
  const postgres = usePostgres();
  let database: TestDatabase;
  beforeAll(async () => {
    database = await postgres.createDatabase();
  });

  it("rides out terminated backends and a server restart, then converges with each change recorded once", async () => {
    const uncaught: unknown[] = [];
    let warned = 0;
    const onUncaught = (error: unknown) => void uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);

    const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
    const world = createWorld(sandbox, { seed: 5, siteIds: [SITE] });
    await world.place(10);
    const client = new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      fetch: sandbox.fetch,
      clock: new FakeClock(),
    });
    const mirror = new OrderMirror({
      client,
      store: postgresStore(database.url),
      clock: sandbox.clock,
      siteIds: [SITE],
      openOrderIntervalMs: 5 * MINUTE,
      logger: { debug() {}, info() {}, warn: () => void warned++, error: () => void warned++ },
    });
    const admin = new pg.Client({ connectionString: database.url });
    admin.on("error", () => undefined);
    try {
      await mirror.get(1); // opens the store
      await admin.connect();
      let faults = true;
      let terminated = 0;
      const terminator = (async () => {
        while (faults) {
          const { rows } = await admin.query(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
          );
          terminated += (rows[0] as { n: number }).n;
          await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 30));
        }
      })();

      const failures: unknown[] = [];
      for (let round = 0; round < 12; round++) {
        await world.step(4);
        sandbox.clock.advance(5 * MINUTE);
        await mirror.sync().catch((error: unknown) => failures.push(error));
      }
      faults = false;
      await terminator;
      await admin.end();
      expect(terminated).toBeGreaterThan(5);
      // The faults met the mirror's work: passes failed, or reads were logged as failed.
      expect(failures.length + warned).toBeGreaterThan(0);

      // The server restarts: while it is down a pass fails with the typed error, then passes work.
      let whileDown: unknown;
      await postgres.server.restart(async () => {
        whileDown = await mirror.sync().catch((error: unknown) => error);
      });
      expect(whileDown).toBeInstanceOf(StoreUnavailableError);
      expect((whileDown as Error).message).toContain(database.name);

      for (const failure of failures) {
        // The only process here: a pass never reports the sweep held by another, not even when
        // its own session died holding it (the lease still names this mirror, so it takes it anew).
        expect(failure).not.toBeInstanceOf(SweepHeldError);
        const typed =
          failure instanceof StoreUnavailableError ||
          /taken over by another process/.test((failure as Error).message);
        expect(typed, String(failure)).toBe(true);
      }

      await world.step(4);
      sandbox.clock.advance(5 * MINUTE);
      await mirror.sync();
      // Every order the service lists is mirrored exactly.
      for (const orderNumber of world.history.placed.filter(
        (n) => !world.history.hidden.includes(n),
      )) {
        expect(await mirror.get(orderNumber)).toEqual({
          ...(await truth(client, orderNumber)),
          unresolvable: false,
        });
      }
      const check = new pg.Client({ connectionString: database.url });
      await check.connect();
      const twice = await check.query(
        "SELECT order_number, type FROM po_changes GROUP BY order_number, type, payload HAVING count(*) > 1",
      );
      const added = await check.query(
        "SELECT order_number FROM po_changes WHERE type = 'order.added' GROUP BY order_number HAVING count(*) > 1",
      );
      await check.end();
      expect(twice.rows).toEqual([]);
      expect(added.rows).toEqual([]);
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
      process.off("unhandledRejection", onUncaught);
      await admin.end().catch(() => undefined);
      await mirror.close();
      await sandbox.close();
    }
  }, 60_000);
});
