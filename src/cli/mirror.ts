/** `sync` and `status`: the mirror from a shell. */

import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PartnerOrders } from "../client";
import { MirrorError } from "../sync/errors";
import type { OrderMirror } from "../sync/mirror";
import type { ResyncOptions } from "../sync/resync";
import type {
  Change,
  MirrorStatus,
  MirrorStore,
  RunOptions,
  SyncOptions,
  SyncReport,
} from "../sync/types";
import { ints, UsageError, type Values } from "./args";
import {
  addPass,
  emptySummary,
  formatPass,
  formatProgress,
  formatReport,
  formatStart,
  formatStatus,
  formatStopped,
} from "./format";
import { cliLogger, type Output } from "./output";

/** What the commands use of an `OrderMirror`. */
export interface Mirror {
  sync(options?: SyncOptions): Promise<SyncReport>;
  resync(options?: ResyncOptions): Promise<SyncReport>;
  run(options?: RunOptions): Promise<void>;
  changes(options?: { signal?: AbortSignal }): AsyncIterable<Change>;
  status(): Promise<MirrorStatus>;
  close(): Promise<void>;
}

/** The mirror's defaults, given explicitly so that the start line says what is in force. */
const SWEEP_INTERVAL_MS = 15 * 60_000;
const OPEN_ORDER_INTERVAL_MS = 5 * 60_000;

/** `sync [--db FILE | --postgres URL] [--site N,N] [--once] [--full]`. */
export async function sync(client: PartnerOrders, values: Values, out: Output): Promise<number> {
  const target = storeTarget(values, "sync");
  const siteIds = ints(values.site, "--site");
  const { OrderMirror } = await import("../sync/index");
  const mirror = new OrderMirror({
    client,
    store: await target.open(),
    siteIds,
    sweepIntervalMs: SWEEP_INTERVAL_MS,
    openOrderIntervalMs: OPEN_ORDER_INTERVAL_MS,
    logger: cliLogger(out),
  });
  const stop = new AbortController();
  // Ctrl-C: the mirror stops after the write under way (each write is one transaction). A second
  // Ctrl-C does not wait.
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A reader that went away (`| head`) stops the mirror the same way.
  const onClosed = () => stop.abort();
  out.closed.addEventListener("abort", onClosed);
  try {
    return await syncWith(
      mirror,
      {
        once: values.once === true,
        full: values.full === true,
        signal: stop.signal,
        start: formatStart({
          store: target.describe,
          siteIds,
          sweepIntervalMs: SWEEP_INTERVAL_MS,
          openOrderIntervalMs: OPEN_ORDER_INTERVAL_MS,
        }),
      },
      out,
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    out.closed.removeEventListener("abort", onClosed);
  }
}

/**
 * One pass (`once`) or `run()` until `signal` aborts, with a progress line on a terminal, a line per
 * pass, and with --json each change as a JSON line and the totals as one object at the end. With
 * `full`, a resync first (every order re-read, closed ones too), its progress shown the same way;
 * with `once` too, the resync is the pass. Closes the mirror. An error that ends the pass or the run
 * is thrown, once the mirror is closed.
 */
export async function syncWith(
  mirror: Mirror,
  options: {
    once: boolean;
    full?: boolean;
    signal: AbortSignal;
    start: string;
    now?: () => Date;
  },
  out: Output,
): Promise<number> {
  const now = options.now ?? (() => new Date());
  const summary = emptySummary();
  // Ends run() when the caller stops it, or when printing the changes failed.
  const running = new AbortController();
  const onStop = () => running.abort();
  options.signal.addEventListener("abort", onStop);
  if (options.signal.aborted) running.abort();
  const printer = out.json ? printChanges(mirror, running, out) : undefined;
  const onProgress: SyncOptions["onProgress"] = (p) => out.progress(formatProgress(p));
  let failure: { error: unknown } | undefined;
  try {
    if (options.once) {
      const report = options.full
        ? await mirror.resync({ onProgress: resyncProgress(out), signal: running.signal })
        : await mirror.sync({ onProgress });
      addPass(summary, report);
      out.endProgress();
      await printer?.drain(report.changesWritten);
      if (!out.json) out.text(formatReport(report));
    } else {
      out.info(options.start);
      if (options.full) {
        const report = await mirror.resync({
          onProgress: resyncProgress(out),
          signal: running.signal,
        });
        addPass(summary, report);
        out.endProgress();
        out.info(`resync: ${formatPass(summary.passes, report, now())}`);
      }
      await mirror.run({
        signal: running.signal,
        onProgress,
        onPass: (report) => {
          addPass(summary, report);
          out.info(formatPass(summary.passes, report, now()));
        },
      });
      out.endProgress();
      if (!out.json) out.info(formatStopped(summary));
    }
  } catch (error) {
    failure = { error };
  }
  options.signal.removeEventListener("abort", onStop);
  running.abort();
  const printing = await printer?.done;
  if (out.json) out.line(summary);
  if (failure) {
    // The error that ended the pass is the one to report, not a failure to close after it.
    await mirror.close().catch(() => undefined);
    throw failure.error;
  }
  await mirror.close();
  // The mirror did its work but the change stream failed: not every change was printed.
  if (printing) throw printing;
  return 0;
}

/** The progress line of a resync: the pass's counts, named as what it is. */
const resyncProgress =
  (out: Output): SyncOptions["onProgress"] =>
  (p) =>
    out.progress(formatProgress(p, "resyncing"));

/**
 * Prints each change the mirror writes from now on, as a JSON line. `drain(n)` stops once `n` have
 * been printed (a pass's changes, all written by the time the pass resolves). A failure stops
 * `running` and is what `done` resolves to, so it is never an unhandled rejection.
 */
function printChanges(mirror: Mirror, running: AbortController, out: Output) {
  const stop = new AbortController();
  const onStop = () => stop.abort();
  running.signal.addEventListener("abort", onStop);
  let printed = 0;
  let target = Number.POSITIVE_INFINITY;
  const done = (async (): Promise<Error | undefined> => {
    try {
      for await (const change of mirror.changes({ signal: stop.signal })) {
        out.line(change);
        if (++printed >= target) stop.abort();
      }
      return undefined;
    } catch (error) {
      running.abort();
      return error instanceof Error ? error : new Error(String(error));
    } finally {
      running.signal.removeEventListener("abort", onStop);
    }
  })();
  return {
    done,
    async drain(count: number): Promise<void> {
      target = count;
      if (printed >= target) stop.abort();
      await done;
    },
  };
}

/** Where the mirror is kept, checked before anything is opened, and how to name it to a person. */
function storeTarget(
  values: Values,
  command: "sync" | "status" | "consumers" | "dashboard",
): { describe: string; open: () => Promise<MirrorStore> } {
  if (values.db !== undefined && values.postgres !== undefined) {
    throw new UsageError("give --db or --postgres, not both");
  }
  const url = values.postgres;
  if (url !== undefined) {
    return {
      describe: `${withoutPassword(url)} (PostgreSQL)`,
      open: async () => (await import("../sync/index")).postgresStore(url),
    };
  }
  const path = values.db ?? "orders.db";
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) {
    throw new MirrorError(
      "store_open_failed",
      `cannot open ${path}: the directory ${dir} does not exist`,
      { hint: "create the directory first, or give --db a file in an existing one" },
    );
  }
  // SQLite creates a missing file: status would report on an empty mirror it just made.
  if (command !== "sync" && !existsSync(path)) {
    throw new MirrorError("store_not_found", `${path} does not exist: no mirror is kept there`, {
      hint: "give --db the file `partner-orders sync` writes (orders.db unless --db said otherwise)",
    });
  }
  return {
    describe: `${path} (SQLite)`,
    open: async () => (await import("../sync/index")).sqliteStore(path),
  };
}

/** A database URL fit to print: its password never is. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.href;
  } catch {
    return "the PostgreSQL URL given";
  }
}

/**
 * `status`: what `mirror.status()` says. It reads the store only, so it needs no credential: a
 * client made from the flags and environment when they make one, a client that never sends
 * anything otherwise.
 */
export async function status(
  client: () => PartnerOrders,
  values: Values,
  out: Output,
): Promise<number> {
  const report = await withStore(client, values, "status", (mirror) => mirror.status());
  if (out.json) out.one(report);
  else out.text(formatStatus(report, Date.now()));
  return 0;
}

/**
 * `work` on a mirror of the store the flags name, for commands that only read or move consumers:
 * no credential needed (a client that never sends anything when the flags make none). Closes it.
 */
export async function withStore<T>(
  client: () => PartnerOrders,
  values: Values,
  command: "status" | "consumers" | "dashboard",
  work: (mirror: OrderMirror) => Promise<T>,
): Promise<T> {
  const target = storeTarget(values, command);
  const { OrderMirror } = await import("../sync/index");
  let reader: PartnerOrders;
  try {
    reader = client();
  } catch {
    reader = new PartnerOrders({
      baseUrl: "http://127.0.0.1/",
      accessToken: () => Promise.reject(new Error(`${command} sends no request`)),
    });
  }
  const mirror = new OrderMirror({ client: reader, store: await target.open() });
  let result: T;
  try {
    result = await work(mirror);
  } catch (error) {
    await mirror.close().catch(() => undefined);
    throw error;
  }
  await mirror.close();
  return result;
}
