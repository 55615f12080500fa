import type { StoredOrder, StoreOrderQuery } from "../types";
import { externalIdsOf, orderFilter, typedColumns } from "./order-columns";
import type { PgResult } from "./pg-connection";
import { type OrderRow, rowToOrder } from "./rows";

type Query = (text: string, values?: unknown[]) => Promise<PgResult>;
interface Queryable {
  query: Query;
}

/** Rows filled at once by the migration's backfill. */
const BACKFILL_BATCH = 1_000;

/** Stored orders matching `query`, by number, one keyset page (see `MirrorStore.orders`). */
export async function queryOrdersPostgres(
  q: Query,
  t: Record<"orders" | "externalIds", string>,
  query: StoreOrderQuery,
): Promise<StoredOrder[]> {
  const { where, values } = orderFilter(
    query,
    t.externalIds,
    (i) => `$${i}`,
    (value) => (value ? "true" : "false"),
  );
  const { rows } = await q(
    `SELECT o.* FROM ${t.orders} o WHERE ${where} ORDER BY o.order_number LIMIT $${values.length + 1}`,
    [...values, query.limit],
  );
  return (rows as OrderRow[]).map(rowToOrder);
}

/**
 * Fills version 3's typed columns and external ids from the stored JSON, in the migration's
 * transaction, a batch of rows per statement, by the same functions every write uses.
 */
export async function backfillPostgres(
  client: Queryable,
  t: Record<"orders" | "externalIds", string>,
): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await client.query(
      `SELECT * FROM ${t.orders} WHERE order_number > $1 ORDER BY order_number LIMIT $2`,
      [after, BACKFILL_BATCH],
    );
    if (rows.length === 0) return;
    const orders = (rows as OrderRow[]).map(rowToOrder);
    const columns: (string | null)[][] = [[], [], [], []];
    const idOrders: number[] = [];
    const ids: string[] = [];
    for (const order of orders) {
      for (const [i, value] of typedColumns(order).entries()) columns[i]?.push(value);
      for (const id of externalIdsOf(order.items)) {
        ids.push(id);
        idOrders.push(order.orderNumber);
      }
    }
    await client.query(
      `UPDATE ${t.orders} o SET status = v.status, updated_on = v.updated_on, total = v.total,
         partner_order_id = v.partner_order_id
       FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::numeric[], $5::text[])
         AS v (order_number, status, updated_on, total, partner_order_id)
       WHERE o.order_number = v.order_number`,
      [orders.map((o) => o.orderNumber), ...columns],
    );
    if (ids.length)
      await client.query(
        `INSERT INTO ${t.externalIds} (external_id, order_number)
         SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`,
        [ids, idOrders],
      );
    after = orders[orders.length - 1]?.orderNumber ?? after;
  }
}
