import type { MirrorContext } from "./context";
import { MirrorError } from "./errors";
import type { Change } from "./types";

/** How often a `changes()` loop looks for changes written by other processes. */
const LOOK_MS = 1_000;
/** The longest wait between tries while the store cannot be read. */
const MAX_BACKOFF_MS = 30_000;

/**
 * The change feed: changes in id order, from a named consumer's stored position or from now, woken
 * by this process's writes and looking again every second for other processes'. A store that
 * cannot be read for a while (a database restart) is waited out, not thrown.
 */
export class Feed {
  readonly #ctx: MirrorContext;
  readonly #listeners = new Set<() => void>();
  #closed = false;

  constructor(ctx: MirrorContext) {
    this.#ctx = ctx;
  }

  /** Wakes every waiting loop of this process. */
  notify(): void {
    for (const wake of this.#listeners) wake();
  }

  /** Ends every loop of this mirror (it is closing). */
  close(): void {
    this.#closed = true;
    this.notify();
  }

  async *changes(
    consumer: string | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Change, void, undefined> {
    const { store } = this.#ctx;
    let position = await this.#retrying(signal, () =>
      consumer !== undefined
        ? store.getPosition(consumer).then((p) => p ?? 0)
        : store.lastChangeId(),
    );
    while (position !== undefined && !signal?.aborted && !this.#closed) {
      const from = position;
      const batch = await this.#retrying(signal, () => store.changesAfter(from, 100));
      if (batch === undefined) return;
      if (batch.length === 0) {
        await this.#newChanges(signal);
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
