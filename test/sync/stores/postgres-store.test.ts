import {
  MIRROR_SCHEMA_VERSION,
  MirrorError,
  type MirrorStore,
  postgresStore,
  SchemaVersionError,
  StoreAccountError,
  StoreUnavailableError,
} from "partner-orders/sync";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { STREAM } from "../../../src/sync/stores/schema";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../../support/postgres.js";
import {
  record,
  row,
  V1_POSTGRES_SCHEMA,
  V2_ORDERS,
  V2_POSTGRES_SCHEMA,
  v2Rows,
} from "./support.js";

/** The PostgreSQL store's tables: schema versions, migration, refusals, and one schema per account. */
const available = postgresAvailable();

describe.runIf(available)("postgresStore's schema", () => {
  let server: PostgresServer;
  let database: TestDatabase;
  let admin: pg.Client;
  const stores: MirrorStore[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await admin?.end();
    await database?.drop();
  });
  async function fresh(): Promise<void> {
    database = await server.createDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  }
  function store(...args: Parameters<typeof postgresStore>): MirrorStore {
    const made = postgresStore(...args);
    stores.push(made);
    return made;
  }

  it("migrates a version 1 database forward with its data, while older processes can still write their lease", async () => {
    await fresh();
    await admin.query(V1_POSTGRES_SCHEMA);
    await admin.query(
      "INSERT INTO po_orders VALUES (100001, 12, $1, '[]', '[]', false, false, 1767225600000, 3)",
      [JSON.stringify({ orderNumber: 100001, siteId: 12, status: "Open", closed: false })],
    );
    await admin.query(
      "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload) VALUES ('order.unresolvable', 100001, 12, '2026-01-01T00:00:00.000Z', 'sweep', '{}')",
    );
    await admin.query("INSERT INTO po_consumers VALUES ('billing', 1)");
    await admin.query("INSERT INTO po_leases VALUES ('sweep', 'old-holder', 1767225660000)");

    // Three processes open it at once: one migrates, the others find it migrated.
    const [s] = [store(database.url), store(database.url), store(database.url)];
    await Promise.all(stores.map((x) => x.open()));
    const version = await admin.query("SELECT value FROM po_meta WHERE name = 'schema_version'");
    expect(version.rows).toEqual([{ value: String(MIRROR_SCHEMA_VERSION) }]);
    expect(await s?.info()).toEqual({ schemaVersion: MIRROR_SCHEMA_VERSION, account: null });
    expect(await s?.get(100001)).toMatchObject({ orderNumber: 100001, seenInSweep: 3 });
    expect((await s?.changesAfter(0, 10))?.map((c) => c.type)).toEqual(["order.unresolvable"]);
    expect(await s?.consumers()).toEqual([{ name: "billing", position: 1 }]);
    const lease = await s?.leaseHolder("sweep");
    expect(lease).toMatchObject({ holder: "old-holder", expiresAt: 1767225660000 });
    expect(lease?.since).toBeGreaterThan(0);
    // A process of the older version still writes its lease as it did.
    await admin.query(
      `INSERT INTO po_leases (name, holder, expires_at) VALUES ('other', 'old', 1)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`,
    );
    expect((await record(s as MirrorStore, 100002)).map((c) => c.type)).toEqual(["order.added"]);
  });

  it("migrates a version 2 database to version 3: jsonb payloads, typed columns and external ids filled from its JSON", async () => {
    await fresh();
    await admin.query(V2_POSTGRES_SCHEMA);
    for (const o of V2_ORDERS)
      await admin.query("INSERT INTO po_orders VALUES ($1, $2, $3, $4, '[]', $5, false, NULL, 1)", [
        o.orderNumber,
        o.siteId,
        JSON.stringify(o.order),
        JSON.stringify(o.items),
        o.order.closed,
      ]);
    await admin.query(
      `INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload)
       VALUES ('order.added', 100001, 12, '2026-01-01T00:00:00.000Z', 'sweep', $1)`,
      [JSON.stringify({ order: V2_ORDERS[0].order })],
    );
    const s = store(database.url);
    await s.open();
    expect(await s.info()).toEqual({ schemaVersion: 3, account: null });
    const types = await admin.query(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE (table_name = 'po_orders' AND column_name IN ('data', 'items', 'shipments', 'status', 'updated_on', 'total', 'partner_order_id'))
          OR (table_name = 'po_changes' AND column_name = 'payload')
       ORDER BY table_name, column_name`,
    );
    expect(types.rows).toEqual([
      { table_name: "po_changes", column_name: "payload", data_type: "jsonb" },
      { table_name: "po_orders", column_name: "data", data_type: "jsonb" },
      { table_name: "po_orders", column_name: "items", data_type: "jsonb" },
      { table_name: "po_orders", column_name: "partner_order_id", data_type: "text" },
      { table_name: "po_orders", column_name: "shipments", data_type: "jsonb" },
      { table_name: "po_orders", column_name: "status", data_type: "text" },
      { table_name: "po_orders", column_name: "total", data_type: "numeric" },
      {
        table_name: "po_orders",
        column_name: "updated_on",
        data_type: "timestamp with time zone",
      },
    ]);
    const rows = await admin.query(
      `SELECT order_number::int AS n, status, to_json(updated_on) AS updated_on, total, partner_order_id,
         data->'totals'->>'order' AS json_total
       FROM po_orders ORDER BY order_number`,
    );
    expect(rows.rows).toEqual([
      {
        n: 100001,
        status: "In Production",
        updated_on: "2026-01-02T08:00:00+00:00",
        total: "0.3000000000",
        partner_order_id: null,
        json_total: "0.3000000000",
      },
      {
        n: 100002,
        status: "Delivered",
        updated_on: null,
        total: "12345678901234.1234567891",
        partner_order_id: null,
        json_total: "12345678901234.1234567891",
      },
    ]);
    // Exact arithmetic in SQL: 0.1 + 0.2 is 0.3, with the service's scale.
    const sum = await admin.query("SELECT SUM(total) AS s FROM po_orders WHERE site_id = 12");
    expect(sum.rows).toEqual([{ s: "0.3000000000" }]);
    const ids = await admin.query(
      "SELECT external_id, order_number::int AS n FROM po_external_ids ORDER BY 1",
    );
    expect(ids.rows).toEqual([
      { external_id: "ext-a", n: 100001 },
      { external_id: "ext-b", n: 100001 },
    ]);
    // Read back through the store as before the migration.
    expect((await s.get(100002))?.order).toEqual(V2_ORDERS[1].order);
    expect((await s.changesAfter(0, 10))[0]).toMatchObject({ type: "order.added", cause: "sweep" });
    expect(
      (await s.orders({ externalId: "ext-b", after: 0, limit: 10 })).map((o) => o.orderNumber),
    ).toEqual([100001]);
    expect(
      (await s.orders({ updatedSince: "2026-01-02T08:00:00.000Z", after: 0, limit: 10 })).map(
        (o) => o.orderNumber,
      ),
    ).toEqual([100001]);
  });

  it("migrates a version 2 database whose first sweep had ended: its changes are not the snapshot, nor what comes next", async () => {
    await fresh();
    await admin.query(V2_POSTGRES_SCHEMA + v2Rows(true));
    const s = store(database.url);
    await s.open();
    expect(await s.info()).toEqual({ schemaVersion: 3, account: null });
    expect((await s.changesAfter(0, 10)).map((c) => [c.id, c.snapshot])).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(await s.getCheckpoint(STREAM.snapshotComplete)).toBe("2");
    expect(await s.consumers()).toEqual([{ name: "billing", position: 1 }]);
    expect((await record(s, 100002))[0]).toMatchObject({ id: 3, snapshot: false });
    const version = await admin.query("SELECT value FROM po_meta WHERE name = 'schema_version'");
    expect(version.rows).toEqual([{ value: "3" }]);
  });

  it("migrates a version 2 database in the middle of its first sweep: what the sweep wrote so far is the snapshot", async () => {
    await fresh();
    await admin.query(V2_POSTGRES_SCHEMA + v2Rows(false));
    // Two processes open it at once: one migrates, the other finds it migrated.
    const [s] = [store(database.url), store(database.url)];
    await Promise.all(stores.map((x) => x.open()));
    expect((await s?.changesAfter(0, 10))?.map((c) => [c.cause, c.snapshot])).toEqual([
      ["sweep", true],
      ["webhook", false],
    ]);
    const [next] = await (s as MirrorStore).commit(100003, () => ({
      next: row(100003),
      changes: [
        {
          type: "order.added",
          orderNumber: 100003,
          siteId: 12,
          observedAt: "2026-01-01T00:02:00.000Z",
          cause: "sweep",
        } as never,
      ],
    }));
    expect(next).toMatchObject({ id: 3, snapshot: true });
  });

  it("a migration that fails part-way leaves the version 2 database as it was; version 4 is refused", async () => {
    await fresh();
    await admin.query(`${V2_POSTGRES_SCHEMA + v2Rows(true)} DROP TABLE po_checkpoints;`);
    await expect(store(database.url).open()).rejects.toMatchObject({ code: "store_open_failed" });
    const version = await admin.query("SELECT value FROM po_meta WHERE name = 'schema_version'");
    expect(version.rows).toEqual([{ value: "2" }]);
    const columns = await admin.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'po_changes' AND column_name = 'snapshot'",
    );
    expect(columns.rows).toEqual([]);

    await admin.query("UPDATE po_meta SET value = '4' WHERE name = 'schema_version'");
    await expect(store(database.url).open()).rejects.toMatchObject({
      code: "schema_too_new",
      found: 4,
      supported: 3,
    });
  });

  it("refuses a database of a newer version, naming both versions and the database without its password", async () => {
    await fresh();
    await store(database.url).open();
    await admin.query("UPDATE po_meta SET value = '99' WHERE name = 'schema_version'");
    const url = database.url.replace("postgres@", "postgres:hunter2-secret@");
    const refused = await store(url)
      .open()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaVersionError);
    expect(refused).toMatchObject({ found: 99, supported: MIRROR_SCHEMA_VERSION });
    expect((refused as Error).message).toContain(database.name);
    expect((refused as Error).message).not.toContain("hunter2");
    expect((refused as Error).message).toContain("[redacted]");
  });

  it("refuses a table whose column was renamed, naming the table and the column", async () => {
    await fresh();
    const s = store(database.url);
    await s.open();
    await record(s, 1);
    await admin.query("ALTER TABLE po_orders RENAME COLUMN data TO body");
    await expect(store(database.url).open()).rejects.toMatchObject({
      code: "schema_mismatch",
      message: expect.stringMatching(/po_orders has no column data/),
    });
  });

  it("keeps each account's tables in its own schema of one database", async () => {
    await fresh();
    const a = store(database.url, { schema: "partner_a" });
    // Quoted exactly as given: capitals, a space and a double quote are part of the name.
    const b = store(database.url, { schema: 'Partner "B"' });
    await a.open();
    await b.open();
    await a.claimAccount({ partnerId: "p_a", baseUrl: "https://x.example" });
    await b.claimAccount({ partnerId: "p_b", baseUrl: "https://x.example" });
    await record(a, 1);
    await record(b, 2);
    await record(b, 3);
    expect((await a.changesAfter(0, 10)).map((c) => c.orderNumber)).toEqual([1]);
    expect((await b.changesAfter(0, 10)).map((c) => c.orderNumber)).toEqual([2, 3]);
    await expect(
      a.claimAccount({ partnerId: "p_b", baseUrl: "https://x.example" }),
    ).rejects.toBeInstanceOf(StoreAccountError);
    const schemas = await admin.query(
      "SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_name = 'po_orders' ORDER BY 1",
    );
    expect(schemas.rows).toEqual([{ table_schema: 'Partner "B"' }, { table_schema: "partner_a" }]);
    // Nothing in the default schema.
    expect((await admin.query("SELECT to_regclass('po_orders') AS t")).rows).toEqual([{ t: null }]);
    // One holder per schema: the sweep of one account does not block the other's.
    expect(await a.lease("sweep", "h1", 0, 60_000)).toBe(true);
    expect(await b.lease("sweep", "h2", 0, 60_000)).toBe(true);
  });

  it("refuses a schema name PostgreSQL would not take, before any statement", () => {
    for (const schema of ["", "pg_mirror", "a".repeat(64), "bad\u0000name", "line\nbreak"]) {
      expect(() => postgresStore("postgres://localhost/x", { schema })).toThrow(
        /schema must be a PostgreSQL schema name/,
      );
    }
    expect(() => postgresStore("")).toThrow(/connection string or a pg.Pool/);
  });

  it("names the store without its password when the server cannot be reached or the database is missing", async () => {
    await fresh();
    // A port nothing listens on: the connection is refused twice.
    const closed = "postgres://mirror:hunter2-secret@127.0.0.1:1/orders";
    const unreachable = await store(closed)
      .open()
      .catch((error: unknown) => error);
    expect(unreachable).toBeInstanceOf(StoreUnavailableError);
    expect(unreachable).toMatchObject({ code: "store_unavailable" });
    expect((unreachable as Error).message).toContain("127.0.0.1:1/orders");
    expect((unreachable as Error).message).not.toContain("hunter2");

    const missing = `${database.url.replace("postgres@", "postgres:hunter2-secret@")}_nope`;
    const refused = await store(missing)
      .open()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MirrorError);
    expect(refused).toMatchObject({ code: "store_open_failed" });
    expect((refused as Error).message).toContain(`${database.name}_nope`);
    expect((refused as Error).message).not.toContain("hunter2");
  });
});
