import { type MirrorStore, postgresStore } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { lockKey, validSchema } from "../../../src/sync/stores/postgres-schema";
import { postgresAvailable, usePostgres } from "../../support/postgres.js";
import { record, V2_POSTGRES_SCHEMA } from "./support.js";

/**
 * The PostgreSQL store's schema option and tables: the names it accepts, the advisory lock keys
 * every version derives from them, and what opening a store that is already current does (reads
 * only) or finds missing.
 */
const available = postgresAvailable();

describe("the schema option of postgresStore", () => {
  const refused = (schema: unknown) => () => validSchema(schema);

  it("accepts any name PostgreSQL takes as an identifier, exactly as given", () => {
    for (const schema of ["partner_a", 'Partner "B"', "a".repeat(63), `${"é".repeat(31)}a`, "x"])
      expect(validSchema(schema)).toBe(schema);
  });

  it("refuses what PostgreSQL would not take, naming the name it got (cut short)", () => {
    for (const schema of [
      42,
      undefined,
      "",
      "a".repeat(64),
      "é".repeat(32),
      "tab\there",
      "\u001f",
      "pg_mirror",
      "PG_Mirror",
    ])
      expect(refused(schema)).toThrow(PartnerOrdersError);
    expect(refused("pg_x")).toThrow(
      'postgresStore\'s schema must be a PostgreSQL schema name: 1 to 63 bytes, no control characters, not starting with "pg_" (got "pg_x").',
    );
    const long = (() => {
      try {
        validSchema("b".repeat(200));
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(long).toContain(`(got "${"b".repeat(79)}).`);
    // Names that merely contain the prefix, or a character past the control range, are fine.
    expect(validSchema("my_pg_mirror")).toBe("my_pg_mirror");
    expect(validSchema(" ")).toBe(" ");
  });

  it("derives each schema's advisory lock keys as every version does (FNV-1a, signed 64 bits)", () => {
    // Processes of two versions running side by side must take the same locks.
    expect(lockKey("partner_a/outbox")).toBe(728292605705838036n);
    expect(lockKey("partner_a/open")).toBe(-6993935344833619387n);
    expect(lockKey("partner_a/order/1")).toBe(1860769852726609063n);
    expect(lockKey("partner_a/lease/sweep")).toBe(-3399567881115521806n);
    expect(lockKey("/lease/sweep")).toBe(-7851114796223150032n);
  });
});

describe.runIf(available)("opening a PostgreSQL store", () => {
  const pg$ = usePostgres();
  const stores: MirrorStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  function store(url: string, schema?: string): MirrorStore {
    const made = postgresStore(url, schema === undefined ? {} : { schema });
    stores.push(made);
    return made;
  }

  it("a store already current opens on a read-only connection: it creates, migrates and writes nothing", async () => {
    const { url, name } = await pg$.createDatabase();
    const first = store(url, "partner_a");
    await first.open();
    await record(first, 1);
    const plain = store(url);
    await plain.open();
    const admin = await pg$.connect(url);
    await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    // New sessions are read-only, as on a standby or for a role that may only read.
    for (const reader of [store(url, "partner_a"), store(url)]) {
      await reader.open();
      expect(await reader.info()).toMatchObject({ schemaVersion: 3 });
    }
    expect((await stores[2]?.get(1))?.orderNumber).toBe(1);
  });

  it("creates a missing schema, and opens again in one that exists", async () => {
    const { url } = await pg$.createDatabase();
    const admin = await pg$.connect(url);
    await store(url, "made_here").open();
    await admin.query("CREATE SCHEMA already_there");
    await store(url, "already_there").open();
    await store(url, "made_here").open();
    const { rows } = await admin.query(
      "SELECT table_schema, count(*)::int AS n FROM information_schema.tables WHERE table_name LIKE 'po\\_%' GROUP BY 1 ORDER BY 1",
    );
    expect(rows).toEqual([
      { table_schema: "already_there", n: 8 },
      { table_schema: "made_here", n: 8 },
    ]);
  });

  it("migrates a version 2 database of more orders than one backfill batch: every row filled", async () => {
    const { url } = await pg$.createDatabase();
    const admin = await pg$.connect(url);
    await admin.query(V2_POSTGRES_SCHEMA);
    await admin.query(
      `INSERT INTO po_orders
       SELECT n, 12, json_build_object('orderNumber', n, 'siteId', 12, 'status', 'Open', 'closed', false,
           'totals', json_build_object('order', '1.50'))::text,
         json_build_array(json_build_object('itemNumber', 1, 'externalId', 'ext-' || n))::text,
         '[]', false, false, NULL, 1
       FROM generate_series(1, 2001) AS n`,
    );
    await store(url).open();
    const { rows } = await admin.query(
      `SELECT count(status)::int AS statuses, sum(total)::text AS total,
         (SELECT count(*)::int FROM po_external_ids) AS ids,
         (SELECT count(*)::int FROM po_external_ids WHERE external_id = 'ext-' || order_number) AS matching
       FROM po_orders`,
    );
    expect(rows).toEqual([{ statuses: 2001, total: "3001.50", ids: 2001, matching: 2001 }]);
  });

  it("refuses a lease table missing a column, naming it, in the schema given", async () => {
    const { url } = await pg$.createDatabase();
    const admin = await pg$.connect(url);
    await store(url, "partner_a").open();
    await admin.query("ALTER TABLE partner_a.po_leases RENAME COLUMN since TO started");
    await expect(store(url, "partner_a").open()).rejects.toMatchObject({
      code: "schema_mismatch",
      message: expect.stringMatching(/po_leases has no column since/),
    });
    await admin.query("ALTER TABLE partner_a.po_leases RENAME COLUMN started TO since");
    await admin.query("ALTER TABLE partner_a.po_leases RENAME COLUMN locked TO held");
    await expect(store(url, "partner_a").open()).rejects.toMatchObject({
      code: "schema_mismatch",
      message: expect.stringMatching(/po_leases has no column locked/),
    });
  });
});
