import type { MirrorContext } from "./context";
import { ChangesExpiredError, MirrorError } from "./errors";
import type { Change, ChangesFrom } from "./types";

/** How often a `changes()` loop looks for changes written by other processes. */
const LOOK_MS = 1_000;
/** The longest wait between tries while the store cannot be read. */
const MAX_BACKOFF_MS = 30_000;
/** Changes read from the store at once. */
const BATCH = 100;

/**
 * The change feed: changes in id order, from a named consumer's stored position or from now, woken
 * by this process's writes and looking again every second for other processes'. A store that
 * cannot be read for a while (a database restart) is waited out, not thrown.
 */
export class Feed {
  readonly #ctx: MirrorContext;
  readonly #listeners = new Set<() => void>();
  /** Counts this process's writes, so a write that lands while a loop reads is not slept through. */
  #writes = 0;
  #closed = false;

  constructor(ctx: MirrorContext) {
    this.#ctx = ctx;
  }

  /** Wakes every waiting loop of this process. */
  notify(): void {
    this.#writes++;
    for (const wake of this.#listeners) wake();
  }

  /** Ends every loop of this mirror (it is closing). */
  close(): void {
    this.#closed = true;
    this.notify();
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
    let position = await this.#retrying(signal, () => this.#start(consumer, from));
    while (position !== undefined && !signal?.aborted && !this.#closed) {
      const after = position;
      const writes = this.#writes;
      const batch = await this.#retrying(signal, () => this.#read(consumer, after));
      if (batch === undefined) return;
      if (batch.length === 0) {
        // A write notified while the batch was read is not waited for: it is read at once.
        if (writes === this.#writes) await this.#newChanges(signal);
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
  async #start(consumer: string | undefined, from: ChangesFrom): Promise<number> {
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
   * The next changes after `after`. Retention deletes the oldest ids only, so when the next id is
   * there nothing was lost; otherwise ids may simply have been skipped (a PostgreSQL sequence
   * does), and only the highest id ever deleted tells whether changes after `after` are gone.
   */
  async #read(consumer: string | undefined, after: number): Promise<Change[]> {
    const { store } = this.#ctx;
    const batch = await store.changesAfter(after, BATCH);
    if (batch[0]?.id === after + 1) return batch;
    const pruned = await store.prunedThrough();
    if (pruned <= after) return batch;
    const oldest = (await store.changesAfter(pruned, 1))[0]?.id ?? null;
    throw new ChangesExpiredError(consumer, after, pruned, oldest);
  }

  /**
   * Runs a store call until it answers, backing off on the mirror's clock and warning each time;
   * undefined once `signal` aborts. Errors that waiting cannot mend (a schema from a newer version)
   * are thrown.
   */
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

  /** Resolves when this process writes a change, after a while (another process may have), or on abort. */
  #newChanges(signal?: AbortSignal): Promise<void> {
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
