import type { PgResult } from "./stores/pg-connection";
import type { Change } from "./types";

/**
 * The transaction `consume()` hands its handler on PostgreSQL: the one in which the consumer's
 * position is stored. Whatever the handler writes through `query` commits together with the
 * position, or not at all, so those effects happen exactly once, crash or not.
 */
export interface ExactlyOnceTransaction {
  /** Writes made through `query` commit with the position: exactly once. */
  exactlyOnce: true;
  /**
   * Runs one statement in the transaction, on the mirror's database (`$1`-style parameters, as in
   * `pg`). Do not COMMIT or ROLLBACK here: the mirror does, after the handler resolves or throws.
   */
  query(text: string, values?: unknown[]): Promise<PgResult>;
}

/**
 * What `consume()` hands its handler on SQLite: no transaction to write through. The position is
 * stored after the handler resolves, so a crash in between delivers the batch again (at least
 * once): make the handler's effects idempotent, for example keyed by the change's `id`.
 */
export interface AtLeastOnceTransaction {
  /** At least once: a batch may come again after a crash. Dedupe by `id`. */
  exactlyOnce: false;
}

/**
 * The second argument of a `consume()` handler. Check `exactlyOnce` before writing: on PostgreSQL
 * it carries `query`, in the transaction that stores the position.
 */
export type ConsumeTransaction = ExactlyOnceTransaction | AtLeastOnceTransaction;

/** Options of {@link OrderMirror.consume}. */
export interface ConsumeOptions {
  /**
   * The consumer's name. On PostgreSQL a name is a group: processes consuming the same name split
   * the stream between them (each change to one of them, one order's changes to one at a time in
   * `id` order).
   */
  consumer: string;
  /**
   * The most changes handed to `handler` at once.
   * @default 100
   */
  batchSize?: number;
  /**
   * Called with the next changes (in `id` order within each order) and the transaction that
   * stores the position. The position advances only when it resolves. When it throws, the batch
   * is not acknowledged (on PostgreSQL its writes through `tx` are rolled back), `consume()`
   * rejects with that error, and the batch comes again to the next consumer of the name.
   */
  handler: (changes: Change[], tx: ConsumeTransaction) => Promise<void> | void;
  /** Ends the loop: `consume()` resolves once the batch under way is handled and stored. */
  signal?: AbortSignal;
}

/**
 * A batch a store claimed for a member of a consumer group, in a transaction still open. Exactly
 * one of `ack` or `release` ends it.
 */
export interface ClaimedChanges {
  /** The changes claimed, in id order. */
  changes: Change[];
  /** The transaction the batch is claimed in. */
  tx: ExactlyOnceTransaction;
  /**
   * Marks the first `count` changes (all by default) done, moves the consumer's position, and
   * commits, with whatever was written through `tx`.
   */
  ack(count?: number): Promise<void>;
  /** Rolls back: nothing is marked done, and the changes pass on to the next claim. */
  release(): Promise<void>;
}

/** Wakes the mirror's change loops when another process commits changes. */
export interface ChangeWatch {
  /** Called at each periodic look: listens again if the listening connection was lost. */
  look(): void;
  /** Stops listening. */
  stop(): Promise<void>;
}

/**
 * What a store that shares a consumer among processes adds to {@link MirrorStore} (PostgreSQL).
 * A store without it serves a named consumer from its position alone (one member).
 */
export interface ConsumerGroupStore {
  /**
   * Claims up to `limit` changes of `consumer` no other member holds; null when none is free. A
   * member that neither acknowledges nor releases within `leaseMs` of idleness loses its batch.
   */
  claimChanges(consumer: string, limit: number, leaseMs: number): Promise<ClaimedChanges | null>;
  /** Calls `wake` when any process commits changes (`LISTEN`); `look` keeps it listening. */
  watchChanges(wake: () => void): ChangeWatch;
}

/** True when `store` shares named consumers among processes. */
export function isGroupStore(store: object): store is ConsumerGroupStore {
  const candidate = store as Partial<ConsumerGroupStore>;
  return (
    typeof candidate.claimChanges === "function" && typeof candidate.watchChanges === "function"
  );
}
