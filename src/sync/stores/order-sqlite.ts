import type { StoredOrder, StoreOrderQuery } from "../types";
import { externalIdsMoved, externalIdsOf, orderFilter, typedColumns } from "./order-columns";
import { type OrderRow, rowToOrder } from "./rows";

/** The part of better-sqlite3 these functions use. */
interface Statement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
type Sql = (source: string) => Statement;

/** Rows filled at once by the migration's backfill. */
const BACKFILL_BATCH = 1_000;

/** Stored orders matching `query`, by number, one keyset page (see `MirrorStore.orders`). */
export function queryOrdersSqlite(sql: Sql, query: StoreOrderQuery): StoredOrder[] {
  const { where, values } = orderFilter(
    query,
    "po_external_ids",
    () => "?",
    (value) => (value ? "1" : "0"),
  );
  const rows = sql(
    `SELECT o.* FROM po_orders o WHERE ${where} ORDER BY o.order_number LIMIT ?`,
  ).all(...values, query.limit) as OrderRow[];
  return rows.map(rowToOrder);
}

/** Keeps the order's external ids in step with its lines, in the commit's transaction. */
export function writeExternalIdsSqlite(
  sql: Sql,
  current: StoredOrder | undefined,
  next: StoredOrder,
): void {
  if (!externalIdsMoved(current?.items, next.items)) return;
  sql("DELETE FROM po_external_ids WHERE order_number = ?").run(next.orderNumber);
  const insert = sql("INSERT INTO po_external_ids (external_id, order_number) VALUES (?, ?)");
  for (const id of externalIdsOf(next.items)) insert.run(id, next.orderNumber);
}

/**
 * Fills version 3's typed columns and external ids from the stored JSON, in the migration's
 * transaction, by the same functions every write uses.
 */
export function backfillSqlite(database: { prepare(source: string): Statement }): void {
  const page = database.prepare(
    "SELECT * FROM po_orders WHERE order_number > ? ORDER BY order_number LIMIT ?",
  );
  const update = database.prepare(
    "UPDATE po_orders SET status = ?, updated_on = ?, total = ?, partner_order_id = ? WHERE order_number = ?",
  );
  const insert = database.prepare(
    "INSERT OR IGNORE INTO po_external_ids (external_id, order_number) VALUES (?, ?)",
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after, BACKFILL_BATCH) as OrderRow[];
    if (rows.length === 0) return;
    for (const row of rows) {
      const order = rowToOrder(row);
      update.run(...typedColumns(order), order.orderNumber);
      for (const id of externalIdsOf(order.items)) insert.run(id, order.orderNumber);
      after = order.orderNumber;
    }
  }
}
