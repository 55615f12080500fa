import {
  type MirrorStore,
  type PgPoolLike,
  postgresStore,
  SchemaVersionError,
} from "partner-orders/sync";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { lockKey } from "../../../src/sync/stores/postgres-schema";
import { postgresAvailable, usePostgres } from "../../support/postgres.js";
import { record, row } from "./support.js";

/**
 * The PostgreSQL store's own calls against a real server: what it accepts, its life before open
 * and after close, the pool it owns or is given, the advisory lock keys of a schema, the polls it
 * hands out and the sweep's marks.
 */
const available = postgresAvailable();
const NOW = Date.UTC(2026, 0, 1);

describe("postgresStore's arguments", () => {
  it("refuses what is neither a connection string nor a pool", () => {
    for (const pool of [{}, undefined, null, 42, { connect: "no" }]) {
      expect(() => postgresStore(pool as never)).toThrow(PartnerOrdersError);
      expect(() => postgresStore(pool as never)).toThrow(/connection string or a pg\.Pool/);
    }
  });
});

describe.runIf(available)("the PostgreSQL store's calls", () => {
  const pg$ = usePostgres();
  function store(...args: Parameters<typeof postgresStore>): MirrorStore {
    const made = postgresStore(...args);
    pg$.closeAfter(() => made.close());
    return made;
  }
  function poolOf(url: string): pg.Pool {
    const pool = new pg.Pool({ connectionString: url });
    pool.on("error", () => undefined);
    pg$.closeAfter(() => pool.end());
    return pool;
  }

  /** Waits until another session waits for an advisory lock, and answers its key. */
  async function waitingKey(admin: pg.Client, call: Promise<unknown>): Promise<string> {
    let settled = false;
    call.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 100_000; i++) {
      const { rows } = await admin.query(
        "SELECT (classid::bigint << 32 | objid::bigint)::text AS key FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      if (rows[0]) return (rows[0] as { key: string }).key;
      if (settled) throw new Error("the call ended without waiting for the lock");
    }
    throw new Error("the call never waited for the lock");
  }

  it("a store made from a connection string is not open before open() nor after close()", async () => {
    const { url } = await pg$.createDatabase();
    const s = store(url);
    const notOpen = /The PostgreSQL store is not open: call mirror\.sync\(\) or run\(\) first\./;
    await expect(s.get(1)).rejects.toThrow(notOpen);
    await s.open();
    expect(await s.get(1)).toBeUndefined();
    await s.close();
    await expect(s.get(1)).rejects.toThrow(notOpen);
    // Opened again, it makes a new pool; closed twice, the second close has nothing to end.
    await s.open();
    expect(await s.lastChangeId()).toBe(0);
    await s.close();
    await s.close();
  });

  it("a database that cannot be opened is named without its password, with a hint and the cause", async () => {
    const { url } = await pg$.createDatabase();
    const missing = `${url.replace("postgres@", "postgres:hunter2-secret@")}_nope`;
    const refused = (await store(missing)
      .open()
      .catch((error: unknown) => error)) as Error & { code: string; hint: string; cause: unknown };
    expect(refused.code).toBe("store_open_failed");
    const shown = `${url.replace("postgres@", "postgres:[redacted]@")}_nope`;
    const name = shown.slice(shown.lastIndexOf("/") + 1);
    expect(refused.message).toBe(
      `PostgreSQL ${shown} could not be opened: database "${name}" does not exist. Check the connection string, the role's rights and the database.`,
    );
    expect(refused.hint).toBe("Check the connection string, the role's rights and the database.");
    expect((refused.cause as { code?: string }).code).toBe("3D000");
  });

  it("a pool it is given stays the caller's: open after close, and named as given in messages", async () => {
    const { url } = await pg$.createDatabase();
    const pool = poolOf(url);
    const s = store(pool as unknown as PgPoolLike, { schema: "partner_a" });
    await s.open();
    await s.close();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await pool.query("UPDATE partner_a.po_meta SET value = '99' WHERE name = 'schema_version'");
    const refused = await store(pool as unknown as PgPoolLike, { schema: "partner_a" })
      .open()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaVersionError);
    expect((refused as Error).message).toContain(
      'PostgreSQL (the pool given to postgresStore), schema "partner_a"',
    );
  });

  it("an idle connection the server ends is not fatal: the next call runs on a new one", async () => {
    const { url } = await pg$.createDatabase();
    const admin = await pg$.connect(url);
    const s = store(url);
    await s.open();
    await record(s, 1);
    const { rows } = await admin.query(
      "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    expect((rows[0] as { n: number }).n).toBeGreaterThan(0);
    // Gone on the server; the pool hears of it on its idle connection, with nobody's call on it.
    for (let i = 0; i < 500; i++) {
      const { rows: left } = await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      if (left.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await s.get(1))?.orderNumber).toBe(1);
  });

  it("a schema's store takes its own advisory locks, derived as every version derives them", async () => {
    const { url } = await pg$.createDatabase();
    const admin = await pg$.connect(url);
    const key = (name: string) => lockKey(`partner_a/${name}`).toString();
    const s = store(url, { schema: "partner_a" });

    await admin.query("SELECT pg_advisory_lock($1::bigint)", [key("open")]);
    const opening = s.open();
    try {
      expect(await waitingKey(admin, opening)).toBe(key("open"));
    } finally {
      await admin.query("SELECT pg_advisory_unlock_all()");
    }
    await opening;

    for (const name of ["order/7", "outbox"]) {
      await admin.query("SELECT pg_advisory_lock($1::bigint)", [key(name)]);
      const writing = record(s, 7, name === "outbox" ? "Shipped" : "Open");
      try {
        expect(await waitingKey(admin, writing)).toBe(key(name));
      } finally {
        await admin.query("SELECT pg_advisory_unlock_all()");
      }
      expect(await writing).toHaveLength(1);
    }

    // Without a schema, the keys every version has used.
    const plain = store(url);
    await admin.query("SELECT pg_advisory_lock(-7311002)");
    const plainOpening = plain.open();
    try {
      expect(await waitingKey(admin, plainOpening)).toBe("-7311002");
    } finally {
      await admin.query("SELECT pg_advisory_unlock_all()");
    }
    await plainOpening;
    expect(await s.lease("sweep", "h1", NOW, NOW + 60_000)).toBe(true);
    expect(await plain.lease("sweep", "h2", NOW, NOW + 60_000)).toBe(true);
    const { rows } = await admin.query(
      "SELECT (classid::bigint << 32 | objid::bigint)::text AS key FROM pg_locks WHERE locktype = 'advisory' AND granted ORDER BY 1",
    );
    expect(rows.map((r: { key: string }) => r.key).sort()).toEqual(
      [key("lease/sweep"), lockKey("/lease/sweep").toString()].sort(),
    );
  });

  it("info() reads a store whose version row is missing as version 1, as opening it would", async () => {
    const { url } = await pg$.createDatabase();
    const admin = await pg$.connect(url);
    const s = store(url);
    await s.open();
    await admin.query("DELETE FROM po_meta WHERE name = 'schema_version'");
    expect(await s.info()).toEqual({ schemaVersion: 1, account: null });
  });

  it("claimDue hands out the soonest due orders, up to the limit, holding them until holdUntil", async () => {
    const { url } = await pg$.createDatabase();
    const s = store(url);
    await s.open();
    const at = (n: number, nextPollAt: number | null) =>
      s.commit(n, () => ({ next: row(n, { nextPollAt }), changes: [] }));
    await at(1, NOW - 1);
    await at(2, NOW - 3);
    await at(3, NOW);
    await at(4, NOW + 1);
    await at(5, null);
    await at(6, NOW - 2);
    await at(7, NOW - 2);
    // The three soonest, soonest first (a tie by order number).
    expect(await s.claimDue(NOW, 3, NOW + 500)).toEqual([2, 6, 7]);
    expect((await s.get(2))?.nextPollAt).toBe(NOW + 500);
    expect((await s.get(3))?.nextPollAt).toBe(NOW);
    expect(await s.claimDue(NOW, 10, NOW + 500)).toEqual([1, 3]);
    expect(await s.claimDue(NOW, 10, NOW + 500)).toEqual([]);
    expect(await s.nextDue()).toBe(NOW + 1);
    expect((await s.get(5))?.nextPollAt).toBeNull();
  });

  it("claimDue answers soonest first however the rows lie", async () => {
    const { url } = await pg$.createDatabase();
    const s = store(url);
    await s.open();
    // Stored in an order unrelated to when each comes due (a multiplicative shuffle of 1..300).
    for (let n = 1; n <= 300; n++) {
      const due = NOW - ((n * 7919) % 300) * 1000;
      await s.commit(n, () => ({ next: row(n, { nextPollAt: due }), changes: [] }));
    }
    const claimed = await s.claimDue(NOW, 120, NOW + 500);
    const dueOf = (n: number) => NOW - ((n * 7919) % 300) * 1000;
    expect(claimed).toHaveLength(120);
    expect(claimed.map(dueOf)).toEqual(claimed.map(dueOf).sort((a, b) => a - b));
    // The 120 soonest: due 299 s down to 180 s before now.
    expect(Math.max(...claimed.map(dueOf))).toBe(NOW - 180_000);
  });

  it("unseen lists orders a sweep did not see (unresolvable ones aside); markSeen marks them", async () => {
    const { url } = await pg$.createDatabase();
    const s = store(url);
    await s.open();
    expect(await s.nextDue()).toBeNull();
    expect(await s.unseen(1)).toEqual([]);
    for (const n of [3, 1, 2, 4])
      await s.commit(n, () => ({ next: row(n, { unresolvable: n === 4 }), changes: [] }));
    expect(await s.unseen(1)).toEqual([1, 2, 3]);
    await s.markSeen([3, 1], 1);
    await s.markSeen([], 1);
    expect(await s.unseen(1)).toEqual([2]);
    expect((await s.get(3))?.seenInSweep).toBe(1);
    expect(await s.unseen(0)).toEqual([1, 3]);
  });
});
