import { isProblem } from "../core/errors";
import { PageBatch } from "./batch";
import { ALL, codeOf, LINES, type MirrorContext, STATUS } from "./context";
import { sameJson } from "./diff";
import { MirrorError, SweepHeldError } from "./errors";
import { Failures } from "./failures";
import { fatalError } from "./fatal";
import { iso, keepOut, type ListPage, listedOrders, type Row } from "./list-page";
import type { Reader } from "./reader";
import { STREAM } from "./stores/schema";

/** Orders read at once by the check of stored orders the list no longer shows. */
const BATCH = 100;
/** How often one sweep starts over after the service refused its cursor before it gives up. */
const MAX_RESTARTS = 3;

export type { ListPage } from "./list-page";

/** What asking for a sweep came to. */
export type SweepOutcome = "swept" | "not-due" | "held";

/**
 * The sweep: `GET /v1/orders` walked to the end under a lease (one process at a time), each page
 * checkpointed once its orders are stored, so a crash resumes at the page it was on.
 */
export class Sweeper {
  readonly #ctx: MirrorContext;
  readonly #reader: Reader;
  readonly #readPage: (siteId: number | undefined, cursor: string | undefined) => Promise<ListPage>;
  /** When this process last renewed the lease, and whether a renewal found it taken. */
  #renewedAt = Number.NEGATIVE_INFINITY;
  #lost = false;
  /** The renewal `keepLease` started and is waiting for, if any. */
  #keeping: Promise<void> | undefined;
  /** The sweep under way in this process: a second request joins it rather than sweeping twice. */
  #running: Promise<SweepOutcome> | undefined;
  /** A resync (or other walk under the lease) of this process, settled or not. */
  #resyncing: Promise<void> | undefined;

  constructor(
    ctx: MirrorContext,
    reader: Reader,
    readPage: (siteId: number | undefined, cursor: string | undefined) => Promise<ListPage>,
  ) {
    this.#ctx = ctx;
    this.#reader = reader;
    this.#readPage = readPage;
  }

  /**
   * Sweeps unless another process holds the lease (`"held"`) or, with `onlyIfDue`, swept within
   * the interval (`"not-due"`). The sweep's end, ok or not, is recorded for `status()`.
   */
  sweep(onlyIfDue: boolean, signal?: AbortSignal): Promise<SweepOutcome> {
    if (!this.#running) {
      // After a resync of this process: the lease is one holder's, and one walk at a time uses it.
      const before = this.#resyncing ?? Promise.resolve();
      const running = before
        .then(() => this.#sweep(onlyIfDue, signal))
        .finally(() => {
          if (this.#running === running) this.#running = undefined;
        });
      this.#running = running;
    }
    return this.#running;
  }

  /**
   * Runs `work` under the sweep lease once this process's sweep (and any earlier resync) is done:
   * `"held"` when another process holds the lease. The lease is given back after.
   */
  underLease(work: () => Promise<void>): Promise<"swept" | "held"> {
    const before = Promise.allSettled([this.#running, this.#resyncing]);
    const run = before.then(async (): Promise<"swept" | "held"> => {
      if (!(await this.#take())) return "held";
      try {
        await work();
        return "swept";
      } finally {
        await this.#ctx.store
          .releaseLease("sweep", this.#ctx.holder)
          .catch((error) =>
            this.#ctx.warn("giving the sweep lease back failed", error, "it expires by itself"),
          );
      }
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#resyncing = settled;
    void settled.then(() => {
      if (this.#resyncing === settled) this.#resyncing = undefined;
    });
    return run;
  }

  /** Renews the lease after a page of a walk; throws when another process took it over. */
  async renewOrThrow(): Promise<void> {
    if (!(await this.#renew())) throw leaseTaken();
  }

  /** Whether a renewal found the lease taken by another process. */
  get lost(): boolean {
    return this.#lost;
  }

  async #sweep(onlyIfDue: boolean, signal: AbortSignal | undefined): Promise<SweepOutcome> {
    // Another process may have swept since: the fleet sweeps once per interval, not once each.
    if (onlyIfDue && (await this.#sweptLately())) return "not-due";
    if (!(await this.#take())) return "held";
    const { store, clock, holder } = this.#ctx;
    try {
      // Looked at again under the lease: a sweep may have finished between the look and the lease.
      if (onlyIfDue && (await this.#sweptLately())) return "not-due";
      await this.#sweepUnderLease(signal);
      await this.#record({ at: iso(clock.now()), ok: true });
      return "swept";
    } catch (error) {
      await this.#record({ at: iso(clock.now()), ok: false, code: codeOf(error) }).catch(
        () => undefined,
      );
      throw error;
    } finally {
      await store.releaseLease("sweep", holder).catch((error) =>
        // A lease left behind by a live process expires; one left by this process is renewed by
        // its next sweep, and one left by a process that died is passed over.
        this.#ctx.warn("giving the sweep lease back failed", error, "it expires by itself"),
      );
    }
  }

  /** The error `sync()` throws when another process holds the sweep. */
  async heldError(): Promise<SweepHeldError> {
    const held = await this.#ctx.store.leaseHolder("sweep");
    return new SweepHeldError(
      held?.holder ?? "another process",
      held && Number.isFinite(held.since) ? iso(held.since) : null,
    );
  }

  /**
   * Renews the lease while a page's reads go on (a third of the lease at most between renewals),
   * so a slow page never lets another process take a sweep that is still making progress.
   */
  async keepLease(): Promise<void> {
    if (this.#lost || this.#ctx.clock.now() - this.#renewedAt < this.#ctx.leaseMs / 3) return;
    // One renewal at a time: reads that end while one is on its way would each queue another,
    // stamped with its own start, and a queue of them can end after the lease it renews.
    this.#keeping ??= this.#renew()
      .catch(() => undefined)
      .then(() => {
        this.#keeping = undefined;
      });
    await this.#keeping;
  }

  async #record(last: { at: string; ok: boolean; code?: string }): Promise<void> {
    await this.#ctx.store.setCheckpoint(STATUS.lastSweep, JSON.stringify(last));
  }

  async #sweptLately(): Promise<boolean> {
    const { store, clock, sweepIntervalMs } = this.#ctx;
    if (await store.getCheckpoint("sweep:current")) return false; // one to finish
    const last = Number((await store.getCheckpoint("sweep:finished-at")) ?? Number.NaN);
    return last + sweepIntervalMs > clock.now();
  }

  /** Takes or renews the sweep lease; a holder that dies loses it (see `sweepLeaseMs`). */
  async #renew(): Promise<boolean> {
    const { store, clock, holder, leaseMs } = this.#ctx;
    const now = clock.now();
    const held = await store.lease("sweep", holder, now, now + leaseMs);
    this.#renewedAt = now;
    this.#lost = !held;
    return held;
  }

  /**
   * Takes the lease to start a walk. Refused while the lease still names this mirror, it was this
   * mirror's own session that died under it (a PostgreSQL store then drops that session, and a
   * renewal must report the lease lost): nobody else holds it, so it is taken again at once, on a
   * fresh session, rather than reported as held by another process.
   */
  async #take(): Promise<boolean> {
    if (await this.#renew()) return true;
    const held = await this.#ctx.store.leaseHolder("sweep");
    return held?.holder === this.#ctx.holder && this.#renew();
  }

  async #sweepUnderLease(signal: AbortSignal | undefined): Promise<void> {
    const { store, clock, siteIds } = this.#ctx;
    const current = await store.getCheckpoint("sweep:current");
    const sweep = current
      ? Number(current)
      : Number((await store.getCheckpoint("sweep:last")) ?? 0) + 1;
    await store.setCheckpoint("sweep:current", String(sweep));
    for (const siteId of siteIds)
      await this.walkSite(siteId, "sweep", signal, (page, next) =>
        this.#storePage(page, sweep, next),
      );
    // Stored orders the list no longer shows: read each; a 404 flags it, never deletes it.
    const unseen = await store.unseen(sweep);
    const failures = new Failures(this.#ctx);
    for (let at = 0; at < unseen.length; at += BATCH) {
      if (signal?.aborted) throw aborted();
      await Promise.all(
        unseen.slice(at, at + BATCH).map((n) =>
          this.#reader
            .schedule(n, ALL, "sweep", { sweep })
            .catch((error) =>
              failures.add(`reading order ${n} failed`, error, "it is read again next sweep"),
            )
            .then(() => this.keepLease()),
        ),
      );
      failures.throwIfFatal();
      if (this.#lost) throw leaseTaken();
    }
    // The first sweep to reach the end completes the snapshot: later changes are live ones.
    if ((await store.getCheckpoint(STREAM.snapshotComplete)) === null)
      await store.setCheckpoint(STREAM.snapshotComplete, String(await store.lastChangeId()));
    await store.setCheckpoint("sweep:last", String(sweep));
    await store.setCheckpoint("sweep:finished-at", String(clock.now()));
    await store.setCheckpoint("sweep:current", null);
  }

  /**
   * Walks `GET /v1/orders` of one site (or all) to the end under the lease, from the cursor stored
   * under `prefix`, handing each page to `onPage` and checkpointing the next cursor once it is done.
   * `onPage` may write the checkpoint `next` in the page's own transaction, and says so (true).
   */
  async walkSite(
    siteId: number | undefined,
    prefix: "sweep" | "resync",
    signal: AbortSignal | undefined,
    onPage: (page: ListPage, next: { name: string; value: string | null }) => Promise<unknown>,
  ): Promise<void> {
    const { store, clock, report } = this.#ctx;
    const name = `${prefix}:cursor:${siteId ?? "all"}`;
    let cursor = (await store.getCheckpoint(name)) ?? undefined;
    // Every cursor this sweep followed: one coming back is a cycle, never a checkpoint.
    const followed = new Set<string>(cursor === undefined ? [] : [cursor]);
    let restarts = 0;
    for (;;) {
      if (signal?.aborted) throw aborted();
      let page: ListPage;
      try {
        report.requests++;
        page = await this.#readPage(siteId, cursor);
      } catch (error) {
        if (cursor === undefined || !isProblem(error, "invalid_cursor")) throw error;
        // An unusable cursor means starting over, never building one; a service that keeps
        // refusing its own cursors ends the sweep after a few tries, each after a longer wait.
        restarts++;
        await store.setCheckpoint(name, null);
        if (restarts > MAX_RESTARTS) {
          throw new MirrorError(
            "cursor_refused",
            `GET /v1/orders refused its own cursor ${restarts} times in one sweep${site(siteId)}.`,
            { hint: "The next sweep starts from the first page.", cause: error },
          );
        }
        const waitMs = 1_000 * 2 ** (restarts - 1);
        this.#ctx.warn(
          "the sweep's cursor was refused",
          error,
          `the sweep starts over in ${waitMs / 1000} s`,
        );
        await clock.sleep(waitMs, signal);
        cursor = undefined;
        followed.clear();
        continue;
      }
      report.pages++;
      const next =
        page.nextCursor === null || followed.has(page.nextCursor) ? null : page.nextCursor;
      // Written with the page (true): a crash leaves the page with its checkpoint, or neither.
      const written = (await onPage(page, { name, value: next })) === true;
      report.progress();
      // The process that took the lease over moves the checkpoint from here on.
      if (this.#lost) throw leaseTaken();
      // Only once every order of the page is stored: a crash resumes at this page, never after it.
      if (page.nextCursor === null) {
        if (!written) await store.setCheckpoint(name, null);
        return;
      }
      if (followed.has(page.nextCursor)) {
        // Starting over next time is all that can be done; the checkpoint must not hold the cycle.
        if (!written) await store.setCheckpoint(name, null);
        throw new MirrorError(
          "cursor_cycle",
          `GET /v1/orders gave a cursor it had already given in this sweep${site(siteId)}, after ${followed.size} pages: the list would never end.`,
          { hint: "The next sweep starts from the first page." },
        );
      }
      followed.add(page.nextCursor);
      cursor = page.nextCursor;
      if (!written) await store.setCheckpoint(name, cursor);
      if (!(await this.#renew())) throw leaseTaken();
    }
  }

  /**
   * Stores one page: unchanged rows are marked seen, the others read, bad rows kept out. What the
   * page writes goes in one transaction, with the walk's checkpoint `next` when the page holds all
   * of its effect (true), so a crash resumes at this page or after it, never half of it.
   */
  async #storePage(
    page: ListPage,
    sweep: number,
    next: { name: string; value: string | null },
  ): Promise<boolean> {
    const { store } = this.#ctx;
    await this.keepOut(page);
    const listed = this.listedOrders(page);
    // The stored rows of the whole page in one look, before any read starts: a store that fails
    // here leaves no read of the page waiting for a write that never comes. The page's reads use
    // it unless something wrote since (`Reader.writes`); the page's own write comes after them all.
    const writes = this.#reader.writes;
    const storedRows = await store.getMany([...listed.keys()]);
    const unchanged: number[] = [];
    const reads: Promise<unknown>[] = [];
    const failures = new Failures(this.#ctx);
    // Renewed as the reads come in, so a slow page never lets another process take the sweep.
    const batch = new PageBatch(store, () => void this.keepLease());
    for (const [n, order] of listed) {
      const stored = storedRows.get(n);
      if (stored && !stored.unresolvable && sameJson(stored.order, order)) unchanged.push(n);
      else
        reads.push(
          this.#reader
            // The row the list showed is used only if nothing wrote the order since it was
            // compared: a webhook's newer read must not be overwritten by an older list row.
            .schedule(n, LINES, "sweep", {
              sweep,
              listed: order,
              listedOver: stored?.order ?? null,
              batch,
              looked: { row: stored, writes },
            })
            .catch((error) => {
              // The page's write failed: said once, below, not once per order.
              if (error === batch.failure) return;
              // Not stored, so the next sweep sees it changed again and reads it then.
              failures.add(`reading order ${n} failed`, error, "it is read again next sweep");
            }),
        );
    }
    await batch.seal(reads.length);
    // Not past a failure no retry mends, nor once another process took the sweep over.
    const whole = batch.detached === 0 && !batch.errors.some((e) => fatalError(e)) && !this.#lost;
    await batch.write({
      seen: { orderNumbers: unchanged, sweep },
      ...(whole ? { checkpoint: next } : {}),
    });
    await Promise.all(reads);
    failures.throwIfFatal();
    return whole;
  }

  /** Keeps out, named in logs and `status()`, the rows of a page the client could not decode. */
  keepOut(page: ListPage): Promise<void> {
    return keepOut(this.#ctx, page);
  }

  /**
   * The usable rows of a page by order number, as stored JSON: a row without a usable number is
   * left out, and a number listed twice on one page is read once (both said in the logs).
   */
  listedOrders(page: ListPage): Map<number, Row> {
    return listedOrders(this.#ctx, page);
  }
}

function leaseTaken(): MirrorError {
  return new MirrorError(
    "sweep_lease_lost",
    "The sweep lease was taken over by another process, which goes on from the checkpoint.",
  );
}

const site = (siteId: number | undefined) => (siteId === undefined ? "" : ` (site ${siteId})`);

function aborted(): MirrorError {
  return new MirrorError("aborted", "The sweep stopped: the mirror was asked to stop.");
}
