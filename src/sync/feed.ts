import {
  type ChangeWatch,
  type ClaimedChanges,
  type ConsumerGroupStore,
  isGroupStore,
} from "./consume-types";
import type { MirrorContext } from "./context";
import { ChangesExpiredError, MirrorError } from "./errors";
import type { Change, ChangesFrom } from "./types";

/**
 * How often a `changes()` loop looks for changes written by other processes: on PostgreSQL only
 * the fallback for a notification lost (the listening connection down), on SQLite the way.
 */
export const LOOK_MS = 1_000;
/** Changes a `changes()` loop of a consumer group claims at once. */
const GROUP_BATCH = 100;
/** The longest wait between tries while the store cannot be read. */
const MAX_BACKOFF_MS = 30_000;
/** Changes read from the store at once. */
const BATCH = 100;

/**
 * The change feed: changes in id order, from a named consumer's stored position or from now, woken
 * by this process's writes, by other processes' (PostgreSQL `LISTEN`) and looking again every
 * second. On a store that shares consumers (PostgreSQL) a named consumer is a group, its changes
 * claimed batch by batch. A store that cannot be read for a while (a database restart) is waited
 * out, not thrown.
 */
export class Feed {
  readonly #ctx: MirrorContext;
  readonly #listeners = new Set<() => void>();
  readonly #leaseMs: number;
  #watch: ChangeWatch | undefined;
  #heard = 0;
  readonly #held = new Set<ClaimedChanges>();
  #closed = false;

  /** `leaseMs`: how long a member of a consumer group may sit on a batch before losing it. */
  constructor(ctx: MirrorContext, leaseMs = 30_000) {
    this.#ctx = ctx;
    this.#leaseMs = leaseMs;
  }

  /** How long a member of a consumer group may sit on a batch before losing it. */
  get leaseMs(): number {
    return this.#leaseMs;
  }

  /** True once the mirror is closing: every loop ends. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Wakes every waiting loop of this process. */
  notify(): void {
    this.#heard++;
    for (const wake of this.#listeners) wake();
  }

  /**
   * How many wakes so far: a loop notes it before it reads, and a wake heard while it was reading
   * then ends its wait at once instead of being missed.
   */
  get heard(): number {
    return this.#heard;
  }

  /**
   * Ends every loop of this mirror (it is closing): batches still claimed are given back
   * unacknowledged (a loop suspended inside its body may never resume), so they pass to another
   * member and the store's connections can close.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.notify();
    const watch = this.#watch;
    this.#watch = undefined;
    const held = [...this.#held];
    this.#held.clear();
    await Promise.all([
      watch?.stop().catch(() => undefined),
      ...held.map((batch) => batch.release()),
    ]);
  }

  /** Keeps `batch` on the list of batches given back on close, until `settled` is called. */
  hold(batch: ClaimedChanges): () => void {
    this.#held.add(batch);
    return () => this.#held.delete(batch);
  }

  /**
   * Changes after the consumer's stored position; a consumer seen the first time, or a loop without
   * a name, starts at `from` (by default the oldest kept change for a named consumer, now for a
   * loop without one). A gap retention made behind the position throws `ChangesExpiredError`.
   */
  async *changes(
    consumer: string | undefined,
    signal: AbortSignal | undefined,
    from: ChangesFrom = consumer === undefined ? "now" : "beginning",
  ): AsyncGenerator<Change, void, undefined> {
    const { store } = this.#ctx;
    if (consumer !== undefined && isGroupStore(store)) {
      // A group keeps its own low watermark; `from` only places a consumer seen the first time.
      if ((await this.#retrying(signal, () => this.startGroup(consumer, from))) === undefined)
        return;
      yield* this.#groupChanges(store, consumer, signal);
      return;
    }
    let position = await this.#retrying(signal, () => this.start(consumer, from));
    while (position !== undefined && !signal?.aborted && !this.#closed) {
      const after = position;
      const before = this.#heard;
      const batch = await this.#retrying(signal, () => this.read(consumer, after, BATCH));
      if (batch === undefined) return;
      if (batch.length === 0) {
        // A write heard while the batch was read is not waited for: it is read at once.
        await this.waitForChanges(signal, before);
        continue;
      }
      for (const change of batch) {
        yield change;
        position = change.id;
        if (consumer !== undefined) {
          const id = position;
          // Stored before the next change is handed out: at least once, never skipped.
          if (
            (await this.#retrying(signal, () =>
              store.setPosition(consumer, id).then(() => true),
            )) === undefined
          )
            return;
        }
        if (signal?.aborted || this.#closed) return;
      }
    }
  }

  /** A named consumer's stored position; otherwise, and stored for a new consumer, `from`. */
  async start(consumer: string | undefined, from: ChangesFrom): Promise<number> {
    const { store } = this.#ctx;
    if (consumer !== undefined) {
      const stored = await store.getPosition(consumer);
      if (stored !== null) return stored;
    }
    // The beginning is just before the oldest kept change: after what retention deleted.
    const start = from === "now" ? await store.lastChangeId() : await store.prunedThrough();
    return consumer === undefined ? start : store.initPosition(consumer, start);
  }

  /**
   * Places a member of a consumer group seen the first time at `from`, and throws
   * `ChangesExpiredError` when retention deleted changes after the group's position (its low
   * watermark: every change at or below it is done).
   */
  async startGroup(consumer: string, from: ChangesFrom): Promise<number> {
    const { store } = this.#ctx;
    const position = await this.start(consumer, from);
    const pruned = await store.prunedThrough();
    if (pruned <= position) return position;
    const oldest = (await store.changesAfter(pruned, 1))[0]?.id ?? null;
    throw new ChangesExpiredError(consumer, position, pruned, oldest);
  }

  /**
   * The next changes after `after`, at most `limit`. Retention deletes the oldest ids only, so when the next id is
   * there nothing was lost; otherwise ids may simply have been skipped (a PostgreSQL sequence
   * does), and only the highest id ever deleted tells whether changes after `after` are gone.
   */
  async read(consumer: string | undefined, after: number, limit: number): Promise<Change[]> {
    const { store } = this.#ctx;
    const batch = await store.changesAfter(after, limit);
    if (batch[0]?.id === after + 1) return batch;
    const pruned = await store.prunedThrough();
    if (pruned <= after) return batch;
    const oldest = (await store.changesAfter(pruned, 1))[0]?.id ?? null;
    throw new ChangesExpiredError(consumer, after, pruned, oldest);
  }

  /**
   * A member of a consumer group: batches claimed for it, each change's end stored when the loop
   * asks for the next, and at the end of a batch, a `break` or a throw the changes finished so far.
   */
  async *#groupChanges(
    store: ConsumerGroupStore,
    consumer: string,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Change, void, undefined> {
    while (!signal?.aborted && !this.#closed) {
      const before = this.#heard;
      const batch = await this.#retrying(signal, () =>
        store.claimChanges(consumer, GROUP_BATCH, this.#leaseMs),
      );
      if (batch === undefined) return;
      if (batch === null) {
        await this.waitForChanges(signal, before);
        continue;
      }
      let finished = 0;
      const settled = this.hold(batch);
      try {
        for (const change of batch.changes) {
          yield change;
          finished++;
          if (signal?.aborted || this.#closed) return;
        }
      } finally {
        settled();
        try {
          await batch.ack(finished);
        } catch (error) {
          // At least once: what was not stored comes again, to this member or another.
          this.#ctx.warn("storing the consumer's position failed", error, "its changes come again");
        }
      }
    }
  }

  /**
   * Runs a store call until it answers, backing off on the mirror's clock and warning each time;
   * undefined once `signal` aborts. Errors that waiting cannot mend (a schema from a newer version)
   * are thrown.
   */
  retrying<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T | undefined> {
    return this.#retrying(signal, call);
  }

  async #retrying<T>(
    signal: AbortSignal | undefined,
    call: () => Promise<T>,
  ): Promise<T | undefined> {
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted || this.#closed) return undefined;
      try {
        return await call();
      } catch (error) {
        if (error instanceof MirrorError && error.code !== "store_unavailable") throw error;
        const waitMs = Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt);
        this.#ctx.warn("reading changes failed", error, `trying again in ${waitMs / 1000} s`);
        try {
          await this.#ctx.clock.sleep(waitMs, signal);
        } catch {
          return undefined;
        }
      }
    }
  }

  /**
   * Resolves when this process writes a change, another process's commit is heard (PostgreSQL),
   * after a while (a notification may be lost), or on abort.
   */
  waitForChanges(signal?: AbortSignal, since?: number): Promise<void> {
    const { store } = this.#ctx;
    if (this.#watch) this.#watch.look();
    else if (isGroupStore(store) && !this.#closed)
      this.#watch = store.watchChanges(() => this.notify());
    if (since !== undefined && since !== this.#heard) return Promise.resolve();
    // Aborted or closed while the batch was read: an abort listener added now would never fire.
    if (signal?.aborted || this.#closed) return Promise.resolve();
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
      this.#ctx.clock.sleep(LOOK_MS, timer.signal).then(done, done);
    });
  }
}
