import { PartnerOrdersError } from "../../core/errors";
import { SchemaVersionError } from "../errors";
import { orderColumnsV3Postgres } from "./order-columns";
import { backfillPostgres } from "./order-postgres";
import type { PgClientLike } from "./pg-connection";
import { changeStreamV3 } from "./pg-stream";
import {
  CONSUMER_GROUP_COLUMNS,
  checkColumns,
  consumerGroupsV3,
  EXPECTED_COLUMNS,
  MIRROR_SCHEMA_VERSION,
} from "./schema";

/** Creates the tables, or migrates an older layout, then checks every column the store uses. */
export async function prepareSchema(
  client: PgClientLike,
  schema: string | undefined,
  t: Record<
    | "orders"
    | "changes"
    | "checkpoints"
    | "consumers"
    | "leases"
    | "meta"
    | "externalIds"
    | "consumerOrders",
    string
  >,
  where: string,
): Promise<void> {
  if (schema !== undefined) {
    const { rows } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    // Created only when missing: CREATE SCHEMA needs a right on the database even when it exists.
    if (rows.length === 0) await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  }
  const found = await schemaVersion(client, t);
  if (found > MIRROR_SCHEMA_VERSION)
    throw new SchemaVersionError(found, MIRROR_SCHEMA_VERSION, where);
  // Each step of the way, in the caller's one transaction.
  if (found === 0) await client.query(createTables(t));
  else if (found === 1) await client.query(migrateFromOne(t));
  // Each later step, for a new database as for an older one, then the version it reached.
  if (found < 3) {
    await client.query(orderColumnsV3Postgres(t));
    await backfillPostgres(client, t);
    await client.query(changeStreamV3(t));
    await client.query(consumerGroupsV3("postgres", t));
  }
  if (found < MIRROR_SCHEMA_VERSION)
    await client.query(`UPDATE ${t.meta} SET value = $1 WHERE name = 'schema_version'`, [
      String(MIRROR_SCHEMA_VERSION),
    ]);
  await checkColumns(
    where,
    {
      ...EXPECTED_COLUMNS,
      po_leases: [...(EXPECTED_COLUMNS.po_leases ?? []), "locked"],
      ...CONSUMER_GROUP_COLUMNS,
    },
    async (table) => {
      const { rows } = await client.query(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped",
        [`${schema === undefined ? "" : `${quoteIdent(schema)}.`}${table}`],
      );
      return (rows as { attname: string }[]).map((r) => r.attname);
    },
  );
}

/** 0 for no tables; 1 for tables from before versions were recorded. */
async function schemaVersion(
  client: PgClientLike,
  t: Record<"orders" | "meta", string>,
): Promise<number> {
  const { rows } = await client.query(
    "SELECT to_regclass($1) IS NOT NULL AS meta, to_regclass($2) IS NOT NULL AS orders",
    [t.meta, t.orders],
  );
  const found = rows[0] as { meta: boolean; orders: boolean };
  if (found.meta) {
    const version = await client.query(`SELECT value FROM ${t.meta} WHERE name = 'schema_version'`);
    return Number((version.rows[0] as { value: string } | undefined)?.value ?? 1);
  }
  return found.orders ? 1 : 0;
}

function createTables(t: Record<string, string>): string {
  return `
CREATE TABLE ${t.orders} (
  order_number BIGINT PRIMARY KEY,
  site_id BIGINT NOT NULL,
  data TEXT NOT NULL,
  items TEXT,
  shipments TEXT,
  closed BOOLEAN NOT NULL,
  unresolvable BOOLEAN NOT NULL,
  next_poll_at BIGINT,
  seen_in_sweep BIGINT NOT NULL
);
CREATE INDEX ON ${t.orders} (next_poll_at);
CREATE TABLE ${t.changes} (
  id BIGSERIAL PRIMARY KEY,
  type TEXT NOT NULL,
  order_number BIGINT NOT NULL,
  site_id BIGINT NOT NULL,
  observed_at TEXT NOT NULL,
  cause TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE TABLE ${t.checkpoints} (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE ${t.consumers} (name TEXT PRIMARY KEY, position BIGINT NOT NULL);
CREATE TABLE ${t.leases} (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  since BIGINT NOT NULL DEFAULT ${NOW_MS},
  expires_at BIGINT NOT NULL,
  locked BOOLEAN NOT NULL DEFAULT false
);
${metaTable(t)}`;
}

/**
 * Version 1 to 2. The defaults let a process of the older version, still running during a rolling
 * upgrade, go on writing its lease rows.
 */
function migrateFromOne(t: Record<string, string>): string {
  return `
ALTER TABLE ${t.leases} ADD COLUMN since BIGINT NOT NULL DEFAULT ${NOW_MS};
ALTER TABLE ${t.leases} ADD COLUMN locked BOOLEAN NOT NULL DEFAULT false;
${metaTable(t)}`;
}

function metaTable(t: Record<string, string>): string {
  return `
CREATE TABLE ${t.meta} (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO ${t.meta} (name, value) VALUES ('schema_version', '${MIRROR_SCHEMA_VERSION}');`;
}

/** Epoch milliseconds on the server: a lease row written without a start (by an older version). */
const NOW_MS = "(floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint";

/** A schema name PostgreSQL accepts as an identifier, checked before it reaches any statement. */
export function validSchema(schema: unknown): string {
  if (
    typeof schema !== "string" ||
    schema === "" ||
    Buffer.byteLength(schema, "utf8") > 63 ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    /[\u0000-\u001f]/.test(schema) ||
    schema.toLowerCase().startsWith("pg_")
  ) {
    throw new PartnerOrdersError(
      `postgresStore's schema must be a PostgreSQL schema name: 1 to 63 bytes, no control characters, not starting with "pg_" (got ${JSON.stringify(String(schema)).slice(0, 80)}).`,
    );
  }
  return schema;
}

/** An identifier quoted for SQL: inner quotes doubled, so any name is taken literally. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A 64-bit advisory lock key from a name (FNV-1a): each schema's locks apart from another's. */
export function lockKey(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(`partner-orders/${text}`)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, hash);
}

interface Pg {
  Pool: new (options: { connectionString: string }) => unknown;
}

/** pg is an optional peer dependency: only partners using the PostgreSQL store install it. */
export async function loadPg(): Promise<Pg> {
  try {
    const loaded = (await import("pg")) as unknown as { default?: Pg } & Pg;
    return loaded.default ?? loaded;
  } catch (cause) {
    throw new PartnerOrdersError(
      "postgresStore needs the pg package, an optional peer dependency of partner-orders: run `npm install pg`.",
      { cause },
    );
  }
}
