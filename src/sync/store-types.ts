/** The store's contract: what the mirror asks of `sqliteStore` and `postgresStore`. */

import type { Change, NewChange } from "./change-types";
import type { StoredOrder, StoreOrderQuery } from "./order-types";

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
   * The stored rows of many orders in one statement (a page of the list), by order number; an
   * order never stored has no entry. Each row is what `get` gives for it.
   */
  getMany(orderNumbers: readonly number[]): Promise<Map<number, StoredOrder>>;
  /**
   * True when no other process writes the store while this process's mirror does (SQLite: a
   * second writer is refused), so a row this process read stays as read until it writes it itself.
   */
  soleWriter(): boolean;
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
