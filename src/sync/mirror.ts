import { PartnerOrdersError } from "../core/errors";
import { listOrdersPage } from "../resources/lenient-page";
import type { WebhookEvent } from "../webhooks/events";
import { checkConsumer, checkEvent, checkFrom, isOrderNumber, positive } from "./checks";
import { consume } from "./consume";
import type { ConsumeOptions } from "./consume-types";
import { ALL, Counters, codeOf, type MirrorContext, messageOf } from "./context";
import { MirrorError, type SweepHeldError } from "./errors";
import { Feed } from "./feed";
import { retireHolder } from "./holder";
import { PollRounds } from "./keep-up";
import { recordError } from "./last-error";
import { mirrorContext } from "./mirror-options";
import { runLoop } from "./mirror-run";
import { readStatus } from "./mirror-status";
import { type PartnerIds, partnerOrderIdOf } from "./partner-ids";
import { mirrored, type OrderQuery, queryOrders } from "./query";
import { Reader } from "./reader";
import { registerStore } from "./registry";
import { RequestLog } from "./request-log";
import { type ResyncOptions, resyncSites, resyncUnderLease } from "./resync";
import { consumerStatuses, resetConsumer } from "./stream";
import { type ListPage, Sweeper } from "./sweep";
import type { MirrorTelemetry } from "./telemetry";
import type {
  Change,
  ChangesFrom,
  ConsumerStatus,
  MirroredOrder,
  MirrorStatus,
  OrderMirrorOptions,
  RunOptions,
  SyncOptions,
  SyncReport,
} from "./types";

/** Event ids remembered, so a delivery repeated later is not read again. */
const RECENT_EVENTS = 10_000;

/**
 * A local copy of the partner's orders, items and shipments that converges on the service's truth,
 * and a stream of what changed. See the README, "Keeping a local mirror".
 *
 * @example
 * const mirror = new OrderMirror({ client, store: sqliteStore("./orders.db") });
 * await mirror.sync();
 * for await (const change of mirror.changes({ consumer: "billing" })) console.log(change.type);
 */
export class OrderMirror {
  readonly #ctx: MirrorContext;
  readonly #reader: Reader;
  readonly #sweeper: Sweeper;
  readonly #feed: Feed;
  readonly #requests: RequestLog;
  #opened: Promise<void> | undefined;
  #writing: Promise<void> | undefined;
  /** Recent webhook event ids and the read each started: duplicates join it, later ones skip it. */
  readonly #events = new Map<string, Promise<void>>();
  /** Open-order poll rounds of `run()`, with the warning when this process falls behind. */
  readonly #rounds: PollRounds;
  /** The sites asked for; undefined for every granted site. */
  readonly #sites: ReadonlySet<number> | undefined;
  /** Stops learning partnerOrderIds from the client's submissions. */
  readonly #unwatch: () => void;
  #closed = false;

  constructor(options: OrderMirrorOptions) {
    const ctx = mirrorContext(options, { mirror: this, changed: () => this.#feed.notify() });
    this.#ctx = ctx;
    this.#sites = options.siteIds?.length ? new Set(options.siteIds) : undefined;
    this.#reader = new Reader(ctx);
    this.#rounds = new PollRounds(ctx, this.#reader);
    this.#sweeper = new Sweeper(ctx, this.#reader, (siteId, cursor) => this.#page(siteId, cursor));
    this.#feed = new Feed(ctx, positive(options.consumerLeaseMs ?? 30_000, "consumerLeaseMs"));
    this.#requests = new RequestLog(ctx);
    registerStore(this, ctx, () => this.#open());
    this.#unwatch = (ctx.partnerIds as PartnerIds).watch(ctx.client, (orderNumber, id) =>
      this.#writePartnerOrderId(orderNumber, id),
    );
  }

  /**
   * One reconciliation pass: a sweep of `GET /v1/orders` to the end (resuming a stored checkpoint),
   * items and shipments of new and changed orders, stored orders missing from the list checked one
   * by one, and the open orders that were due when it began, each once. When another process
   * holds the sweep, this one reads its share of the due orders and throws `SweepHeldError` (its
   * `report` says what it did): no sweep is reported that was not made.
   */
  sync(options: SyncOptions = {}): Promise<SyncReport> {
    return (this.#ctx.telemetry as MirrorTelemetry).pass(() => this.#sync(options), passDone);
  }

  async #sync(options: SyncOptions): Promise<SyncReport> {
    this.#checkOpen();
    await this.#startWriting();
    const counters = new Counters(this.#ctx.clock, options.onProgress);
    this.#ctx.report = counters;
    const passStart = this.#ctx.clock.now();
    let swept = false;
    try {
      const outcome = await this.#sweeper.sweep(false);
      swept = outcome === "swept";
      await this.#reader.pollDue(passStart, () => false);
      if (outcome === "held") throw await this.#held(counters);
    } catch (error) {
      this.#recordError(codeOf(error), messageOf(error));
      throw error;
    } finally {
      await this.#requests.record(counters, swept ? counters.ordersSeen : undefined);
    }
    return counters.report();
  }

  /** The `SweepHeldError` of a pass that found the sweep held, with what the pass did meanwhile. */
  async #held(counters: Counters): Promise<SweepHeldError> {
    const held = await this.#sweeper.heldError();
    held.report = counters.report();
    return held;
  }

  /**
   * Keeps converging until `signal` aborts: a sweep every `sweepIntervalMs`, open orders every
   * `openOrderIntervalMs`, events as `handleEvent` receives them. A transient failure (the service
   * or the database away for a while) is logged with what happens next and tried again with
   * backoff; an error no retry can fix (credentials refused, a missing scope, a site not granted,
   * a base URL that answers no token, a store of another account) ends it, thrown with its code
   * and a hint.
   */
  async run(options: RunOptions = {}): Promise<void> {
    this.#checkOpen();
    return runLoop(
      {
        ctx: this.#ctx,
        sweeper: this.#sweeper,
        requests: this.#requests,
        rounds: this.#rounds,
        startWriting: () => this.#startWriting(),
      },
      options,
    );
  }

  /**
   * A webhook event: re-reads now what it names (the order, its shipments or its items). Duplicates
   * and bursts for one order join one read, and an event id seen lately is not read again; test
   * events and unknown types do nothing. Resolves once the read is recorded; its changes come
   * through `changes()`. An object that is no event (a numeric `eventId`, an `orderNumber` that is
   * no positive whole number) is refused with a `MirrorError` (`invalid_event`).
   */
  async handleEvent(event: WebhookEvent): Promise<void> {
    this.#checkOpen();
    const named = checkEvent(event);
    if (!named) return;
    // Events come for every granted site; a mirror of some sites reads only theirs.
    if (this.#sites && !this.#sites.has((event as { siteId?: unknown }).siteId as number)) return;
    const known = this.#events.get(named.eventId);
    if (known) return known;
    const partnerOrderId = partnerOrderIdOf((event as { partnerOrderId?: unknown }).partnerOrderId);
    if (partnerOrderId !== undefined)
      this.#ctx.partnerIds?.learn(named.orderNumber, partnerOrderId);
    const read = this.#startWriting()
      .then(() =>
        Promise.all([
          this.#ctx.policy.announce(named.orderNumber, event.type),
          this.#reader.schedule(named.orderNumber, named.parts, "webhook"),
        ]),
      )
      .then(() => undefined);
    this.#events.set(named.eventId, read);
    if (this.#events.size > RECENT_EVENTS) {
      this.#events.delete(this.#events.keys().next().value as string);
    }
    // A read that failed is forgotten, so a repeated delivery of the event tries again.
    read.catch(() => this.#events.delete(named.eventId));
    return read;
  }

  /** Re-reads one order, its items and its shipments now. Resolves with the changes recorded. */
  async refresh(orderNumber: number): Promise<Change[]> {
    if (!isOrderNumber(orderNumber)) {
      throw new PartnerOrdersError(
        `refresh needs an order number (a positive integer), not ${String(orderNumber).slice(0, 40)}.`,
      );
    }
    this.#checkOpen();
    await this.#startWriting();
    return this.#reader.schedule(orderNumber, ALL, "refresh");
  }

  /**
   * Changes in id order. With `consumer`, from its stored position, the position stored once the
   * loop asks for the next change (at least once: dedupe by `id`); a consumer seen the first time
   * starts at `from`: `"beginning"` (the default, the oldest kept change) or `"now"`. Without a
   * consumer, the changes from now on (or from the oldest kept one with `from: "beginning"`). A
   * position whose next changes retention deleted throws `ChangesExpiredError`. On PostgreSQL a
   * consumer name is a group: processes reading one name split the stream (each change to one of
   * them, one order's changes to one at a time, in id order), and a loop wakes on `LISTEN` when
   * another process commits. Ends when `signal` aborts or the mirror closes; a store that cannot be
   * read for a while is waited out with warnings.
   */
  async *changes(
    options: { consumer?: string; signal?: AbortSignal; from?: ChangesFrom } = {},
  ): AsyncGenerator<Change, void, undefined> {
    const { consumer, signal, from } = options;
    if (consumer !== undefined) checkConsumer(consumer, "changes()");
    const start = from === undefined ? undefined : checkFrom(from, "changes()'s from");
    await this.#open();
    yield* this.#feed.changes(consumer, signal, start);
  }

  /** Every named consumer: its position, and how far it trails the newest change. */
  async consumers(): Promise<ConsumerStatus[]> {
    await this.#open();
    return consumerStatuses(this.#ctx.store, this.#ctx.clock.now());
  }

  /**
   * Moves a named consumer to the oldest kept change (`"beginning"`) or past the newest one
   * (`"now"`), creating it when it is new: how a consumer behind retention (`ChangesExpiredError`)
   * goes on. Stop the consumer's loops first: a running loop stores its own position as it goes.
   */
  async resetConsumer(name: string, to: ChangesFrom): Promise<void> {
    this.#checkOpen();
    checkConsumer(name, "resetConsumer");
    const where = checkFrom(to, "resetConsumer's to");
    await this.#open();
    await resetConsumer(this.#ctx.store, name, where);
  }

  /**
   * Hands `handler` the consumer's next changes, up to `batchSize` at a time, and advances its
   * position only when the handler resolves; goes on until `signal` aborts (then resolves, the
   * batch under way finished and stored) or the mirror closes. On PostgreSQL `tx` is the
   * transaction that stores the position (`tx.exactlyOnce`, `tx.query`): writes made through it
   * happen exactly once, crash or not, and processes consuming one name split the stream. On
   * SQLite it is at least once. A handler that throws leaves its batch unacknowledged (its writes
   * through `tx` rolled back) and `consume()` rejects with that error; the batch comes again.
   */
  async consume(options: ConsumeOptions): Promise<void> {
    this.#checkOpen();
    await this.#open();
    return consume(this.#ctx, this.#feed, options);
  }

  /** The stored order with its items and shipments, money as `Decimal`; undefined when never seen. */
  async get(orderNumber: number): Promise<MirroredOrder | undefined> {
    await this.#open();
    const row = await this.#ctx.store.get(orderNumber);
    return row ? mirrored(row) : undefined;
  }

  /**
   * The stored orders matching `query`, as `get()` gives them, by order number, read from the store
   * a page at a time (a keyset on the order number, each filter on an indexed column). Works from
   * any process, like `get()` and `changes()`. Bad options are refused with a `MirrorError`
   * (`invalid_query`) when iteration starts.
   *
   * @example
   * for await (const o of mirror.orders({ siteId: 12, status: "In Production", closed: false })) {
   *   console.log(o.orderNumber, o.totals.order?.toFixed(2));
   * }
   */
  orders(query?: OrderQuery): AsyncGenerator<MirroredOrder, void, undefined> {
    return queryOrders(this.#ctx.store, query, () => this.#open());
  }

  /**
   * Re-reads every order of `siteIds` (the mirror's sites by default), closed ones included: the
   * list to its end, and every order's items and shipments, then stored orders the list no longer
   * shows. Every difference is recorded as changes with cause `resync`. It takes the sweep lease,
   * so it never runs beside a sweep (another process's sweep under way gives `SweepHeldError`); it
   * checkpoints as it goes, so a resync of the same sites that was stopped resumes. Resolves with
   * what it did.
   */
  async resync(options: ResyncOptions = {}): Promise<SyncReport> {
    this.#checkOpen();
    const siteIds = resyncSites(options.siteIds, this.#sites, this.#ctx.siteIds);
    await this.#startWriting();
    const counters = new Counters(this.#ctx.clock, options.onProgress);
    this.#ctx.report = counters;
    try {
      const outcome = await this.#sweeper.underLease(() =>
        resyncUnderLease(this.#ctx, this.#reader, this.#sweeper, siteIds, options.signal),
      );
      if (outcome === "held") throw await this.#held(counters);
    } catch (error) {
      this.#recordError(codeOf(error), messageOf(error));
      throw error;
    } finally {
      await this.#requests.record(counters);
    }
    return counters.report();
  }

  /**
   * What an operator needs to see, read from the store so it covers every process of a fleet: the
   * last sweep and who holds the sweep now, open orders, the orders due and the oldest one's lag,
   * orders kept out as invalid, the last error, and each named consumer's position and lag.
   */
  async status(): Promise<MirrorStatus> {
    await this.#open();
    return readStatus(this.#ctx);
  }

  /** Waits for reads under way, ends `changes()` loops, gives the store's claims back and closes it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#feed.close();
    this.#unwatch();
    this.#ctx.telemetry?.close();
    await this.#reader.idle();
    retireHolder(this.#ctx.holder);
    await this.#ctx.store.close();
    this.#opened = undefined;
    this.#writing = undefined;
  }

  /**
   * A partnerOrderId learnt from a submission of this client, for an order the mirror may already
   * store: written now, without a read, when this mirror writes in this process (else with the
   * order's next read).
   */
  #writePartnerOrderId(orderNumber: number, id: string): void {
    const writing = this.#writing;
    if (!writing || this.#closed) return;
    void writing
      .then(() => (this.#ctx.partnerIds as PartnerIds).write(this.#ctx.store, orderNumber, id))
      .catch((error) =>
        this.#ctx.warn(
          `recording the partnerOrderId of order ${orderNumber} failed`,
          error,
          "it is written with the order's next read",
        ),
      );
  }

  /** A closed mirror stays closed: a new process (or a new OrderMirror) opens the store again. */
  #checkOpen(): void {
    if (this.#closed)
      throw new MirrorError("mirror_closed", "This OrderMirror was closed; make a new one.");
  }

  #open(): Promise<void> {
    this.#opened ??= this.#ctx.store.open().then(() => this.#ctx.invalid.load());
    const opened = this.#opened;
    opened.catch(() => {
      if (this.#opened === opened) this.#opened = undefined;
    });
    return opened;
  }

  /**
   * Before the first write: the store opened and claimed for this process (SQLite is one process),
   * and tied to the client's account (a store of another account is refused).
   */
  #startWriting(): Promise<void> {
    this.#writing ??= (async () => {
      await this.#open();
      const { store, client, holder } = this.#ctx;
      await store.claimWriter(holder);
      const me = await client.me();
      await store.claimAccount({ partnerId: me.partnerId, baseUrl: client.baseUrl });
    })();
    const writing = this.#writing;
    writing.catch(() => {
      if (this.#writing === writing) this.#writing = undefined;
    });
    return writing;
  }

  /** A page of the list for the sweep: a row whose money does not decode is set apart, not fatal. */
  async #page(siteId: number | undefined, cursor: string | undefined): Promise<ListPage> {
    const page = await listOrdersPage(this.#ctx.client, { siteId, cursor, limit: 200 });
    return {
      data: page.data as unknown as Record<string, unknown>[],
      nextCursor: page.nextCursor,
      rejected: page.rejected,
    };
  }

  #recordError(code: string, message: string): void {
    recordError(this.#ctx, code, message);
  }
}

/** What a span of a pass says it did. */
function passDone(report: SyncReport): Record<string, number> {
  return {
    "partner_orders.orders.seen": report.ordersSeen,
    "partner_orders.changes": report.changesWritten,
    "partner_orders.requests": report.requests,
  };
}
