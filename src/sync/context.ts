import type { PartnerOrders } from "../client";
import { APIError, isPartnerOrdersError } from "../core/errors";
import type { Log } from "../core/logger";
import type { Clock } from "../internal/clock";
import type { PartnerIds } from "./partner-ids";
import type { PollPolicy } from "./poll-policy";
import type { MirrorTelemetry } from "./telemetry";
import type { InvalidOrder, MirrorStore, SyncProgress, SyncReport } from "./types";

/** Which parts of an order one read fetches. */
export interface Parts {
  order: boolean;
  items: boolean;
  shipments: boolean;
}
export const ALL: Parts = { order: true, items: true, shipments: true };
/** What a poll or a changed list row re-reads: the row itself is already known. */
export const LINES: Parts = { order: false, items: true, shipments: true };

/** Checkpoint names the status page reads, in any process. */
export const STATUS = {
  lastSweep: "status:last-sweep",
  lastError: "status:last-error",
  invalid: "status:invalid-orders",
} as const;

/** What the parts of one mirror share: its settings, its store and client, and the pass's counters. */
export interface MirrorContext {
  readonly client: PartnerOrders;
  readonly store: MirrorStore;
  readonly clock: Clock;
  readonly log: Log;
  /** This mirror's name as a lease holder: `host/pid/id`. */
  readonly holder: string;
  readonly siteIds: (number | undefined)[];
  readonly sweepIntervalMs: number;
  readonly openIntervalMs: number;
  readonly leaseMs: number;
  readonly concurrency: number;
  /** Chooses each open order's next poll, following webhook health. */
  readonly policy: PollPolicy;
  /** How long changes are kept before `run()` deletes them. */
  readonly retentionMs: number;
  /** The counters of the pass under way (or of `run()` since its last pass). */
  report: Counters;
  /** Tells `changes()` loops of this process that changes were written. */
  changed(): void;
  /** Orders kept out as invalid, kept in the store so every process's `status()` sees them. */
  readonly invalid: InvalidOrders;
  /** PartnerOrderIds learnt (from events, from submissions) and not yet written. */
  readonly partnerIds?: PartnerIds;
  /** Logs a warning with the error's code and what the mirror does next, and records it. */
  warn(message: string, error: unknown, next: string): void;
  /** Spans and metrics of passes and reads (sync/telemetry.ts); none in unit tests. */
  readonly telemetry?: MirrorTelemetry;
}

/** The counters of one pass; a {@link SyncReport} once it ends. */
export class Counters {
  ordersSeen = 0;
  ordersAdded = 0;
  ordersChanged = 0;
  itemsReread = 0;
  shipmentsReread = 0;
  changesWritten = 0;
  requests = 0;
  pages = 0;
  readonly invalidOrders = new Map<string, InvalidOrder>();
  readonly started: number;
  readonly #clock: Clock;
  readonly #onProgress: ((progress: SyncProgress) => void) | undefined;

  constructor(clock: Clock, onProgress?: (progress: SyncProgress) => void) {
    this.#clock = clock;
    this.started = clock.monotonic();
    this.#onProgress = onProgress;
  }

  progress(): void {
    if (!this.#onProgress) return;
    const seconds = (this.#clock.monotonic() - this.started) / 1000;
    try {
      this.#onProgress({
        pages: this.pages,
        orders: this.ordersSeen,
        requests: this.requests,
        ratePerSecond: seconds > 0 ? this.requests / seconds : 0,
      });
    } catch {
      // A progress line that fails must not fail the pass.
    }
  }

  report(): SyncReport {
    return {
      ordersSeen: this.ordersSeen,
      ordersAdded: this.ordersAdded,
      ordersChanged: this.ordersChanged,
      itemsReread: this.itemsReread,
      shipmentsReread: this.shipmentsReread,
      changesWritten: this.changesWritten,
      requests: this.requests,
      invalidOrders: [...this.invalidOrders.values()],
      durationMs: Math.round(this.#clock.monotonic() - this.started),
    };
  }
}

/**
 * Orders the client could not decode, by order number (or by page position when the row had
 * none), kept in the store so every process's `status()` sees them. Kept out of the store and tried
 * again by the next sweep; cleared once one reads cleanly. Each change reads the list afresh and
 * writes it back, one change at a time in this process, so processes do not undo each other's.
 */
export class InvalidOrders {
  /** Order numbers this process knows to be listed, so a clean read of another costs nothing. */
  #known = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  readonly #store: MirrorStore;

  constructor(store: MirrorStore) {
    this.#store = store;
  }

  async load(): Promise<void> {
    this.#known = new Set((await this.#read()).map(keyOf));
  }

  add(entry: InvalidOrder, counters: Counters): Promise<void> {
    counters.invalidOrders.set(keyOf(entry), entry);
    this.#known.add(keyOf(entry));
    return this.#update((list) => [...list.filter((e) => keyOf(e) !== keyOf(entry)), entry]);
  }

  clear(orderNumber: number): Promise<void> {
    if (!this.#known.delete(String(orderNumber))) return Promise.resolve();
    return this.#update((list) => list.filter((e) => keyOf(e) !== String(orderNumber)));
  }

  #update(change: (list: InvalidOrder[]) => InvalidOrder[]): Promise<void> {
    const next = this.#queue.then(async () => {
      // Bounded: a service sending thousands of bad rows must not grow the checkpoint without end.
      const kept = change(await this.#read()).slice(-1_000);
      await this.#store.setCheckpoint(STATUS.invalid, kept.length ? JSON.stringify(kept) : null);
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #read(): Promise<InvalidOrder[]> {
    return parseJson<InvalidOrder[]>(await this.#store.getCheckpoint(STATUS.invalid)) ?? [];
  }
}

const keyOf = (entry: InvalidOrder) =>
  entry.orderNumber === null ? `?${entry.field}` : String(entry.orderNumber);

export function parseJson<T>(text: string | null): T | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** A short, stable code for an error: the problem's code, the mirror's, or the error's name. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code) return code;
  if (error instanceof APIError) return `http_${error.status}`;
  if (isPartnerOrdersError(error)) return error.name;
  return error instanceof Error ? error.name : typeof error;
}

/** The error's message, for an operator; the SDK's own messages never carry a secret. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
