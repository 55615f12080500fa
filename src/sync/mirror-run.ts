import { Counters, type MirrorContext } from "./context";
import type { PollRounds } from "./keep-up";
import { throwIfFatal } from "./last-error";
import type { RequestLog } from "./request-log";
import { pruneChanges } from "./stream";
import type { Sweeper } from "./sweep";
import type { MirrorTelemetry } from "./telemetry";
import type { RunOptions } from "./types";

/** The parts of a mirror that `run()`'s loop drives. */
export interface RunParts {
  ctx: MirrorContext;
  sweeper: Sweeper;
  requests: RequestLog;
  rounds: PollRounds;
  /** The mirror's `#startWriting`: the store opened, claimed and tied to the account. */
  startWriting(): Promise<void>;
}

/** `OrderMirror.run()`'s loop: sweeps, retention and open-order polls until `signal` aborts. */
export async function runLoop(parts: RunParts, options: RunOptions): Promise<void> {
  const { signal, onPass, onProgress } = options;
  const { ctx, sweeper, requests, rounds } = parts;
  const { clock, store, sweepIntervalMs, leaseMs, openIntervalMs } = ctx;
  await startRunning(parts, signal);
  let nextSweep = clock.now();
  let nextPrune = clock.now();
  let sweepFailures = 0;
  let pollFailures = 0;
  ctx.report = new Counters(clock, onProgress);
  while (!signal?.aborted) {
    if (clock.now() >= nextSweep) {
      try {
        const outcome = await (ctx.telemetry as MirrorTelemetry).pass(
          () => sweeper.sweep(true, signal),
          (swept) => ({ "partner_orders.sweep.outcome": swept }),
        );
        sweepFailures = 0;
        if (outcome === "swept") {
          await requests.record(ctx.report, ctx.report.ordersSeen);
          const report = ctx.report.report();
          ctx.report = new Counters(clock, onProgress);
          try {
            onPass?.(report);
          } catch {
            // A caller's report handler that fails must not fail the loop.
          }
        }
        // Another process holds the lease or swept lately: look again within a lease's time, so
        // a sweep whose holder died is taken over.
        nextSweep =
          clock.now() +
          (outcome === "swept" ? sweepIntervalMs : Math.min(sweepIntervalMs, leaseMs));
      } catch (error) {
        if (signal?.aborted) break;
        throwIfFatal(ctx, error);
        sweepFailures++;
        const waitMs = Math.min(sweepIntervalMs, 60_000 * 2 ** Math.min(sweepFailures - 1, 4));
        ctx.warn("sweep failed", error, `the next try is in ${Math.round(waitMs / 1000)} s`);
        nextSweep = clock.now() + waitMs;
      }
    }
    // Retention, after the sweep: once per sweep interval in each process.
    if (clock.now() >= nextPrune) {
      nextPrune = clock.now() + sweepIntervalMs;
      await pruneChanges(ctx);
    }
    // Polls wait while a round keeps failing (the database read-only, a full disk), not spin.
    let pollsResume = clock.now();
    try {
      await rounds.round(() => signal?.aborted === true || clock.now() >= nextSweep);
      pollFailures = 0;
      await requests.record(ctx.report);
    } catch (error) {
      if (signal?.aborted) break;
      throwIfFatal(ctx, error);
      pollFailures++;
      const waitMs = Math.min(openIntervalMs, 1_000 * 2 ** Math.min(pollFailures - 1, 6));
      ctx.warn("open-order polls failed", error, `they are tried again in ${waitMs / 1000} s`);
      pollsResume = clock.now() + waitMs;
    }
    let due: number | null;
    try {
      due = await store.nextDue();
    } catch (error) {
      ctx.warn("reading the poll schedule failed", error, "trying again in 5 s");
      due = clock.now() + 5_000;
    }
    // An order a webhook adds while this process sleeps is due within an interval at most.
    const nextPoll = Math.max(due ?? Number.POSITIVE_INFINITY, pollsResume, clock.now() + 1);
    const wake = Math.min(nextSweep, nextPoll, clock.now() + openIntervalMs);
    try {
      await clock.sleep(wake - clock.now(), signal);
    } catch {
      // Aborted: the loop condition ends it.
    }
  }
}

/** `#startWriting` for `run()`: transient failures are waited out, fatal ones thrown. */
async function startRunning(parts: RunParts, signal: AbortSignal | undefined): Promise<void> {
  const { ctx } = parts;
  for (let attempt = 0; !signal?.aborted; attempt++) {
    try {
      return await parts.startWriting();
    } catch (error) {
      throwIfFatal(ctx, error);
      const waitMs = Math.min(60_000, 1_000 * 2 ** attempt);
      ctx.warn("starting the mirror failed", error, `trying again in ${waitMs / 1000} s`);
      await ctx.clock.sleep(waitMs, signal).catch(() => undefined);
    }
  }
}
