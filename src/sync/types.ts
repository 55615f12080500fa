import type { PartnerOrders } from "../client";
import type { Logger } from "../core/logger";
import type { Order, OrderItem, Shipment } from "../core/models";
import type { Clock } from "../internal/clock";
import type { PollPolicyName, WebhookHealth } from "./poll-types";

/**
 * What made the mirror read an order: a sweep of the list, an open-order poll, a webhook,
 * `refresh()`, or `resync()` (every order re-read).
 */
export type ChangeCause = "sweep" | "poll" | "webhook" | "refresh" | "resync";

/** Fields every {@link Change} carries. */
export interface ChangeBase {
  /** Increasing: a later change has a larger id. Dedupe by it. */
  id: number;
  /** The order the change belongs to. */
  orderNumber: number;
  /** The order's site. */
  siteId: number;
  /** When the mirror saw the difference (ISO 8601, the mirror's clock). */
  observedAt: string;
  /** What made the mirror read the order: `sweep`, `poll`, `webhook`, `refresh` or `resync`. */
  cause: ChangeCause;
  /**
   * True for what the store's first complete pass over its account wrote (the backfill: every
   * order as first found by the first sweep that reached the end of the list); false for
   * everything after, and for what webhooks, polls and `refresh()` found meanwhile.
   */
  snapshot: boolean;
}

/**
 * Where a consumer seen for the first time starts: `beginning` at the oldest change kept, `now`
 * after the newest change. A consumer with a stored position always goes on from it.
 */
export type ChangesFrom = "beginning" | "now";

/** A field-level difference: which fields moved, and what they were before. */
export interface FieldChanges {
  /** The names of the fields whose values differ from the stored ones. */
  fields: string[];
  /** The stored values of those fields before this change (money as exact decimal text). */
  previous: Record<string, unknown>;
}

/**
 * One difference the mirror recorded, written in the same transaction as the new state, so none is
 * lost or invented by a crash. Values are the service's as sent; nothing is re-derived.
 */
export type Change = ChangeBase &
  (
    | {
        /** A new order. */
        type: "order.added";
        /** The order as read. */
        order: Order;
      }
    | ({
        /** Fields of the order differ from the stored ones. */
        type: "order.changed";
        /** The order as read. */
        order: Order;
      } & FieldChanges)
    | {
        /** A new line. */
        type: "item.added";
        /** The line as read. */
        item: OrderItem;
      }
    | ({
        /** Fields of a line differ (its quantity, totals...). */
        type: "item.changed";
        /** The line as read. */
        item: OrderItem;
      } & FieldChanges)
    | {
        /** A line became cancelled (it stays listed). */
        type: "item.cancelled";
        /** The line as read. */
        item: OrderItem;
      }
    | {
        /** A new shipment. */
        type: "shipment.added";
        /** The shipment as read. */
        shipment: Shipment;
      }
    | ({
        /** Fields of a shipment differ (its service, tracking, dates...). */
        type: "shipment.changed";
        /** The shipment as read. */
        shipment: Shipment;
      } & FieldChanges)
    | {
        /** A shipment shipped (its shippedOn was set). */
        type: "shipment.shipped";
        /** The shipment as read. */
        shipment: Shipment;
        /** Its `trackingNumbers` as the service sent them (empty: see `shipment.tracking_fault`). */
        trackingNumbers: string[];
      }
    | {
        /** The carrier reported delivery. */
        type: "shipment.delivered";
        /** The shipment as read. */
        shipment: Shipment;
      }
    | {
        /** A shipment left the list (cancelled). */
        type: "shipment.removed";
        /** The shipment as last stored. */
        shipment: Shipment;
      }
    | {
        /** Shipped with no tracking: the API document's data fault, reported, never re-derived. */
        type: "shipment.tracking_fault";
        /** The shipment as read. */
        shipment: Shipment;
      }
    | {
        /** A stored order now answers 404: kept and flagged, never deleted or marked cancelled. */
        type: "order.unresolvable";
      }
    | {
        /** An order that answered 404 answers again (it is no longer flagged unresolvable). */
        type: "order.restored";
        /** The order as read. */
        order: Order;
      }
  );

/** The `type` of a {@link Change}. */
export type ChangeType = Change["type"];

/** A stored order with its items and shipments, money as `Decimal`, null kept null. */
export interface MirroredOrder extends Order {
  /** The order's lines as last read, cancelled ones included. */
  items: OrderItem[];
  /** The order's shipments as last read, with tracking as the service derived it. */
  shipments: Shipment[];
  /** True while the service answers 404 for it (Errors rule 4: not proof it is gone). */
  unresolvable: boolean;
  /**
   * The partner's own id of the order, present once the mirror learnt it: from a webhook event
   * (events carry it for orders submitted through the API) or from a submission made through the
   * mirror's client. The service's `Order` has no such field.
   */
  partnerOrderId?: string;
}

/** What one {@link OrderMirror.sync} pass (or the work of `run()` so far) did. */
export interface SyncReport {
  /** Orders seen on the list. */
  ordersSeen: number;
  /** Orders stored for the first time. */
  ordersAdded: number;
  /** Orders whose fields differed from the stored ones. */
  ordersChanged: number;
  /** Orders whose items were re-read. */
  itemsReread: number;
  /** Orders whose shipments were re-read. */
  shipmentsReread: number;
  /** Changes recorded. */
  changesWritten: number;
  /** HTTP requests made through the client (retries counted by the client, not here). */
  requests: number;
  /** Orders kept out because the client could not decode them (tried again next sweep). */
  invalidOrders: InvalidOrder[];
  /** How long the pass took, in milliseconds (the mirror's clock). */
  durationMs: number;
}

/** How far a pass has come, for a progress line (`sync({ onProgress })`, `run({ onProgress })`). */
export interface SyncProgress {
  /** List pages read in this pass. */
  pages: number;
  /** Orders seen on the list in this pass. */
  orders: number;
  /** Requests made in this pass. */
  requests: number;
  /** Requests per second in this pass so far. */
  ratePerSecond: number;
}

/** Options of {@link OrderMirror.sync}. */
export interface SyncOptions {
  /** Called as the pass makes progress (after each list page and each batch of reads). */
  onProgress?: (progress: SyncProgress) => void;
}

/** Options of {@link OrderMirror.run}. */
export interface RunOptions extends SyncOptions {
  /** Ends the loop (after the write under way). */
  signal?: AbortSignal;
  /** Called after each sweep this process makes, with what it did. */
  onPass?: (report: SyncReport) => void;
}

/** An order the mirror keeps out: the client could not decode what the service sent for it. */
export interface InvalidOrder {
  /** The order's number; null when the row carried none that could be read. */
  orderNumber: number | null;
  /** The field at fault, as a path (`totals.order`, `items[].lineTotal`). */
  field: string;
  /** Why it was refused. */
  reason: string;
  /** When the mirror last tried it (ISO 8601, the mirror's clock). */
  at: string;
}

/** What {@link OrderMirror.status} tells an operator. Times are ISO 8601 on the mirror's clock. */
export interface MirrorStatus {
  /** The last sweep that ended, in any process: when, and whether it finished or the error's code. */
  lastSweep:
    | {
        /** When it ended. */
        at: string;
        /** It went to the end of the list. */
        ok: true;
      }
    | {
        /** When it ended. */
        at: string;
        /** It failed. */
        ok: false;
        /** The error's code. */
        code: string;
      }
    | null;
  /** Who holds the sweep now, if anyone; `self` when it is this mirror. */
  sweepHolder: {
    /** The holder's name: `host/pid/id`. */
    holder: string;
    /** When it took the sweep; null when the store does not know. */
    since: string | null;
    /** When its lease runs out unless renewed. */
    expiresAt: string;
    /** True when it is this mirror. */
    self: boolean;
  } | null;
  /** Orders not closed (re-read every `pollIntervalMs` at most). */
  openOrders: number;
  /**
   * Webhook health as the mirror believes it, from what every process on the store recorded; with
   * `pollPolicy: "adaptive"` it decides how often open orders are polled.
   */
  webhookHealth: WebhookHealth;
  /**
   * The longest an open order now waits between polls, in ms: `maxOpenOrderIntervalMs` while
   * webhooks are healthy under `pollPolicy: "adaptive"` (each order by how long it has been quiet,
   * from `openOrderIntervalMs` up), else `openOrderIntervalMs`.
   */
  pollIntervalMs: number;
  /** The poll policy in use (`pollPolicy`). */
  pollPolicy: PollPolicyName;
  /** Orders whose re-read is due now. */
  dueNow: number;
  /** How long the oldest due order has waited past its time, in ms; null when none is due. */
  oldestDueLagMs: number | null;
  /** Orders kept out as invalid (see {@link InvalidOrder}). */
  invalidOrders: InvalidOrder[];
  /** The last error the mirror logged, in any process: when, its code and message. */
  lastError: {
    /** When it happened. */
    at: string;
    /** Its code (the problem's, or the mirror's). */
    code: string;
    /** What happened, without secrets. */
    message: string;
  } | null;
  /** Each named consumer: its position, and how far it trails the newest change. */
  consumers: ConsumerStatus[];
  /** The schema version of the store. */
  schemaVersion: number;
  /** The account the store belongs to; null before the first sync. */
  account: StoreAccount | null;
}

/** A named consumer's position and lag. */
export interface ConsumerStatus {
  /** The consumer's name. */
  name: string;
  /** The id of the last change it finished. */
  position: number;
  /** Changes written after its position. */
  lagChanges: number;
  /** How long ago the oldest change it has not finished was observed, in ms; 0 when caught up. */
  lagMs: number;
}

/** Options of {@link OrderMirror}. */
export interface OrderMirrorOptions {
  /** A `PartnerOrders` client; every read goes through it, so its retries and `Retry-After` apply. */
  client: PartnerOrders;
  /** Where the mirror keeps its state: `sqliteStore(path)` or `postgresStore(url)`. */
  store: MirrorStore;
  /**
   * Sites to mirror.
   * @default every granted site
   */
  siteIds?: number[];
  /**
   * How often `run()` sweeps `GET /v1/orders` to the end.
   * @default 900000 (15 min)
   */
  sweepIntervalMs?: number;
  /**
   * How often `run()` re-reads the items and shipments of each order that is not closed.
   * @default 300000 (5 min)
   */
  openOrderIntervalMs?: number;
  /**
   * The longest an open order waits between polls while webhooks are healthy (`pollPolicy:
   * "adaptive"`): quiet orders are polled less often, up to this; at least `openOrderIntervalMs`.
   * @default 3600000 (1 h), or `openOrderIntervalMs` when that is longer
   */
  maxOpenOrderIntervalMs?: number;
  /**
   * `"adaptive"`: open-order polling follows webhook health (see `MirrorStatus.webhookHealth`);
   * `"fixed"`: every open order every `openOrderIntervalMs`, whatever webhooks do.
   * @default "adaptive"
   */
  pollPolicy?: PollPolicyName;
  /**
   * Requests in flight at once, per process.
   * @default 4
   */
  concurrency?: number;
  /**
   * How long the sweep lease lasts without renewal (a holder renews it as its sweep makes
   * progress). Processes sharing a `postgresStore` sweep one at a time. A holder that died is
   * passed over at once when the store can tell (SQLite: its process is gone; PostgreSQL: its
   * connection closed), and after this long otherwise.
   * @default 60000 (1 min)
   */
  sweepLeaseMs?: number;
  /**
   * How long changes are kept: `run()` deletes older ones now and then (after sweeps). A consumer
   * whose position falls behind the oldest kept change gets `ChangesExpiredError`.
   * @default 2592000000 (30 days)
   */
  retentionMs?: number;
  /**
   * How long a member of a consumer group (PostgreSQL: processes reading one consumer name) may sit
   * on a claimed batch, idle, before the server ends its transaction and its unfinished share passes
   * to the other members. A member whose process dies loses its share at once (its connection
   * closes). A handler or loop body that takes longer than this on one batch loses it too.
   * @default 30000 (30 s)
   */
  consumerLeaseMs?: number;
  /**
   * Where warnings go (a failed read, a store error, a process that cannot keep up), each with the
   * problem's code and what the mirror does next; never a token or a body.
   * @default warnings to stderr
   */
  logger?: Logger;
  /**
   * Time as the mirror sees it; inject one in tests so `run()` never sleeps for real.
   * @default the client's default, the system clock
   */
  clock?: Clock;
}

/** An order's row as a store keeps it: JSON-ready values (money as decimal text). */
export interface StoredOrder {
  /** The order's number (the row's key). */
  orderNumber: number;
  /** The order's site. */
  siteId: number;
  /** The order as the service last answered it. */
  order: Record<string, unknown>;
  /** Null until first read. */
  items: Record<string, unknown>[] | null;
  /** Null until first read. */
  shipments: Record<string, unknown>[] | null;
  /** The order's `closed` as last read. */
  closed: boolean;
  /** The partner's id of the order, once learnt (from an event or a submission); never cleared. */
  partnerOrderId?: string;
  /** True while the service answers 404 for it. */
  unresolvable: boolean;
  /** Epoch ms when items and shipments are next due; null when only a webhook or refresh re-reads. */
  nextPollAt: number | null;
  /**
   * The sweep that last saw this order on the list. Stores keep the larger of the stored and the
   * written value: a read that began before the sweep marked the order must not unmark it.
   */
  seenInSweep: number;
}

/** What `orders()` asks a store for: its filters, checked, and the keyset position. */
export interface StoreOrderQuery {
  /** Orders of this site. */
  siteId?: number;
  /** Orders whose status is exactly this. */
  status?: string;
  /** Closed orders (true) or open ones (false). */
  closed?: boolean;
  /** Orders flagged unresolvable (true) or not (false). */
  unresolvable?: boolean;
  /** Orders whose `updatedOn` is at or after this time, as UTC ISO 8601 text with milliseconds. */
  updatedSince?: string;
  /** Orders with a line carrying this `externalId`. */
  externalId?: string;
  /** Orders whose partnerOrderId the mirror learnt as this. */
  partnerOrderId?: string;
  /** Orders numbered above this one. */
  after: number;
  /** At most this many. */
  limit: number;
}

/**
 * A change before the store gives it its id and decides whether it belongs to the snapshot (a
 * `sweep` change written before the first complete sweep ended).
 */
export type NewChange = Omit<Change, "id" | "snapshot"> extends infer C ? C : never;

/**
 * What `commit` hands the store: the new row (or none when only the flags move) and the changes.
 * Produced by a pure function of the stored row, so the store runs it inside its transaction.
 */
export interface Commit {
  /** The row to write. */
  next: StoredOrder;
  /** The changes to append, in order. */
  changes: NewChange[];
}

/** One order's read-decide-write among the others of a {@link PageWrite}. */
export interface OrderCommit {
  /** The order read, locked and written. */
  orderNumber: number;
  /** As for `MirrorStore.commit`: the new row and changes from the stored row, or none. */
  decide: (current: StoredOrder | undefined) => Commit | undefined;
}

/**
 * Everything one page of the list (or one round of polls) writes, committed in one transaction:
 * after a crash the store holds the whole page with its checkpoint, or none of it.
 */
export interface PageWrite {
  /** The orders read, each decided against its stored row in the transaction, in this order. */
  commits: OrderCommit[];
  /** Orders the list showed unchanged, marked seen in `sweep` (as `markSeen`). */
  seen?: {
    /** The orders to mark. */
    orderNumbers: number[];
    /** The sweep that saw them. */
    sweep: number;
  };
  /** A checkpoint set (or, with null, cleared) with the page: the walk's next cursor. */
  checkpoint?: {
    /** The checkpoint's name. */
    name: string;
    /** Its new value; null clears it. */
    value: string | null;
  };
}

/**
 * Where the mirror keeps its state. Every write of state goes with its changes in one transaction
 * (`commit`), and change ids increase in commit order, so a consumer reading by id misses none.
 */
export interface MirrorStore {
  /**
   * Creates the tables when missing, or migrates an older schema forward in one transaction; a
   * newer schema is refused with `SchemaVersionError`. Called once by the mirror before first use,
   * for reading as for writing.
   */
  open(): Promise<void>;
  /**
   * Claims the store for this process's mirror before it writes (`sync`, `run`, `handleEvent`,
   * `refresh`). SQLite is one process: another live process holding it gives `StoreLockedError`;
   * PostgreSQL has nothing to claim. `holder` is the mirror's name (`host/pid/id`).
   */
  claimWriter(holder: string): Promise<void>;
  /**
   * Records the account on first use; another account is refused with `StoreAccountError`.
   */
  claimAccount(account: StoreAccount): Promise<void>;
  /** The store's schema version and account (null before the first claim). */
  info(): Promise<{
    /** The schema version the store holds. */
    schemaVersion: number;
    /** The account recorded on first use; null before. */
    account: StoreAccount | null;
  }>;
  /**
   * In one transaction: reads the stored row of `orderNumber` (locked against other writers), calls
   * `decide` with it, writes the row it returns and appends its changes. Returns the changes as
   * written, ids included.
   */
  commit(
    orderNumber: number,
    decide: (current: StoredOrder | undefined) => Commit | undefined,
  ): Promise<Change[]>;
  /**
   * `commit` for many orders at once, with the page's marks and checkpoint, in one transaction (one
   * lock per order, taken in order-number order). Returns each commit's changes as written, in the
   * order of `page.commits`; change ids increase in that order.
   */
  commitPage(page: PageWrite): Promise<Change[][]>;
  /** The stored row of an order; undefined when never stored. */
  get(orderNumber: number): Promise<StoredOrder | undefined>;
  /**
   * Stored orders matching `query`, by order number, the first `query.limit` of those numbered
   * above `query.after` (keyset paging: one index range per page, never an OFFSET).
   */
  orders(query: StoreOrderQuery): Promise<StoredOrder[]>;
  /**
   * Claims up to `limit` orders whose `nextPollAt` is at or before `epochMs`, soonest first, by
   * moving their `nextPollAt` to `holdUntil` in the same statement: of several processes, exactly
   * one gets each order (PostgreSQL: `FOR UPDATE SKIP LOCKED`). A claim whose holder dies simply
   * comes due again at `holdUntil`.
   */
  claimDue(epochMs: number, limit: number, holdUntil: number): Promise<number[]>;
  /**
   * Takes or renews the lease `name` for `holder` until `expiresAt` (epoch ms); false while another
   * live holder's lease has not expired. A holder the store knows to be dead (`holderIsDead`, or a
   * PostgreSQL session that ended) does not count. One sweep at a time across processes.
   */
  lease(name: string, holder: string, now: number, expiresAt: number): Promise<boolean>;
  /** Who holds lease `name`, since when and until when (epoch ms); null when nobody does. */
  leaseHolder(name: string): Promise<{
    /** The holder's name. */
    holder: string;
    /** When it took the lease (epoch ms). */
    since: number;
    /** When the lease runs out unless renewed (epoch ms). */
    expiresAt: number;
  } | null>;
  /** Gives the lease back, if `holder` still has it. */
  releaseLease(name: string, holder: string): Promise<void>;
  /** The earliest `nextPollAt`, or null when nothing is due ever. */
  nextDue(): Promise<number | null>;
  /** Orders not closed; orders due at `epochMs`, and the earliest due time among them. */
  dueStats(epochMs: number): Promise<{
    /** Orders not closed and not unresolvable. */
    open: number;
    /** Orders due at `epochMs`. */
    due: number;
    /** The earliest due time among them (epoch ms); null when none is due. */
    oldestDueAt: number | null;
  }>;
  /** Stored orders not seen in `sweep` and not already unresolvable. */
  unseen(sweep: number): Promise<number[]>;
  /** Marks orders as seen on the list in `sweep`, without touching anything else. */
  markSeen(orderNumbers: number[], sweep: number): Promise<void>;
  /** Changes with an id above `afterId`, in id order, at most `limit`. */
  changesAfter(afterId: number, limit: number): Promise<Change[]>;
  /** The largest change id so far, 0 when none. */
  lastChangeId(): Promise<number>;
  /** A named value of the mirror's own (a sweep's cursor, its id); null when unset. */
  getCheckpoint(name: string): Promise<string | null>;
  /** Sets (or, with null, clears) a named value. */
  setCheckpoint(name: string, value: string | null): Promise<void>;
  /** A named consumer's position: the id of the last change it finished; null when never seen. */
  getPosition(consumer: string): Promise<number | null>;
  /** Stores a named consumer's position. */
  setPosition(consumer: string, id: number): Promise<void>;
  /** Every named consumer and its position, by name. */
  consumers(): Promise<
    {
      /** The consumer's name. */
      name: string;
      /** The id of the last change it finished. */
      position: number;
    }[]
  >;
  /**
   * Stores `id` as a named consumer's position unless it has one already (another process may have
   * started it meanwhile); returns the position it has now.
   */
  initPosition(consumer: string, id: number): Promise<number>;
  /**
   * Retention, in one transaction: deletes every change whose id is below the first change observed
   * at or after `before` (all of them when none is), so what is kept is always the newest ids, and
   * records the highest id deleted. Returns how many were deleted and the highest id ever deleted.
   */
  pruneChanges(before: string): Promise<{
    /** Changes deleted by this call. */
    pruned: number;
    /** The highest change id ever deleted (0 when none). */
    prunedThrough: number;
  }>;
  /**
   * The highest change id retention ever deleted, 0 when none: a consumer at a position below it
   * has lost changes.
   */
  prunedThrough(): Promise<number>;
  /** The `observedAt` of the first change after `afterId`, or null when there is none. */
  firstObservedAfter(afterId: number): Promise<string | null>;
  /** Closes the connection (a pool the store made itself); the store can be opened again. */
  close(): Promise<void>;
}

/** The account a store belongs to. */
export interface StoreAccount {
  /** `partnerId` from `GET /v1/me`. */
  partnerId: string;
  /** The client's base URL. */
  baseUrl: string;
}
