import { ALL, LINES, type MirrorContext, parseJson } from "./context";
import { MirrorError } from "./errors";
import { Failures } from "./failures";
import type { Reader } from "./reader";
import type { Sweeper } from "./sweep";
import type { SyncOptions } from "./types";

/** Options of {@link OrderMirror.resync}. */
export interface ResyncOptions extends SyncOptions {
  /**
   * Sites to re-read; each must be one the mirror keeps.
   * @default the mirror's `siteIds` (every granted site when it has none)
   */
  siteIds?: number[];
  /** Stops the resync after the page under way; a later `resync()` of the same sites resumes it. */
  signal?: AbortSignal;
}

/** Stored orders read at once when the resync reads those the list no longer shows. */
const BATCH = 100;
/** Order numbers named in the error of a resync some of whose reads failed twice. */
const NAMED = 10;

/**
 * A resync under the sweep lease: every order the list shows for `siteIds` re-read whole (the list
 * row, every item and every shipment), closed ones included, then every stored order of those
 * sites the list did not show (a 404 flags it). Differences are recorded with cause `resync`.
 * Progress is checkpointed (each site's cursor, the sites done, the stored orders gone through),
 * so an interrupted resync of the same sites resumes. A read that fails is tried once more at the
 * end; orders that still fail end it with `resync_incomplete`, naming them.
 */
export async function resyncUnderLease(
  ctx: MirrorContext,
  reader: Reader,
  sweeper: Sweeper,
  siteIds: (number | undefined)[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const { store } = ctx;
  const key = JSON.stringify(siteIds.map(siteName));
  const current = await store.getCheckpoint("resync:current");
  if (current !== key) {
    // Another resync's state, or none: this one starts from the first page of each site.
    await clear(ctx, current);
    await clear(ctx, key);
    await store.setCheckpoint("resync:current", key);
  }
  const read = new Set<number>();
  const failed = new Map<number, unknown>();
  const readOne = (
    failures: Failures,
    n: number,
    from: NonNullable<Parameters<Reader["schedule"]>[3]>,
  ) =>
    reader
      .schedule(n, from.listed ? LINES : ALL, "resync", from)
      .then(
        () => {
          read.add(n);
          failed.delete(n);
        },
        (error: unknown) => {
          failed.set(n, error);
          failures.add(`reading order ${n} failed`, error, "it is tried again at the resync's end");
        },
      )
      .then(() => sweeper.keepLease());

  for (const siteId of siteIds) {
    const done = `resync:done:${siteName(siteId)}`;
    if (await store.getCheckpoint(done)) continue;
    await sweeper.walkSite(siteId, "resync", signal, async (page) => {
      await sweeper.keepOut(page);
      const failures = new Failures(ctx);
      // Stryker disable next-line ArrayDeclaration: a non-promise in Promise.all is awaited as is
      const reads: Promise<void>[] = [];
      for (const [n, order] of sweeper.listedOrders(page)) {
        const stored = await store.get(n);
        reads.push(readOne(failures, n, { listed: order, listedOver: stored?.order ?? null }));
      }
      await Promise.all(reads);
      failures.throwIfFatal();
    });
    await store.setCheckpoint(done, "1");
  }

  // Stored orders the list did not show in this resync: read each; a 404 flags it, never deletes it.
  for (const siteId of siteIds) {
    const name = `resync:stored:${siteName(siteId)}`;
    let after = Number((await store.getCheckpoint(name)) ?? 0);
    for (;;) {
      if (signal?.aborted) throw aborted();
      const page = await store.orders({ siteId, after, limit: BATCH });
      const last = page[page.length - 1];
      if (!last) break;
      const failures = new Failures(ctx);
      await Promise.all(
        page
          .filter((o) => !read.has(o.orderNumber))
          .map((o) => readOne(failures, o.orderNumber, {})),
      );
      failures.throwIfFatal();
      // Stryker disable next-line ConditionalExpression: renewing a lease still held renews it, no more
      if (sweeper.lost) await sweeper.renewOrThrow();
      after = last.orderNumber;
      await store.setCheckpoint(name, String(after));
      ctx.report.progress();
    }
  }

  // One more try for the reads that failed (a service away for a moment).
  const failures = new Failures(ctx);
  for (const n of [...failed.keys()]) await readOne(failures, n, {});
  failures.throwIfFatal();
  await clear(ctx, key);
  await store.setCheckpoint("resync:current", null);
  if (failed.size) {
    const numbers = [...failed.keys()];
    throw new MirrorError(
      "resync_incomplete",
      `The resync read every order but ${numbers.length}, whose reads failed twice: ${numbers.slice(0, NAMED).join(", ")}${numbers.length > NAMED ? ` and ${numbers.length - NAMED} more` : ""}.`,
      {
        hint: "The warnings say why; the sweep reads them again in time, or run the resync again.",
        cause: failed.get(numbers[0] as number),
      },
    );
  }
}

/**
 * The sites of a resync: the mirror's own by default; given ones must be positive whole numbers the
 * mirror keeps (`kept`, undefined when it keeps every granted site).
 */
export function resyncSites(
  siteIds: unknown,
  kept: ReadonlySet<number> | undefined,
  defaults: (number | undefined)[],
): (number | undefined)[] {
  if (siteIds === undefined) return defaults;
  if (
    !Array.isArray(siteIds) ||
    siteIds.length === 0 ||
    !siteIds.every((id) => Number.isSafeInteger(id) && id > 0)
  ) {
    throw new MirrorError(
      "invalid_sites",
      "resync: siteIds must be a non-empty list of site ids (positive whole numbers).",
    );
  }
  const outside = siteIds.find((id) => kept && !kept.has(id));
  if (outside !== undefined) {
    throw new MirrorError(
      "invalid_sites",
      // Stryker disable next-line ArrayDeclaration: a site is outside only when `kept` is given
      `resync: site ${outside} is not one this mirror keeps (siteIds ${[...(kept ?? [])].join(", ")}).`,
      { hint: "Resync the mirror's own sites, or give the mirror that site." },
    );
  }
  return [...new Set(siteIds as number[])];
}

const siteName = (siteId: number | undefined) => (siteId === undefined ? "all" : String(siteId));

/** Clears the checkpoints of the resync of the sites `key` names (a `resync:current` value). */
async function clear(ctx: MirrorContext, key: string | null): Promise<void> {
  // Not JSON, or no list: nothing of a resync to clear.
  const sites = parseJson<unknown>(key);
  if (!Array.isArray(sites)) return;
  for (const site of sites) {
    for (const part of ["cursor", "done", "stored"])
      await ctx.store.setCheckpoint(`resync:${part}:${String(site)}`, null);
  }
}

function aborted(): MirrorError {
  return new MirrorError("aborted", "The resync stopped: the mirror was asked to stop.");
}
