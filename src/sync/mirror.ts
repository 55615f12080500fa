import { PartnerOrdersError } from "../core/errors";
import { createLog } from "../core/logger";
import { systemClock } from "../internal/clock";
import { httpOf } from "../internal/http-access";
import { listOrdersPage } from "../resources/lenient-page";
import type { WebhookEvent } from "../webhooks/events";
import { checkConsumer, checkEvent, checkFrom, isOrderNumber, positive } from "./checks";
import { consume } from "./consume";
import type { ConsumeOptions } from "./consume-types";
import {
  ALL,
  Counters,
  codeOf,
  InvalidOrders,
  type MirrorContext,
  messageOf,
  parseJson,
  STATUS,
} from "./context";
import { MirrorError, type SweepHeldError } from "./errors";
import { fatalError } from "./fatal";
import { Feed } from "./feed";
import { newHolder, retireHolder } from "./holder";
import { PartnerIds, partnerOrderIdOf } from "./partner-ids";
import { healthStatus, policyFor } from "./poll-setup";
import { mirrored, type OrderQuery, queryOrders } from "./query";
import { Reader } from "./reader";
import { registerStore } from "./registry";
import { RequestLog } from "./request-log";
import { type ResyncOptions, resyncSites, resyncUnderLease } from "./resync";
import { consumerStatuses, DEFAULT_RETENTION_MS, pruneChanges, resetConsumer } from "./stream";
import { type ListPage, Sweeper } from "./sweep";
import { MirrorTelemetry } from "./telemetry";
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
  /** When this process last warned that it cannot keep up with its open orders. */
  #warnedBehindAt = Number.NEGATIVE_INFINITY;
  /** The sites asked for; undefined for every granted site. */
  readonly #sites: ReadonlySet<number> | undefined;
  /** Stops learning partnerOrderIds from the client's submissions. */
  readonly #unwatch: () => void;
  #closed = false;

  constructor(options: OrderMirrorOptions) {
    if (!options?.client || !options.store) {
      throw new PartnerOrdersError("OrderMirror needs { client, store }.");
    }
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new PartnerOrdersError("concurrency must be a whole number >= 1.");
    }
    const clock = options.clock ?? systemClock;
    // Warnings reach stderr unless the partner routes them: a mirror in trouble is never silent.
    const log = createLog(options.logger ?? console, "warn");
    const store = options.store;
    const openIntervalMs = positive(
      options.openOrderIntervalMs ?? 5 * 60_000,
      "openOrderIntervalMs",
    );
    const ctx: MirrorContext = {
      client: options.client,
      store,
      clock,
      log,
      holder: newHolder(),
      siteIds: options.siteIds?.length ? [...options.siteIds] : [undefined],
      sweepIntervalMs: positive(options.sweepIntervalMs ?? 15 * 60_000, "sweepIntervalMs"),
      openIntervalMs,
      policy: policyFor(options, { store, clock, log, openIntervalMs }),
      leaseMs: positive(options.sweepLeaseMs ?? 60_000, "sweepLeaseMs"),
      concurrency,
      retentionMs: positive(options.retentionMs ?? DEFAULT_RETENTION_MS, "retentionMs"),
      report: new Counters(clock),
      changed: () => this.#feed.notify(),
      invalid: new InvalidOrders(store),
      partnerIds: new PartnerIds(),
      telemetry: new MirrorTelemetry(httpOf(options.client)?.telemetry, this),
      warn: (message, error, next) => {
        const code = codeOf(error);
        const said = messageOf(error).slice(0, 300);
        log.warn(`${message} (${code}); ${next}`, { code, error: said });
        this.#recordError(code, `${message}: ${said}`);
      },
    };
    this.#ctx = ctx;
    this.#sites = options.siteIds?.length ? new Set(options.siteIds) : undefined;
    this.#reader = new Reader(ctx);
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
    const { signal, onPass, onProgress } = options;
    const { clock, store, sweepIntervalMs, leaseMs, openIntervalMs } = this.#ctx;
    this.#checkOpen();
    await this.#startRunning(signal);
    let nextSweep = clock.now();
    let nextPrune = clock.now();
    let sweepFailures = 0;
    let pollFailures = 0;
    this.#ctx.report = new Counters(clock, onProgress);
    while (!signal?.aborted) {
      if (clock.now() >= nextSweep) {
        try {
          const outcome = await (this.#ctx.telemetry as MirrorTelemetry).pass(
            () => this.#sweeper.sweep(true, signal),
            (swept) => ({ "partner_orders.sweep.outcome": swept }),
          );
          sweepFailures = 0;
          if (outcome === "swept") {
            await this.#requests.record(this.#ctx.report, this.#ctx.report.ordersSeen);
            const report = this.#ctx.report.report();
            this.#ctx.report = new Counters(clock, onProgress);
            try {
              onPass?.(report);
            } catch {
              // A caller's report handler that fails must not fail the loop.
            }
          }
          // Another process holds the lease or swept lately: look again within a lease's time, so
          // a sweep whose holder died is taken over.
          nextSweep =
            clock.now() +
            (outcome === "swept" ? sweepIntervalMs : Math.min(sweepIntervalMs, leaseMs));
        } catch (error) {
          if (signal?.aborted) break;
          this.#throwIfFatal(error);
          sweepFailures++;
          const waitMs = Math.min(sweepIntervalMs, 60_000 * 2 ** Math.min(sweepFailures - 1, 4));
          this.#ctx.warn(
            "sweep failed",
            error,
            `the next try is in ${Math.round(waitMs / 1000)} s`,
          );
          nextSweep = clock.now() + waitMs;
        }
      }
      // Retention, after the sweep: once per sweep interval in each process.
      if (clock.now() >= nextPrune) {
        nextPrune = clock.now() + sweepIntervalMs;
        await pruneChanges(this.#ctx);
      }
      // Polls wait while a round keeps failing (the database read-only, a full disk), not spin.
      let pollsResume = clock.now();
      try {
        await this.#pollRound(() => signal?.aborted === true || clock.now() >= nextSweep);
        pollFailures = 0;
        await this.#requests.record(this.#ctx.report);
      } catch (error) {
        if (signal?.aborted) break;
        this.#throwIfFatal(error);
        pollFailures++;
        const waitMs = Math.min(openIntervalMs, 1_000 * 2 ** Math.min(pollFailures - 1, 6));
        this.#ctx.warn(
          "open-order polls failed",
          error,
          `they are tried again in ${waitMs / 1000} s`,
        );
        pollsResume = clock.now() + waitMs;
      }
      let due: number | null;
      try {
        due = await store.nextDue();
      } catch (error) {
        this.#ctx.warn("reading the poll schedule failed", error, "trying again in 5 s");
        due = clock.now() + 5_000;
      }
      // An order a webhook adds while this process sleeps is due within an interval at most.
      const nextPoll = Math.max(due ?? Number.POSITIVE_INFINITY, pollsResume, clock.now() + 1);
      const wake = Math.min(nextSweep, nextPoll, clock.now() + openIntervalMs);
      try {
        await clock.sleep(wake - clock.now(), signal);
      } catch {
        // Aborted: the loop condition ends it.
      }
    }
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
    const { store, clock, holder } = this.#ctx;
    const now = clock.now();
    const [info, lease, due, consumers, lastSweep, lastError] = await Promise.all([
      store.info(),
      store.leaseHolder("sweep"),
      store.dueStats(now),
      consumerStatuses(store, now),
      store.getCheckpoint(STATUS.lastSweep),
      store.getCheckpoint(STATUS.lastError),
    ]);
    const invalid = parseJson<MirrorStatus["invalidOrders"]>(
      await store.getCheckpoint(STATUS.invalid),
    );
    return {
      lastSweep: parseJson(lastSweep) ?? null,
      sweepHolder: lease
        ? {
            holder: lease.holder,
            since: Number.isFinite(lease.since) ? new Date(lease.since).toISOString() : null,
            expiresAt: new Date(lease.expiresAt).toISOString(),
            self: lease.holder === holder,
          }
        : null,
      openOrders: due.open,
      ...(await healthStatus(this.#ctx)),
      dueNow: due.due,
      oldestDueLagMs: due.oldestDueAt === null ? null : Math.max(0, now - due.oldestDueAt),
      invalidOrders: invalid ?? [],
      lastError: parseJson(lastError) ?? null,
      consumers,
      schemaVersion: info.schemaVersion,
      account: info.account,
    };
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

  /** `#startWriting` for `run()`: transient failures are waited out, fatal ones thrown. */
  async #startRunning(signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 0; !signal?.aborted; attempt++) {
      try {
        return await this.#startWriting();
      } catch (error) {
        this.#throwIfFatal(error);
        const waitMs = Math.min(60_000, 1_000 * 2 ** attempt);
        this.#ctx.warn("starting the mirror failed", error, `trying again in ${waitMs / 1000} s`);
        await this.#ctx.clock.sleep(waitMs, signal).catch(() => undefined);
      }
    }
  }

  /** One bounded round of polls, then a warning with the numbers when this process falls behind. */
  async #pollRound(stop: () => boolean): Promise<void> {
    const { clock, store, report, openIntervalMs, concurrency } = this.#ctx;
    const started = clock.now();
    const requestsBefore = report.requests;
    await this.#reader.pollDue(started, stop);
    const now = clock.now();
    // Behind: an order has waited a whole interval past its time. Said once per interval; the
    // counting is done only then (the earliest due time is one index look-up).
    if (now - this.#warnedBehindAt < openIntervalMs) return;
    const earliest = await store.nextDue();
    if (earliest === null || now - earliest < openIntervalMs) return;
    const { open, oldestDueAt } = await store.dueStats(now);
    if (oldestDueAt === null) return;
    this.#warnedBehindAt = now;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const achieved = (report.requests - requestsBefore) / seconds;
    const needed = (open * 2) / (openIntervalMs / 1000);
    const interval = achieved > 0 ? Math.ceil((open * 2) / achieved) : Number.NaN;
    this.#ctx.log.warn(
      `cannot keep up with open orders: ${open} open orders need about ${open * 2} requests every ${openIntervalMs / 1000} s (${needed.toFixed(1)}/s); this process made ${achieved.toFixed(1)}/s in its last round, and the oldest due order is ${Math.round((now - oldestDueAt) / 1000)} s late. Raise openOrderIntervalMs${Number.isFinite(interval) ? ` to at least ${interval} s` : ""}, raise concurrency (now ${concurrency}), or share the work among processes on postgresStore.`,
      {
        code: "falling_behind",
        openOrders: open,
        requestsPerRound: open * 2,
        achievedPerSecond: achieved,
      },
    );
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

  #throwIfFatal(error: unknown): void {
    const fatal = fatalError(error);
    if (!fatal) return;
    this.#recordError(fatal.code, fatal.message);
    this.#ctx.log.error(fatal.message, { code: fatal.code });
    throw fatal;
  }

  #recordError(code: string, message: string): void {
    const at = new Date(this.#ctx.clock.now()).toISOString();
    void this.#ctx.store
      .setCheckpoint(STATUS.lastError, JSON.stringify({ at, code, message: message.slice(0, 500) }))
      .catch(() => undefined);
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
