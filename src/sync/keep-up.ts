import type { MirrorContext } from "./context";
import type { Reader } from "./reader";

/** Open-order polls in bounded rounds, warning with the numbers when this process falls behind. */
export class PollRounds {
  readonly #ctx: MirrorContext;
  readonly #reader: Reader;
  /** When this process last warned that it cannot keep up with its open orders. */
  #warnedBehindAt = Number.NEGATIVE_INFINITY;

  constructor(ctx: MirrorContext, reader: Reader) {
    this.#ctx = ctx;
    this.#reader = reader;
  }

  /** One bounded round of polls, then a warning with the numbers when this process falls behind. */
  async round(stop: () => boolean): Promise<void> {
    const { clock, store, report, openIntervalMs, concurrency } = this.#ctx;
    const started = clock.now();
    const requestsBefore = report.requests;
    await this.#reader.pollDue(started, stop);
    const now = clock.now();
    // Behind: an order has waited a whole interval past its time. Said once per interval; the
    // counting is done only then (the earliest due time is one index look-up).
    if (now - this.#warnedBehindAt < openIntervalMs) return;
    const earliest = await store.nextDue();
    if (earliest === null || now - earliest < openIntervalMs) return;
    const { open, oldestDueAt } = await store.dueStats(now);
    if (oldestDueAt === null) return;
    this.#warnedBehindAt = now;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const achieved = (report.requests - requestsBefore) / seconds;
    const needed = (open * 2) / (openIntervalMs / 1000);
    const interval = achieved > 0 ? Math.ceil((open * 2) / achieved) : Number.NaN;
    this.#ctx.log.warn(
      `cannot keep up with open orders: ${open} open orders need about ${open * 2} requests every ${openIntervalMs / 1000} s (${needed.toFixed(1)}/s); this process made ${achieved.toFixed(1)}/s in its last round, and the oldest due order is ${Math.round((now - oldestDueAt) / 1000)} s late. Raise openOrderIntervalMs${Number.isFinite(interval) ? ` to at least ${interval} s` : ""}, raise concurrency (now ${concurrency}), or share the work among processes on postgresStore.`,
      {
        code: "falling_behind",
        openOrders: open,
        requestsPerRound: open * 2,
        achievedPerSecond: achieved,
      },
    );
  }
}
