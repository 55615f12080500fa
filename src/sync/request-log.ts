import type { Counters, MirrorContext } from "./context";
import { parseJson } from "./context";
import type { MirrorStore } from "./types";

/** The checkpoint holding requests per hour, in every process's view (the status page reads it). */
export const REQUESTS_CHECKPOINT = "status:requests-per-hour";

/** Hours kept: two days, enough to see a daily pattern beside the day before. */
export const HOURS_KEPT = 48;

const HOUR_MS = 3_600_000;

/**
 * Requests the mirror made, per clock hour, with what a naive poller of the same orders would need:
 * the number of orders the last complete sweep saw, and the sweep interval of the mirror that wrote.
 */
export interface RequestHistory {
  /** `[start of the hour (epoch ms), requests made in it]`, oldest first, at most 48. */
  hours: [number, number][];
  /** Orders on the list at the end of the last complete sweep; null before one. */
  orders: number | null;
  /** The writing mirror's `sweepIntervalMs`. */
  sweepIntervalMs: number;
}

/** The request history kept in `store`; null before the first pass recorded one. */
export async function readRequestHistory(store: MirrorStore): Promise<RequestHistory | null> {
  return parseHistory(await store.getCheckpoint(REQUESTS_CHECKPOINT));
}

/** A stored history; null when the text is missing or not one (never a throw). */
export function parseHistory(text: string | null): RequestHistory | null {
  const value = parseJson<Partial<RequestHistory>>(text);
  if (!value || !Array.isArray(value.hours)) return null;
  const hours = value.hours.filter(
    (h): h is [number, number] =>
      Array.isArray(h) && Number.isFinite(h[0]) && Number.isFinite(h[1]),
  );
  return {
    hours,
    orders: typeof value.orders === "number" ? value.orders : null,
    sweepIntervalMs: typeof value.sweepIntervalMs === "number" ? value.sweepIntervalMs : 0,
  };
}

/**
 * Keeps the rolling hourly request count in the store's checkpoint table, written at the end of
 * each pass: the requests a pass's counters made since they were last recorded go to the current
 * hour. Processes sharing a store add to the same counts; two that write in the same instant may
 * lose one of the two additions, which a chart of orders of magnitude can bear (no schema change).
 */
export class RequestLog {
  /** How many of each counters' requests are already recorded. */
  readonly #recorded = new WeakMap<Counters, number>();
  #queue: Promise<void> = Promise.resolve();
  readonly #ctx: MirrorContext;

  constructor(ctx: MirrorContext) {
    this.#ctx = ctx;
  }

  /**
   * Adds what `counters` made since last recorded; `ordersSeen` after a sweep that reached the end
   * of the list. Bookkeeping for the status page: a failure is dropped, never fails the pass.
   */
  record(counters: Counters, ordersSeen?: number): Promise<void> {
    const made = counters.requests - (this.#recorded.get(counters) ?? 0);
    this.#recorded.set(counters, counters.requests);
    if (made <= 0 && ordersSeen === undefined) return this.#queue;
    const { store, clock, sweepIntervalMs } = this.#ctx;
    const next = this.#queue.then(async () => {
      const now = clock.now();
      const hour = now - (now % HOUR_MS);
      const history = parseHistory(await store.getCheckpoint(REQUESTS_CHECKPOINT));
      const hours = (history?.hours ?? []).filter(([start]) => start > hour - HOURS_KEPT * HOUR_MS);
      const last = hours[hours.length - 1];
      if (last && last[0] === hour) last[1] += Math.max(0, made);
      else hours.push([hour, Math.max(0, made)]);
      const written: RequestHistory = {
        hours: hours.slice(-HOURS_KEPT),
        orders: ordersSeen ?? history?.orders ?? null,
        sweepIntervalMs,
      };
      await store.setCheckpoint(REQUESTS_CHECKPOINT, JSON.stringify(written));
    });
    this.#queue = next.catch(() => undefined);
    return this.#queue;
  }
}
