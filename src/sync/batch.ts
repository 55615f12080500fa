import type { Change, Commit, MirrorStore, OrderCommit, PageWrite, StoredOrder } from "./types";

/**
 * The commits of one page of reads (a page of the list, a round of polls), written together. Each
 * read joins with its decision once its requests are done, or leaves when it has nothing to write
 * (it failed, or was kept out); once the page is sealed with the number of its reads and every one
 * of them has joined or left, `write` commits them in one transaction with the page's marks and
 * checkpoint. A read that joins waits for that write, so reads of one order still never overlap.
 */
export class PageBatch {
  readonly #store: MirrorStore;
  readonly #onArrive: (() => void) | undefined;
  readonly #commits: OrderCommit[] = [];
  readonly #waiting: { resolve(changes: Change[]): void; reject(error: unknown): void }[] = [];
  #arrivals = 0;
  #expected = Number.POSITIVE_INFINITY;
  #arrived!: () => void;
  readonly #allArrived = new Promise<void>((resolve) => {
    this.#arrived = resolve;
  });
  /** Errors of the reads that left without writing. */
  readonly errors: unknown[] = [];
  /** Reads of this page that commit on their own (another read of their order was under way). */
  detached = 0;
  /** The error the page's write failed with, given to every read that joined it. */
  failure: unknown;

  /** `onArrive` runs as each read joins or leaves (the sweep renews its lease then). */
  constructor(store: MirrorStore, onArrive?: () => void) {
    this.#store = store;
    this.#onArrive = onArrive;
  }

  /** Hands over a read's decision; resolves with its changes once the page is written. */
  join(
    orderNumber: number,
    decide: (current: StoredOrder | undefined) => Commit | undefined,
  ): Promise<Change[]> {
    this.#commits.push({ orderNumber, decide });
    const written = new Promise<Change[]>((resolve, reject) =>
      this.#waiting.push({ resolve, reject }),
    );
    this.#arrive();
    return written;
  }

  /** A read that writes nothing with the page (`error`: why it failed). */
  leave(error?: unknown): void {
    if (error !== undefined) this.errors.push(error);
    this.#arrive();
  }

  /** A read that commits on its own: the page no longer holds all of its effect. */
  detach(): void {
    this.detached++;
    this.leave();
  }

  /** Says how many reads the page has; `arrived` resolves once each has joined or left. */
  seal(reads: number): Promise<void> {
    this.#expected = reads;
    this.#check();
    return this.#allArrived;
  }

  /** Writes the reads that joined, with `extra`, in one transaction; each read gets its changes. */
  async write(extra: Omit<PageWrite, "commits"> = {}): Promise<void> {
    let written: Change[][];
    try {
      written =
        this.#commits.length || extra.seen?.orderNumbers.length || extra.checkpoint
          ? await this.#store.commitPage({ commits: this.#commits, ...extra })
          : [];
    } catch (error) {
      this.failure = error;
      for (const read of this.#waiting) read.reject(error);
      throw error;
    }
    for (const [i, read] of this.#waiting.entries()) read.resolve(written[i] ?? []);
  }

  #arrive(): void {
    this.#arrivals++;
    this.#onArrive?.();
    this.#check();
  }

  #check(): void {
    if (this.#arrivals >= this.#expected) this.#arrived();
  }
}
