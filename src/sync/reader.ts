import { isProblem } from "../core/errors";
import { PageBatch } from "./batch";
import { ALL, type MirrorContext, type Parts } from "./context";
import { decide, type Observation, sameJson } from "./diff";
import { Failures } from "./failures";
import { decodeFailure } from "./invalid";
import type { Change, ChangeCause, MirrorStore, StoredOrder } from "./types";
import { storable } from "./values";

type Row = Record<string, unknown>;

/** Where a read came from: a sweep (with the row its list showed, and the stored row it compared). */
interface Source {
  sweep?: number;
  listed?: Row;
  /** The stored order the sweep compared `listed` with (null: none was stored). */
  listedOver?: Row | null;
  /** The page whose one transaction writes this read (a page of the list, a round of polls). */
  batch?: PageBatch;
  /**
   * The stored row as the sweep's look at its page found it (undefined: none), and `Reader.writes`
   * when that look began: used instead of a look of its own while this process has written
   * nothing since, on a store no other process writes.
   */
  looked?: { row: StoredOrder | undefined; writes: number };
}

const PAGE = { items: 200, shipments: 50 } as const;

/** A read waiting for its turn; a later request for the same order joins it. */
interface Queued {
  parts: Parts;
  cause: ChangeCause;
  done: Promise<Change[]>;
}

/**
 * Reads orders one at a time per order and `concurrency` at a time in all: each read fetches what
 * it was asked for, has `decide` compare it with the stored row, and commits the new row with its
 * changes in one transaction.
 */
export class Reader {
  readonly #ctx: MirrorContext;
  readonly #slots: Semaphore;
  /** Reads not yet started, per order: events in a burst join one read. */
  readonly #queued = new Map<number, Queued>();
  /** The read under way per order, so reads of one order never overlap. */
  readonly #running = new Map<number, Promise<unknown>>();
  /** Counts this reader's writes of orders, as each is asked for and as each ends. */
  #writes = 0;

  constructor(ctx: MirrorContext) {
    this.#ctx = ctx;
    this.#slots = new Semaphore(ctx.concurrency);
  }

  /**
   * A count that moves whenever a write of this reader's is asked for or ends: a row read before
   * it moved may be out of date, one read since it last moved is not (unless another process
   * writes the store).
   */
  get writes(): number {
    return this.#writes;
  }

  /** Runs `write` (a write of orders read by this reader), counted in `writes`. */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.#writes++;
    try {
      return await write();
    } finally {
      this.#writes++;
    }
  }

  /** Reads under way or queued (zero once the mirror is idle). */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Resolves once every read under way has ended. */
  async idle(): Promise<void> {
    while (this.#running.size) await Promise.allSettled([...this.#running.values()]);
  }

  /**
   * Queues a read of `orderNumber`. A read not yet started takes on the parts of a later request
   * (events in a burst coalesce); reads of one order run one after the other.
   */
  schedule(
    orderNumber: number,
    parts: Parts,
    cause: ChangeCause,
    from: Source = {},
  ): Promise<Change[]> {
    const joinable = from.listed === undefined && from.sweep === undefined;
    const queued = this.#queued.get(orderNumber);
    if (queued && joinable) {
      queued.parts = merge(queued.parts, parts);
      from.batch?.detach();
      return queued.done;
    }
    // A read of a page waits for the whole page to be written: queued behind another read of its
    // order (perhaps of another page, itself waiting) it would hold its own page up, so it
    // commits on its own instead.
    let batch = from.batch;
    if (batch && this.#running.has(orderNumber)) {
      batch.detach();
      batch = undefined;
    }
    const entry: Queued = { parts, cause, done: Promise.resolve([]) };
    const before = this.#running.get(orderNumber) ?? Promise.resolve();
    entry.done = before
      // One turn of the event loop before the read starts, so events delivered together join it.
      .then(nextTurn)
      .then(() => {
        if (this.#queued.get(orderNumber) === entry) this.#queued.delete(orderNumber);
        const read = (release: () => void) =>
          this.#read(orderNumber, entry.parts, entry.cause, { ...from, batch }, release);
        const traced = this.#ctx.telemetry;
        return this.#slots.run((release) =>
          traced ? traced.read(orderNumber, entry.cause, () => read(release)) : read(release),
        );
      });
    if (joinable) this.#queued.set(orderNumber, entry);
    // The map holds the settled form, and the entry is removed by comparing with that same promise.
    const settled: Promise<unknown> = entry.done.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(orderNumber, settled);
    void settled.then(() => {
      if (this.#running.get(orderNumber) === settled) this.#running.delete(orderNumber);
    });
    return entry.done;
  }

  /**
   * One bounded round of open-order polls: the orders due at `dueBy` (the pass's start), each at
   * most once, since a claim moves an order's next poll past `dueBy`. Stops between claims when
   * `stop()` says so (a sweep is due), leaving the rest due.
   */
  async pollDue(dueBy: number, stop: () => boolean): Promise<{ polled: number; failed: number }> {
    const { store, clock, openIntervalMs, concurrency, policy } = this.#ctx;
    // Health as every process on the store knows it, before choosing intervals.
    await policy.refresh();
    let polled = 0;
    const failures = new Failures(this.#ctx);
    while (!stop()) {
      // Small claims, so the processes of a fleet share the due orders instead of one taking all.
      const due = await store.claimDue(dueBy, concurrency * 4, clock.now() + openIntervalMs);
      if (due.length === 0) break;
      // The round's reads are written together, in one transaction.
      const batch = new PageBatch(store);
      const reads = due.map((n) =>
        this.schedule(n, { order: false, items: true, shipments: true }, "poll", { batch }).then(
          () => {
            polled++;
          },
          (error) =>
            failures.add(`reading order ${n} failed`, error, "it is read again next round"),
        ),
      );
      await batch.seal(due.length);
      await this.writing(() => batch.write()).catch(() => undefined);
      await Promise.all(reads);
      failures.throwIfFatal();
      this.#ctx.report.progress();
    }
    return { polled, failed: failures.count };
  }

  /**
   * A read, and its commit: on its own, or with its page (`from.batch`), giving its slot back
   * before it waits for the page to be written. Leaves the page when it has nothing to write.
   */
  async #read(
    orderNumber: number,
    asked: Parts,
    cause: ChangeCause,
    from: Source,
    release: () => void,
  ): Promise<Change[]> {
    const { batch } = from;
    if (!batch)
      return this.#observe(orderNumber, asked, cause, from, (n, decideFor) =>
        this.writing(() => this.#ctx.store.commit(n, decideFor)),
      );
    let joined = false;
    try {
      return await this.#observe(orderNumber, asked, cause, from, (n, decideFor) => {
        joined = true;
        release();
        return batch.join(n, decideFor);
      });
    } catch (error) {
      if (!joined) batch.leave(error);
      joined = true;
      throw error;
    } finally {
      if (!joined) batch.leave();
    }
  }

  async #observe(
    orderNumber: number,
    asked: Parts,
    cause: ChangeCause,
    from: Source,
    commit: MirrorStore["commit"],
  ): Promise<Change[]> {
    const { client, store, clock, report } = this.#ctx;
    const { sweep } = from;
    const { looked } = from;
    // The sweep's look at the page stands while nothing can have written the order since.
    const stored =
      looked && looked.writes === this.#writes && store.soleWriter()
        ? looked.row
        : await store.get(orderNumber);
    // A list row is older than a read committed since the sweep compared it: read the order anew.
    const listed =
      from.listed && sameJson(stored?.order ?? null, from.listedOver ?? null)
        ? from.listed
        : undefined;
    // An order never read before is read whole, whatever named it.
    const parts = listed ? asked : stored?.order ? (from.listed ? ALL : asked) : ALL;
    const lines = parts.items && parts.shipments;
    const partnerOrderId = this.#ctx.partnerIds?.get(orderNumber);
    let readAt = clock.now();
    const seen: Observation = {
      orderNumber,
      cause,
      observedAt: new Date(clock.now()).toISOString(),
      sweep,
      listed,
      // A read of part of an order (a webhook's) does not stand for a poll: the schedule stays.
      nextPollAt: (closed, wasClosed) =>
        lines || !stored
          ? this.#nextPoll(orderNumber, closed, wasClosed, readAt)
          : stored.nextPollAt,
      ...(partnerOrderId === undefined ? {} : { partnerOrderId }),
    };
    try {
      if (listed) seen.order = listed;
      else if (parts.order) {
        report.requests++;
        seen.order = storable(await client.orders.get(orderNumber));
      }
      if (parts.items) {
        seen.items = await this.#collect(client.orders.items(orderNumber, { limit: PAGE.items }));
        report.itemsReread++;
      }
      if (parts.shipments) {
        seen.shipments = await this.#collect(
          client.orders.shipments(orderNumber, { limit: PAGE.shipments }),
        );
        report.shipmentsReread++;
      }
    } catch (error) {
      const invalid = decodeFailure(error, orderNumber, clock.now());
      if (invalid) {
        // Kept out, named, and read again later; the other orders go on.
        await this.#ctx.invalid.add(invalid, report);
        this.#ctx.log.warn(`order ${orderNumber} kept out: ${invalid.field} ${invalid.reason}`, {
          orderNumber,
          field: invalid.field,
          next: "it is read again by the next sweep",
        });
        return [];
      }
      if (!isProblem(error, "order_not_found")) throw error;
      seen.order = "gone";
      seen.items = undefined;
      seen.shipments = undefined;
    }
    // The next poll counts from the read, not from when its page is written.
    readAt = clock.now();
    const changes = await commit(orderNumber, (current) => decide(current, seen));
    await this.#ctx.policy.found(changes);
    if (partnerOrderId !== undefined) this.#ctx.partnerIds?.written(orderNumber, partnerOrderId);
    // Cleared only by a read of what can hold money that failed before: the items (and the order).
    if (parts.items) await this.#ctx.invalid.clear(orderNumber);
    for (const change of changes) {
      if (change.type === "order.added") report.ordersAdded++;
      if (change.type === "order.changed") report.ordersChanged++;
    }
    report.changesWritten += changes.length;
    if (changes.length) this.#ctx.changed();
    return changes;
  }

  async #collect(list: { pages(): AsyncIterable<{ data: unknown[] }> }): Promise<Row[]> {
    const rows: Row[] = [];
    for await (const page of list.pages()) {
      this.#ctx.report.requests++;
      for (const row of page.data) rows.push(storable(row));
    }
    return rows;
  }

  /**
   * Open orders as the poll policy says; a closed order once more after it closes (an interval on),
   * then only on demand. Both count from the read, not from when its page is written.
   */
  #nextPoll(
    orderNumber: number,
    closed: boolean,
    wasClosed: boolean | undefined,
    readAt: number,
  ): number | null {
    if (closed && wasClosed === true) return null;
    if (closed) return readAt + this.#ctx.openIntervalMs;
    return this.#ctx.policy.nextPollAt({ orderNumber, at: readAt });
  }
}

/** One turn of the event loop (setImmediate where there is one: no timer delay). */
function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

function merge(a: Parts, b: Parts): Parts {
  return {
    order: a.order || b.order,
    items: a.items || b.items,
    shipments: a.shipments || b.shipments,
  };
}

/** Bounds the reads in flight (`concurrency`). */
class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  /** Runs `task` in a slot; `release` gives the slot back early (once; the end is a no-op then). */
  async run<T>(task: (release: () => void) => PromiseLike<T> | T): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
    try {
      return await task(release);
    } finally {
      release();
    }
  }
}
