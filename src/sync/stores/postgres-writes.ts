import type { Change, MirrorStore, NewChange, PageWrite, StoredOrder } from "../types";
import { externalIdsMoved, externalIdsOf, typedColumns } from "./order-columns";
import type { Connections, PgClientLike } from "./pg-connection";
import { changePayload, type OrderRow, rowToOrder, snapshotCandidate } from "./rows";
import { STREAM } from "./schema";

/** The tables a page's write touches, schema-qualified. */
type Tables = Record<"orders" | "changes" | "checkpoints" | "externalIds", string>;

/** The advisory lock keys a write takes: one per order, and the change stream's. */
export interface WriteKeys {
  outbox: bigint;
  order: (orderNumber: number) => bigint;
}

/** Ascending 64-bit keys: by the sign of their difference, which Number keeps however large. */
const ascending = (a: bigint, b: bigint) => Number(a - b);

/** The columns of an order's row as the page's upsert reads them from one JSON document. */
const ORDER_RECORD = `order_number bigint, site_id bigint, data jsonb, items jsonb, shipments jsonb,
  closed boolean, unresolvable boolean, next_poll_at bigint, seen_in_sweep bigint, status text,
  updated_on timestamptz, total numeric, partner_order_id text`;

/**
 * The PostgreSQL store's commits: a whole page (its orders, their changes, its marks and its
 * checkpoint) in one transaction of a fixed number of statements, whatever the page's size. The
 * rows go to the server as one JSON document per statement (`jsonb_to_recordset`), so each value
 * is serialised once and no per-row statement runs.
 */
export function pgWrites(
  connections: Connections,
  t: Tables,
  keys: WriteKeys,
  channel: string,
): Pick<MirrorStore, "commit" | "commitPage"> {
  // Run again whole when the connection fails, even at COMMIT: every order's row is read again and
  // `decide` compares it with the read, so a COMMIT that landed without its answer leaves nothing
  // more to write and no change is recorded twice.
  const commitPage = (page: PageWrite) =>
    connections.transaction((client) => writePage(client, t, keys, channel, page));
  return {
    async commit(orderNumber, decide) {
      // Stryker disable next-line ArrayDeclaration: equivalent, a page answers a list per commit
      return (await commitPage({ commits: [{ orderNumber, decide }] }))[0] ?? [];
    },
    commitPage,
  };
}

async function writePage(
  client: PgClientLike,
  t: Tables,
  keys: WriteKeys,
  channel: string,
  page: PageWrite,
): Promise<Change[][]> {
  const numbers = [...new Set(page.commits.map((c) => c.orderNumber))];
  const stored = new Map<number, StoredOrder>();
  // Serialises the read-decide-write of each order across processes, even before its row exists;
  // taken in key order, so two pages sharing orders never wait on each other in a cycle. The
  // orders the page marks as seen are locked too: their rows are written below, after other
  // processes' writes of them and before the stream's lock, which every writer takes last.
  const locked = new Set([...numbers, ...(page.seen?.orderNumbers ?? [])]);
  if (locked.size) {
    const locks = [...locked].map(keys.order).sort(ascending);
    await client.query("SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k", [
      locks.map(String),
    ]);
  }
  if (numbers.length) {
    const found = await client.query(
      `SELECT * FROM ${t.orders} WHERE order_number = ANY($1::bigint[])`,
      [numbers],
    );
    for (const row of found.rows as OrderRow[])
      stored.set(Number(row.order_number), rowToOrder(row));
  }
  const written: Change[][] = [];
  const upserts = new Map<number, StoredOrder>();
  /** Orders whose external ids moved, with the ids they have now. */
  const externalIds = new Map<number, string[]>();
  const pending: { change: NewChange; into: Change[] }[] = [];
  for (const { orderNumber, decide } of page.commits) {
    const current = stored.get(orderNumber);
    const decided = decide(current);
    const into: Change[] = [];
    written.push(into);
    if (!decided) continue;
    const { next } = decided;
    // A later commit of the same order in this page decides against this one's row.
    stored.set(next.orderNumber, next);
    upserts.set(next.orderNumber, next);
    if (externalIdsMoved(current?.items, next.items))
      externalIds.set(next.orderNumber, externalIdsOf(next.items));
    for (const change of decided.changes) pending.push({ change, into });
  }
  if (upserts.size) await upsertOrders(client, t, [...upserts.values()]);
  if (externalIds.size) await writeExternalIds(client, t, externalIds);
  if (pending.length) await appendChanges(client, t, keys, channel, pending);
  if (page.seen?.orderNumbers.length)
    await client.query(
      `UPDATE ${t.orders} SET seen_in_sweep = $1 WHERE order_number = ANY($2::bigint[])`,
      [page.seen.sweep, page.seen.orderNumbers],
    );
  if (page.checkpoint)
    await client.query(
      `INSERT INTO ${t.checkpoints} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [page.checkpoint.name, page.checkpoint.value],
    );
  return written;
}

async function upsertOrders(client: PgClientLike, t: Tables, orders: StoredOrder[]) {
  const records = orders.map((order) => {
    const [status, updatedOn, total, partnerOrderId] = typedColumns(order);
    return {
      order_number: order.orderNumber,
      site_id: order.siteId,
      data: order.order,
      items: order.items,
      shipments: order.shipments,
      closed: order.closed,
      unresolvable: order.unresolvable,
      next_poll_at: order.nextPollAt,
      seen_in_sweep: order.seenInSweep,
      status,
      updated_on: updatedOn,
      total,
      partner_order_id: partnerOrderId,
    };
  });
  await client.query(
    `INSERT INTO ${t.orders} AS o
       (order_number, site_id, data, items, shipments, closed, unresolvable, next_poll_at,
        seen_in_sweep, status, updated_on, total, partner_order_id)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (${ORDER_RECORD})
     ON CONFLICT (order_number) DO UPDATE SET site_id = excluded.site_id, data = excluded.data,
       items = excluded.items, shipments = excluded.shipments, closed = excluded.closed,
       unresolvable = excluded.unresolvable, next_poll_at = excluded.next_poll_at,
       seen_in_sweep = GREATEST(o.seen_in_sweep, excluded.seen_in_sweep),
       status = excluded.status, updated_on = excluded.updated_on, total = excluded.total,
       partner_order_id = COALESCE(excluded.partner_order_id, o.partner_order_id)`,
    [JSON.stringify(records)],
  );
}

/** Keeps each order's external ids in step with its lines, in the page's transaction. */
async function writeExternalIds(client: PgClientLike, t: Tables, moved: Map<number, string[]>) {
  await client.query(`DELETE FROM ${t.externalIds} WHERE order_number = ANY($1::bigint[])`, [
    [...moved.keys()],
  ]);
  const ids: string[] = [];
  const orders: number[] = [];
  for (const [orderNumber, list] of moved)
    for (const id of list) {
      ids.push(id);
      orders.push(orderNumber);
    }
  if (ids.length)
    await client.query(
      `INSERT INTO ${t.externalIds} (external_id, order_number)
       SELECT * FROM unnest($1::text[], $2::bigint[])`,
      [ids, orders],
    );
}

/**
 * Appends the page's changes with ids drawn here, in order, under the stream's lock: change ids
 * must become visible in id order, or a consumer reading "after id N" could pass over a smaller id
 * committed a moment later, so ids are drawn and committed one transaction at a time. Each id is
 * given to its change before the insert, so what each change is told is what its row holds.
 */
async function appendChanges(
  client: PgClientLike,
  t: Tables,
  keys: WriteKeys,
  channel: string,
  pending: { change: NewChange; into: Change[] }[],
) {
  await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(keys.outbox)]);
  const drawn = await client.query(
    `SELECT nextval(pg_get_serial_sequence($1, 'id'))::text AS id,
       EXISTS (SELECT 1 FROM ${t.checkpoints} WHERE name = $3) AS complete
     FROM generate_series(1, $2::int)`,
    [t.changes, pending.length, STREAM.snapshotComplete],
  );
  const rows = drawn.rows as { id: string; complete: boolean }[];
  // nextval in one statement draws ascending ids; sorted all the same, as SQL leaves row order open.
  // Stryker disable next-line MethodExpression: equivalent, the rows come as nextval drew them
  const ids = rows.map((r) => BigInt(r.id)).sort(ascending);
  // The snapshot is complete once the first complete sweep ended; until then a sweep's changes
  // belong to it.
  // Stryker disable next-line OptionalChaining: equivalent, a row per change and one at least
  const complete = rows[0]?.complete === true;
  const records = pending.map(({ change, into }, i) => {
    const id = Number(ids[i]);
    const snapshot = !complete && snapshotCandidate(change);
    into.push({ ...change, id, snapshot } as Change);
    return {
      id,
      type: change.type,
      order_number: change.orderNumber,
      site_id: change.siteId,
      observed_at: change.observedAt,
      cause: change.cause,
      payload: changePayload(change),
      snapshot,
    };
  });
  await client.query(
    `INSERT INTO ${t.changes} (id, type, order_number, site_id, observed_at, cause, payload, snapshot)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (id bigint, type text, order_number bigint,
       site_id bigint, observed_at text, cause text, payload jsonb, snapshot boolean)`,
    [JSON.stringify(records)],
  );
  // Delivered on COMMIT, to every process listening: their consumers wake at once.
  await client.query("SELECT pg_notify($1, '')", [channel]);
}
