import type { PartnerOrders } from "../client";
import { isProblem, PartnerOrdersError } from "../core/errors";
import { createLog, type Log } from "../core/logger";
import type { OrderItem, Shipment } from "../core/models";
import { type Clock, systemClock } from "../internal/clock";
import type { WebhookEvent } from "../webhooks/events";
import { decide, type Observation } from "./diff";
import type {
  Change,
  ChangeCause,
  MirroredOrder,
  MirrorStatus,
  MirrorStore,
  OrderMirrorOptions,
  RunOptions,
  SyncOptions,
  SyncReport,
} from "./types";
import { reviveItem, reviveOrder, storable } from "./values";

type Row = Record<string, unknown>;
interface Parts {
  order: boolean;
  items: boolean;
  shipments: boolean;
}
const ALL: Parts = { order: true, items: true, shipments: true };

/** Which part of an order each webhook type names (API document, Event types). */
const EVENT_PARTS: Record<string, Parts> = {
  "order.status_changed": { order: true, items: false, shipments: false },
  "shipment.shipped": { order: false, items: false, shipments: true },
  "shipment.cancelled": { order: false, items: false, shipments: true },
  "order_line.cancelled": { order: false, items: true, shipments: false },
};

const PAGE = { orders: 200, items: 200, shipments: 50 } as const;
/** How often a `changes()` loop looks for changes written by other processes. */
const CHANGES_POLL_MS = 1_000;

/**
 * A local copy of the partner's orders, items and shipments that converges on the service's truth,
 * and a stream of what changed. See API.md "Keeping a local mirror".
 *
 * @example
 * const mirror = new OrderMirror({ client, store: sqliteStore("./orders.db") });
 * await mirror.sync();
 * for await (const change of mirror.changes({ consumer: "billing" })) console.log(change.type);
 */
export class OrderMirror {
  readonly #client: PartnerOrders;
  readonly #store: MirrorStore;
  readonly #siteIds: (number | undefined)[];
  readonly #sweepIntervalMs: number;
  readonly #openIntervalMs: number;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #slots: Semaphore;
  readonly #claimSize: number;
  readonly #leaseMs: number;
  /** When this process last renewed the sweep lease, and whether a renewal found it taken. */
  #leaseRenewedAt = Number.NEGATIVE_INFINITY;
  #leaseLost = false;
  #opened: Promise<void> | undefined;
  #report = emptyReport();
  /** Reads queued per order: a second event for an order joins the read not yet started. */
  readonly #queued = new Map<
    number,
    { parts: Parts; cause: ChangeCause; done: Promise<Change[]> }
  >();
  /** The read under way per order, so reads of one order never overlap. */
  readonly #running = new Map<number, Promise<unknown>>();
  readonly #listeners = new Set<() => void>();
  /** This process's name as a lease holder. */
  readonly #holder = crypto.randomUUID();

  constructor(options: OrderMirrorOptions) {
    if (!options?.client || !options.store) {
      throw new PartnerOrdersError("OrderMirror needs { client, store }.");
    }
    this.#client = options.client;
    this.#store = options.store;
    this.#siteIds = options.siteIds?.length ? [...options.siteIds] : [undefined];
    this.#sweepIntervalMs = positive(options.sweepIntervalMs ?? 15 * 60_000, "sweepIntervalMs");
    this.#openIntervalMs = positive(
      options.openOrderIntervalMs ?? 5 * 60_000,
      "openOrderIntervalMs",
    );
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new PartnerOrdersError("concurrency must be a whole number >= 1.");
    }
    this.#slots = new Semaphore(concurrency);
    this.#claimSize = concurrency * 4;
    this.#leaseMs = positive(options.sweepLeaseMs ?? 60_000, "sweepLeaseMs");
    this.#clock = options.clock ?? systemClock;
    this.#log = createLog(options.logger, "warn");
  }

  /**
   * One reconciliation pass: a sweep of `GET /v1/orders` to the end (resuming a stored checkpoint),
   * items and shipments of new and changed orders, stored orders missing from the list checked one
   * by one, and every open order that is due.
   */
  async sync(_options: SyncOptions = {}): Promise<SyncReport> {
    await this.#open();
    const started = this.#clock.monotonic();
    this.#report = emptyReport();
    await this.#sweep();
    await this.#pollDue();
    return { ...this.#report, durationMs: Math.round(this.#clock.monotonic() - started) };
  }

  /**
   * Keeps converging until `signal` aborts: a sweep every `sweepIntervalMs`, open orders every
   * `openOrderIntervalMs`, events as `handleEvent` receives them. A failed read is logged and
   * tried again on the next round; it never ends the loop.
   */
  async run(options: RunOptions = {}): Promise<void> {
    const { signal } = options;
    await this.#open();
    let nextSweep = this.#clock.now();
    while (!signal?.aborted) {
      if (this.#clock.now() >= nextSweep) {
        try {
          // When another process holds the lease or swept lately, look again within a lease's time,
          // so a sweep whose holder died is taken over.
          const swept = await this.#sweep(true);
          nextSweep =
            this.#clock.now() +
            (swept ? this.#sweepIntervalMs : Math.min(this.#sweepIntervalMs, this.#leaseMs));
        } catch (error) {
          this.#warn("sweep failed; trying again soon", error);
          nextSweep = this.#clock.now() + Math.min(this.#sweepIntervalMs, 60_000);
        }
      }
      try {
        await this.#pollDue();
      } catch (error) {
        this.#warn("open-order poll failed; trying again soon", error);
      }
      const due = (await this.#store.nextDue()) ?? Number.POSITIVE_INFINITY;
      const wake = Math.min(nextSweep, Math.max(due, this.#clock.now() + 1));
      try {
        await this.#clock.sleep(wake - this.#clock.now(), signal);
      } catch {
        // Aborted: the loop condition ends it.
      }
    }
  }

  /**
   * A webhook event: re-reads now what it names (the order, its shipments or its items). Duplicates
   * and bursts for one order join one read; test events and unknown types do nothing. Resolves
   * once the read is recorded; its changes come through `changes()`.
   */
  async handleEvent(event: WebhookEvent): Promise<void> {
    const parts = EVENT_PARTS[event?.type];
    const orderNumber = event?.orderNumber;
    if (
      !parts ||
      !Number.isInteger(orderNumber) ||
      orderNumber <= 0 ||
      event.eventId?.startsWith("test_")
    ) {
      return;
    }
    await this.#open();
    await this.#schedule(orderNumber, parts, "webhook");
  }

  /** Re-reads one order, its items and its shipments now. Resolves with the changes recorded. */
  async refresh(orderNumber: number): Promise<Change[]> {
    if (!Number.isInteger(orderNumber) || orderNumber <= 0) {
      throw new PartnerOrdersError(
        `refresh needs an order number (a positive integer), not ${String(orderNumber)}.`,
      );
    }
    await this.#open();
    return this.#schedule(orderNumber, ALL, "refresh");
  }

  /**
   * Changes in id order. With `consumer`, from its stored position (the first change for a new
   * consumer), the position stored once the loop asks for the next change (at least once: dedupe
   * by `id`); without, the changes from now on. Ends when `signal` aborts.
   */
  async *changes(
    options: { consumer?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<Change, void, undefined> {
    const { consumer, signal } = options;
    await this.#open();
    let position =
      consumer !== undefined
        ? ((await this.#store.getPosition(consumer)) ?? 0)
        : await this.#store.lastChangeId();
    while (!signal?.aborted) {
      const batch = await this.#store.changesAfter(position, 100);
      if (batch.length === 0) {
        await this.#newChanges(signal);
        continue;
      }
      for (const change of batch) {
        yield change;
        position = change.id;
        if (consumer !== undefined) await this.#store.setPosition(consumer, position);
        if (signal?.aborted) return;
      }
    }
  }

  /** The stored order with its items and shipments, money as `Decimal`; undefined when never seen. */
  async get(orderNumber: number): Promise<MirroredOrder | undefined> {
    await this.#open();
    const row = await this.#store.get(orderNumber);
    if (!row) return undefined;
    return {
      ...reviveOrder(row.order),
      items: (row.items ?? []).map((item) => reviveItem<OrderItem>(item)),
      shipments: (row.shipments ?? []) as unknown as Shipment[],
      unresolvable: row.unresolvable,
    } as MirroredOrder;
  }

  /** What an operator needs to see: the last sweep, its holder, due orders and their lag, consumers. */
  async status(): Promise<MirrorStatus> {
    throw new PartnerOrdersError("status() is not built yet");
  }

  /** Waits for reads under way, then closes the store. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#running.values()]);
    for (const notify of this.#listeners) notify();
    await this.#store.close();
    this.#opened = undefined;
  }

  #open(): Promise<void> {
    this.#opened ??= this.#store.open();
    return this.#opened;
  }

  /** Sweeps unless another process holds the sweep lease; false when it did not sweep. */
  async #sweep(onlyIfDue = false): Promise<boolean> {
    // Another process may have swept since: the fleet sweeps once per interval, not once each.
    if (onlyIfDue && (await this.#sweptLately())) return false;
    if (!(await this.#renewLease())) return false;
    try {
      // Looked at again under the lease: a sweep may have finished between the look and the lease.
      if (onlyIfDue && (await this.#sweptLately())) return false;
      await this.#sweepUnderLease();
    } finally {
      await this.#store.releaseLease("sweep", this.#holder).catch(() => undefined);
    }
    return true;
  }

  async #sweptLately(): Promise<boolean> {
    if (await this.#store.getCheckpoint("sweep:current")) return false; // one to finish
    const last = Number((await this.#store.getCheckpoint("sweep:finished-at")) ?? Number.NaN);
    return last + this.#sweepIntervalMs > this.#clock.now();
  }

  /** Takes or renews the sweep lease; a holder that dies loses it after `sweepLeaseMs`. */
  async #renewLease(): Promise<boolean> {
    const now = this.#clock.now();
    const held = await this.#store.lease("sweep", this.#holder, now, now + this.#leaseMs);
    this.#leaseRenewedAt = now;
    this.#leaseLost = !held;
    return held;
  }

  /**
   * Renews the lease while a page's reads go on (a third of the lease at most between renewals), so
   * a slow page never lets another process take a sweep that is still making progress.
   */
  async #keepLease(): Promise<void> {
    if (this.#leaseLost || this.#clock.now() - this.#leaseRenewedAt < this.#leaseMs / 3) return;
    await this.#renewLease().catch(() => undefined);
  }

  async #sweepUnderLease(): Promise<void> {
    const current = await this.#store.getCheckpoint("sweep:current");
    const sweep = current
      ? Number(current)
      : Number((await this.#store.getCheckpoint("sweep:last")) ?? 0) + 1;
    await this.#store.setCheckpoint("sweep:current", String(sweep));
    for (const siteId of this.#siteIds) await this.#sweepSite(siteId, sweep);
    // Stored orders the list no longer shows: read each; a 404 flags it, never deletes it.
    const unseen = await this.#store.unseen(sweep);
    await Promise.all(
      unseen.map((n) =>
        this.#schedule(n, ALL, "sweep", sweep).catch((error) =>
          this.#warn(`reading order ${n} failed`, error),
        ),
      ),
    );
    await this.#store.setCheckpoint("sweep:last", String(sweep));
    await this.#store.setCheckpoint("sweep:finished-at", String(this.#clock.now()));
    await this.#store.setCheckpoint("sweep:current", null);
  }

  async #sweepSite(siteId: number | undefined, sweep: number): Promise<void> {
    const name = `sweep:cursor:${siteId ?? "all"}`;
    let cursor = (await this.#store.getCheckpoint(name)) ?? undefined;
    for (;;) {
      let page: { data: Row[]; nextCursor: string | null };
      try {
        page = (await this.#slots.run(() => {
          this.#report.requests++;
          return this.#client.orders.list({ siteId, cursor, limit: PAGE.orders });
        })) as unknown as typeof page;
      } catch (error) {
        if (cursor !== undefined && isProblem(error, "invalid_cursor")) {
          // Pagination convention: an unusable cursor means starting over, never building one.
          this.#warn("stored sweep cursor refused; the sweep starts over", error);
          cursor = undefined;
          await this.#store.setCheckpoint(name, null);
          continue;
        }
        throw error;
      }
      const unchanged: number[] = [];
      const reads: Promise<unknown>[] = [];
      for (const listed of page.data) {
        this.#report.ordersSeen++;
        const order = storable(listed);
        const orderNumber = Number(order.orderNumber);
        const stored = await this.#store.get(orderNumber);
        if (stored && !stored.unresolvable && sameJson(stored.order, order))
          unchanged.push(orderNumber);
        else
          reads.push(
            this.#schedule(
              orderNumber,
              { order: false, items: true, shipments: true },
              "sweep",
              sweep,
              order,
            )
              .catch(
                // Not stored, so the next sweep sees it changed again and reads it then.
                (error) => this.#warn(`reading order ${orderNumber} failed`, error),
              )
              .then(() => this.#keepLease()),
          );
      }
      await this.#store.markSeen(unchanged, sweep);
      await Promise.all(reads);
      // The process that took the lease over moves the checkpoint from here on.
      if (this.#leaseLost) throw leaseTaken();
      // Only once every order of the page is stored: a crash resumes at this page, never after it.
      if (page.nextCursor === null) {
        await this.#store.setCheckpoint(name, null);
        return;
      }
      cursor = page.nextCursor;
      await this.#store.setCheckpoint(name, cursor);
      if (!(await this.#renewLease())) {
        throw leaseTaken();
      }
    }
  }

  async #pollDue(): Promise<void> {
    for (;;) {
      const now = this.#clock.now();
      // Small claims, so the processes of a fleet share the due orders instead of one taking all.
      const due = await this.#store.claimDue(now, this.#claimSize, now + this.#openIntervalMs);
      let failed = false;
      await Promise.all(
        due.map((n) =>
          this.#schedule(n, { order: false, items: true, shipments: true }, "poll").catch(
            (error) => {
              // Still due: the next round reads it again.
              failed = true;
              this.#warn(`reading order ${n} failed`, error);
            },
          ),
        ),
      );
      if (due.length === 0 || failed) return;
    }
  }

  /**
   * Queues a read of `orderNumber`. A read not yet started takes on the parts of a later request
   * (events in a burst coalesce); reads of one order run one after the other.
   */
  #schedule(
    orderNumber: number,
    parts: Parts,
    cause: ChangeCause,
    sweep?: number,
    listed?: Row,
  ): Promise<Change[]> {
    const queued = this.#queued.get(orderNumber);
    if (queued && !listed && sweep === undefined) {
      queued.parts = merge(queued.parts, parts);
      return queued.done;
    }
    const entry = { parts, cause, done: undefined as unknown as Promise<Change[]> };
    const before = this.#running.get(orderNumber) ?? Promise.resolve();
    entry.done = before
      .catch(() => undefined)
      // One turn of the event loop before the read starts, so events delivered together join it.
      .then(nextTurn)
      .then(() => {
        if (this.#queued.get(orderNumber) === entry) this.#queued.delete(orderNumber);
        return this.#slots.run(() =>
          this.#read(orderNumber, entry.parts, entry.cause, sweep, listed),
        );
      });
    if (!listed && sweep === undefined) this.#queued.set(orderNumber, entry);
    const running = entry.done.finally(() => {
      if (this.#running.get(orderNumber) === running) this.#running.delete(orderNumber);
    });
    this.#running.set(
      orderNumber,
      running.catch(() => undefined),
    );
    return entry.done;
  }

  async #read(
    orderNumber: number,
    asked: Parts,
    cause: ChangeCause,
    sweep?: number,
    listed?: Row,
  ): Promise<Change[]> {
    const stored = listed ? undefined : await this.#store.get(orderNumber);
    // An order never read before is read whole, whatever named it.
    const parts = listed || stored?.order ? asked : ALL;
    const seen: Observation = {
      orderNumber,
      cause,
      observedAt: new Date(this.#clock.now()).toISOString(),
      sweep,
      nextPollAt: (closed, wasClosed) => this.#nextPoll(closed, wasClosed),
    };
    try {
      if (listed) seen.order = listed;
      else if (parts.order) {
        this.#report.requests++;
        seen.order = storable(await this.#client.orders.get(orderNumber));
      }
      if (parts.items) {
        seen.items = await this.#collect(
          this.#client.orders.items(orderNumber, { limit: PAGE.items }),
        );
        this.#report.itemsReread++;
      }
      if (parts.shipments) {
        seen.shipments = await this.#collect(
          this.#client.orders.shipments(orderNumber, { limit: PAGE.shipments }),
        );
        this.#report.shipmentsReread++;
      }
    } catch (error) {
      if (!isProblem(error, "order_not_found")) throw error;
      seen.order = "gone";
      seen.items = undefined;
      seen.shipments = undefined;
    }
    const changes = await this.#store.commit(orderNumber, (current) => decide(current, seen));
    for (const change of changes) {
      if (change.type === "order.added") this.#report.ordersAdded++;
      if (change.type === "order.changed") this.#report.ordersChanged++;
    }
    this.#report.changesWritten += changes.length;
    if (changes.length) for (const notify of this.#listeners) notify();
    return changes;
  }

  async #collect(list: { pages(): AsyncIterable<{ data: unknown[] }> }): Promise<Row[]> {
    const rows: Row[] = [];
    for await (const page of list.pages()) {
      this.#report.requests++;
      for (const row of page.data) rows.push(storable(row));
    }
    return rows;
  }

  /** Open orders every interval; a closed order once more after it closes, then only on demand. */
  #nextPoll(closed: boolean, wasClosed: boolean | undefined): number | null {
    if (closed && wasClosed === true) return null;
    return this.#clock.now() + this.#openIntervalMs;
  }

  /** Resolves when this process writes a change, or after a while (another process may have). */
  #newChanges(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      // Its own signal, so the timer is cancelled whichever way the wait ends.
      const timer = new AbortController();
      const done = () => {
        this.#listeners.delete(done);
        signal?.removeEventListener("abort", done);
        timer.abort();
        resolve();
      };
      this.#listeners.add(done);
      signal?.addEventListener("abort", done, { once: true });
      this.#clock.sleep(CHANGES_POLL_MS, timer.signal).then(done, done);
    });
  }

  #warn(message: string, error: unknown): void {
    this.#log.warn(message, {
      error: error instanceof Error ? error.name : typeof error,
      ...(error instanceof PartnerOrdersError && "status" in error
        ? { status: (error as { status: number }).status }
        : {}),
    });
  }
}

function leaseTaken(): PartnerOrdersError {
  return new PartnerOrdersError(
    "The sweep lease was taken over by another process, which goes on from the checkpoint.",
  );
}

/** One turn of the event loop (setImmediate where there is one: no timer delay). */
function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

function emptyReport(): SyncReport {
  return {
    ordersSeen: 0,
    ordersAdded: 0,
    ordersChanged: 0,
    itemsReread: 0,
    shipmentsReread: 0,
    changesWritten: 0,
    requests: 0,
    invalidOrders: [],
    durationMs: 0,
  };
}

function merge(a: Parts, b: Parts): Parts {
  return {
    order: a.order || b.order,
    items: a.items || b.items,
    shipments: a.shipments || b.shipments,
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0))
    throw new PartnerOrdersError(`${name} must be a positive number.`);
  return value;
}

/** Bounds the reads in flight (`concurrency`). */
class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async run<T>(task: () => PromiseLike<T> | T): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
