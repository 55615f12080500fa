import type { Change, MirrorStore, PageWrite } from "../types";
import { JsonTexts } from "./json-texts";
import { externalIdsMoved, externalIdsOf, typedColumns } from "./order-columns";
import { type OrderRow, rowToOrder, snapshotCandidate } from "./rows";
import { STREAM } from "./schema";
import type { Database, Statement, Transaction } from "./sqlite-schema";

const UPSERT = `INSERT INTO po_orders
  (order_number, site_id, data, items, shipments, closed, unresolvable, next_poll_at, seen_in_sweep,
   status, updated_on, total, partner_order_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (order_number) DO UPDATE SET site_id = excluded.site_id, data = excluded.data,
  items = excluded.items, shipments = excluded.shipments, closed = excluded.closed,
  unresolvable = excluded.unresolvable, next_poll_at = excluded.next_poll_at,
  seen_in_sweep = MAX(po_orders.seen_in_sweep, excluded.seen_in_sweep),
  status = excluded.status, updated_on = excluded.updated_on, total = excluded.total,
  partner_order_id = COALESCE(excluded.partner_order_id, po_orders.partner_order_id)`;

/**
 * The order writes of one open file: every statement prepared once, and one transaction function
 * (BEGIN IMMEDIATE) that writes a whole page: its orders, their changes, the page's marks and its
 * checkpoint, so a crash leaves all of it or none.
 */
class PageWriter {
  readonly #select: Statement;
  readonly #upsert: Statement;
  readonly #deleteIds: Statement;
  readonly #insertId: Statement;
  readonly #insertChange: Statement;
  readonly #snapshotComplete: Statement;
  readonly #mark: Statement;
  readonly #checkpoint: Statement;
  readonly write: Transaction<[PageWrite], Change[][]>;

  constructor(database: Database) {
    const prepare = (source: string) => database.prepare(source);
    this.#select = prepare("SELECT * FROM po_orders WHERE order_number = ?");
    this.#upsert = prepare(UPSERT);
    this.#deleteIds = prepare("DELETE FROM po_external_ids WHERE order_number = ?");
    this.#insertId = prepare(
      "INSERT INTO po_external_ids (external_id, order_number) VALUES (?, ?)",
    );
    this.#insertChange = prepare(
      "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#snapshotComplete = prepare("SELECT 1 FROM po_checkpoints WHERE name = ?");
    this.#mark = prepare("UPDATE po_orders SET seen_in_sweep = ? WHERE order_number = ?");
    this.#checkpoint = prepare(
      "INSERT INTO po_checkpoints (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    );
    this.write = database.transaction((page: PageWrite) => this.#write(page));
  }

  #write(page: PageWrite): Change[][] {
    const written: Change[][] = [];
    /** Whether the first complete sweep is still to end: read once, when a change needs it. */
    let backfilling: boolean | undefined;
    for (const { orderNumber, decide } of page.commits) {
      const row = this.#select.get(orderNumber) as OrderRow | undefined;
      const current = row ? rowToOrder(row) : undefined;
      const decided = decide(current);
      if (!decided) {
        written.push([]);
        continue;
      }
      const { next } = decided;
      const [status, updatedOn, total, partnerOrderId] = typedColumns(next);
      // The row's objects serialised once, their text reused by the payloads that carry them.
      const json = new JsonTexts();
      // SQLite keeps booleans as 0/1; each value bound as it is, with no row array between.
      this.#upsert.run(
        next.orderNumber,
        next.siteId,
        json.of(next.order),
        json.list(next.items),
        json.list(next.shipments),
        next.closed ? 1 : 0,
        next.unresolvable ? 1 : 0,
        next.nextPollAt,
        next.seenInSweep,
        status,
        updatedOn,
        total,
        partnerOrderId,
      );
      if (externalIdsMoved(current?.items, next.items)) {
        this.#deleteIds.run(next.orderNumber);
        for (const id of externalIdsOf(next.items)) this.#insertId.run(id, next.orderNumber);
      }
      const changes: Change[] = [];
      for (const change of decided.changes) {
        backfilling ??= this.#snapshotComplete.get(STREAM.snapshotComplete) === undefined;
        const snapshot = backfilling && snapshotCandidate(change);
        const { lastInsertRowid } = this.#insertChange.run(
          change.type,
          change.orderNumber,
          change.siteId,
          change.observedAt,
          change.cause,
          json.payload(change),
          snapshot ? 1 : 0,
        );
        // Not `{ ...change, id, snapshot }`: a spread of changes of many shapes, fields added after
        // it, cost V8 a slow copy (about 2 µs a change); the same fields in the same order.
        changes.push(
          Object.assign({}, change, { id: Number(lastInsertRowid), snapshot }) as Change,
        );
      }
      written.push(changes);
    }
    const { seen, checkpoint } = page;
    if (seen) for (const n of seen.orderNumbers) this.#mark.run(seen.sweep, n);
    if (checkpoint) this.#checkpoint.run(checkpoint.name, checkpoint.value);
    return written;
  }
}

/** The SQLite store's commits: one order, or a page of them, each in one write transaction. */
export function sqliteWrites(open: () => Database): Pick<MirrorStore, "commit" | "commitPage"> {
  let writer: { database: Database; pages: PageWriter } | undefined;
  const pages = (): PageWriter => {
    const database = open();
    if (writer?.database !== database) writer = { database, pages: new PageWriter(database) };
    return writer.pages;
  };
  return {
    async commit(orderNumber, decide) {
      return pages().write.immediate({ commits: [{ orderNumber, decide }] })[0] ?? [];
    },
    async commitPage(page) {
      return pages().write.immediate(page);
    },
  };
}
