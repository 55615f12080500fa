import { PartnerOrdersError } from "../../core/errors";
import { MirrorError, type StoreAccount } from "../errors";

/**
 * The layout of the mirror's tables this version of partner-orders writes. Tables made before
 * stores carried a version are version 1; version 2 adds the writer claim (SQLite), when a lease's
 * holder took it, whether it holds it by a session lock (PostgreSQL), and the account; version 3
 * adds the orders' typed columns (status, updated_on, total, partner_order_id), the table of
 * their lines' external ids, `jsonb` payloads on PostgreSQL, and marks each change as part of the
 * first complete pass or not (the change stream). A store opens an older layout by migrating it
 * forward and refuses a newer one.
 */
export const MIRROR_SCHEMA_VERSION = 3;

/**
 * Columns the store reads and writes, by table, as both stores lay them out at the current version.
 * Checked on open, so a table changed by hand fails with the table and column named instead of a
 * confusing error at the first read.
 */
export const EXPECTED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  po_orders: [
    "order_number",
    "site_id",
    "data",
    "items",
    "shipments",
    "closed",
    "unresolvable",
    "next_poll_at",
    "seen_in_sweep",
    // Version 3: the typed columns partners filter on.
    "status",
    "updated_on",
    "total",
    "partner_order_id",
  ],
  po_external_ids: ["external_id", "order_number"],
  po_changes: [
    "id",
    "type",
    "order_number",
    "site_id",
    "observed_at",
    "cause",
    "payload",
    "snapshot",
  ],
  po_checkpoints: ["name", "value"],
  po_consumers: ["name", "position"],
  po_leases: ["name", "holder", "since", "expires_at"],
  po_meta: ["name", "value"],
};

/**
 * Checkpoint names of the change stream, kept in `po_checkpoints` by both stores.
 * `snapshotComplete` is set once, when the store's first complete sweep reached the end of the
 * list (its value: the last change id then); until it is set, what a sweep writes is the snapshot.
 * `prunedThrough` is the highest change id retention ever deleted: a position below it has lost
 * changes, one at or above it has not (ids may skip values, so the oldest kept id cannot tell).
 */
export const STREAM = {
  snapshotComplete: "stream:snapshot-complete",
  prunedThrough: "stream:pruned-through",
} as const;

/**
 * The first expected column `columnsOf` does not find, as a typed error; undefined when all are
 * there. `columnsOf` answers the column names of a table (none when the table is missing).
 */
export async function checkColumns(
  where: string,
  expected: Readonly<Record<string, readonly string[]>>,
  columnsOf: (table: string) => Promise<string[]> | string[],
): Promise<void> {
  for (const [table, columns] of Object.entries(expected)) {
    const found = new Set(await columnsOf(table));
    const missing = columns.find((column) => !found.has(column));
    if (missing === undefined) continue;
    throw new MirrorError(
      "schema_mismatch",
      found.size === 0
        ? `${where} has no table ${table}, which the mirror needs.`
        : `${where}: the table ${table} has no column ${missing}, which the mirror needs.`,
      {
        hint: "The mirror's tables were changed outside partner-orders: restore them from a backup, or give the mirror a new store.",
      },
    );
  }
}

/** The account the store records, as kept in its `po_meta` row. */
export function parseAccount(text: string | null | undefined): StoreAccount | null {
  if (!text) return null;
  const parsed = JSON.parse(text) as { partnerId: string; baseUrl: string };
  return { partnerId: parsed.partnerId, baseUrl: parsed.baseUrl };
}

/** Two base URLs name the same service when they differ only by trailing slashes. */
export function sameAccount(a: StoreAccount, b: StoreAccount): boolean {
  const bare = (url: string) => url.replace(/\/+$/, "");
  return a.partnerId === b.partnerId && bare(a.baseUrl) === bare(b.baseUrl);
}

/** A store's account must name a partner and a base URL: both are compared on every claim. */
export function validAccount(account: StoreAccount): StoreAccount {
  if (
    typeof account?.partnerId !== "string" ||
    account.partnerId === "" ||
    typeof account.baseUrl !== "string" ||
    account.baseUrl === ""
  ) {
    throw new PartnerOrdersError("claimAccount needs { partnerId, baseUrl }, both non-empty text.");
  }
  return { partnerId: account.partnerId, baseUrl: account.baseUrl };
}
