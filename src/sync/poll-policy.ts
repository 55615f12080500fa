import type { Log } from "../core/logger";
import type { Clock } from "../internal/clock";
import type { PollPolicyName, WebhookHealth } from "./poll-types";
import type { Change, MirrorStore } from "./types";
import {
  type AnnouncedKind,
  announceable,
  announcedBy,
  assess,
  degradedSince,
  type EventRecord,
  HEALTH_KEYS,
  type MissRecord,
  parseEvents,
  parseMiss,
  withEvent,
} from "./webhook-health";

/**
 * A read of an order's items and shipments (a poll, a sweep that saw it change, `refresh()`,
 * `resync()`): it stands for a poll, so the order's next poll counts from it.
 */
export interface OrderActivity {
  /** The order's number. */
  orderNumber: number;
  /** When the read happened (the clock's time); the next poll counts from it. Default: now. */
  at?: number;
}

/** Settings of a {@link PollPolicy}. */
export interface PollPolicySettings {
  store: MirrorStore;
  clock: Clock;
  log: Log;
  mode: PollPolicyName;
  openIntervalMs: number;
  maxIntervalMs: number;
}

/** An announcement matches a change found within this many open-order intervals of it. */
const ANNOUNCEMENT_INTERVALS = 2;
/** Orders whose announcements are remembered, in this process; the oldest are forgotten beyond this. */
const REMEMBERED = 50_000;
/** Claims everything due within the longest interval in one statement (a bulk reschedule). */
const EVERY_ORDER = 2_147_483_647;
/**
 * Chooses when each open order is next polled. While webhooks are healthy, `maxOpenOrderIntervalMs`
 * after its last read of items and shipments (spread over that interval once, when a healthy spell
 * begins); otherwise every `openOrderIntervalMs`. Health lives in the store's checkpoints, so it
 * survives restarts and every process on a store shares it.
 */
export class PollPolicy {
  readonly #s: PollPolicySettings;
  #events: EventRecord | undefined;
  #miss: MissRecord | undefined;
  #health: WebhookHealth | undefined;
  /** Announceable kinds webhooks named lately, per order, with when: a poll finding one is fine. */
  readonly #announced = new Map<number, Map<AnnouncedKind, number>>();
  /** When this process found webhooks healthy after they were not (or first): polls spread from it. */
  #healthySince: number | undefined;
  /** Deliveries not yet added to the stored record, and the write under way. */
  #pending = 0;
  #flush: Promise<void> | undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor(settings: PollPolicySettings) {
    this.#s = settings;
  }

  /** The policy's name. */
  get mode(): PollPolicyName {
    return this.#s.mode;
  }

  /** `maxOpenOrderIntervalMs`. */
  get maxIntervalMs(): number {
    return this.#s.maxIntervalMs;
  }

  /** Health as this process last assessed it. */
  get health(): WebhookHealth {
    return this.#health ?? this.#assess();
  }

  /** The longest an open order now waits between polls. */
  get intervalMs(): number {
    return this.#relaxed() ? this.#s.maxIntervalMs : this.#s.openIntervalMs;
  }

  /**
   * Reads the shared records (other processes' webhooks and findings) and assesses them; when
   * webhooks were healthy and no longer are, brings every open order back to the short interval.
   */
  async refresh(): Promise<void> {
    const { store } = this.#s;
    const [events, miss] = await Promise.all([
      store.getCheckpoint(HEALTH_KEYS.events),
      store.getCheckpoint(HEALTH_KEYS.miss),
    ]);
    this.#events = newer(parseEvents(events), this.#events);
    this.#miss = later(parseMiss(miss), this.#miss);
    await this.#reassess();
  }

  /**
   * A webhook arrived naming `orderNumber`: remembered as announcing its kind of change, and counted
   * (shared through the store) for the delivery rate.
   */
  async announce(orderNumber: number, eventType: string): Promise<void> {
    const now = this.#s.clock.now();
    const kind = announcedBy(eventType);
    if (kind) {
      const kinds = this.#announced.get(orderNumber) ?? new Map<AnnouncedKind, number>();
      kinds.set(kind, now);
      this.#announced.delete(orderNumber);
      this.#announced.set(orderNumber, kinds);
      this.#forgetOld(this.#announced);
    }
    this.#events = withEvent(this.#events, now);
    this.#settle(this.#assess());
    this.#pending++;
    await this.#writeEvents();
  }

  /**
   * Changes a read recorded: an announceable one that a poll or sweep found and no webhook
   * announced counts against webhook health. A newly seen or restored order is passed over (its
   * past was never watched), as are changes of kinds no webhook announces.
   */
  async found(changes: Change[]): Promise<void> {
    const now = this.#s.clock.now();
    // A newly seen or restored order's past was never watched.
    if (changes.some((c) => c.type === "order.added" || c.type === "order.restored")) return;
    let unannounced: Change | undefined;
    for (const change of changes) {
      const kind = announceable(change);
      // A webhook's own read, refresh() and resync() are not polls: only what polls and sweeps find.
      if (!kind || (change.cause !== "poll" && change.cause !== "sweep")) continue;
      if (this.#takeAnnouncement(change.orderNumber, kind, now)) continue;
      unannounced ??= change;
    }
    // Without webhooks there is no health to lose: polling is already at the short interval.
    if (!unannounced || !this.#events) return;
    this.#miss = { at: now, orderNumber: unannounced.orderNumber, type: unannounced.type };
    try {
      await this.#s.store.setCheckpoint(HEALTH_KEYS.miss, JSON.stringify(this.#miss));
    } catch (error) {
      this.#warn("recording a change no webhook announced failed", error);
    }
    await this.#reassess();
  }

  /**
   * When the order whose items and shipments were read now is next due. `fixed`, or webhooks not
   * healthy: `openOrderIntervalMs` from the read. Healthy: `maxOpenOrderIntervalMs` from the read,
   * the longest a delivery, quantity or tracking update may wait; whether the read found a change
   * does not matter, as webhooks announce what would follow it. In the first such interval of a
   * healthy spell, orders polled together until then (after the first sync, after a tighten) are
   * spread over it instead: each at its own point, never later than the longest interval.
   */
  nextPollAt(activity: OrderActivity): number {
    const { clock, openIntervalMs, maxIntervalMs } = this.#s;
    const now = activity.at ?? clock.now();
    if (!this.#relaxed()) return now + openIntervalMs;
    const latest = now + maxIntervalMs;
    const since = this.#healthySince ?? now;
    const spread = Math.floor(spreadOf(activity.orderNumber) * (maxIntervalMs - openIntervalMs));
    const slot = since + openIntervalMs + spread;
    return slot > now && slot < latest ? slot : latest;
  }

  #relaxed(): boolean {
    return this.#s.mode === "adaptive" && this.health.state === "healthy";
  }

  #assess(): WebhookHealth {
    const { clock, openIntervalMs, maxIntervalMs } = this.#s;
    return assess(this.#events, this.#miss, clock.now(), {
      openIntervalMs,
      maxIntervalMs,
    });
  }

  /** Keeps `health` as this process's verdict, noting when a healthy spell begins. */
  #settle(health: WebhookHealth): WebhookHealth {
    if (health.state !== "healthy") this.#healthySince = undefined;
    else this.#healthySince ??= this.#s.clock.now();
    this.#health = health;
    return health;
  }

  async #reassess(): Promise<void> {
    const before = this.#health;
    const health = this.#settle(this.#assess());
    // Orders may wait up to the longest interval only after a healthy spell (or, at start, one a
    // process before this one may have had).
    if (this.#s.mode !== "adaptive" || health.state !== "degraded") return;
    if (before && before.state !== "healthy") return;
    const since = degradedSince(health, this.#events, this.#miss) ?? 0;
    try {
      await this.#tighten(since);
    } catch (error) {
      this.#warn("bringing open orders back to the short interval failed", error);
    }
  }

  /** Every order due within the longest interval is made due now, once per degradation. */
  async #tighten(since: number): Promise<void> {
    const { store, clock, maxIntervalMs } = this.#s;
    const done = Number(await store.getCheckpoint(HEALTH_KEYS.tightened));
    if (Number.isFinite(done) && done >= since) return;
    const now = clock.now();
    await store.setCheckpoint(HEALTH_KEYS.tightened, String(now));
    await store.claimDue(now + maxIntervalMs, EVERY_ORDER, now);
  }

  #takeAnnouncement(orderNumber: number, kind: AnnouncedKind, now: number): boolean {
    const kinds = this.#announced.get(orderNumber);
    const at = kinds?.get(kind);
    if (at === undefined) return false;
    kinds?.delete(kind);
    if (kinds?.size === 0) this.#announced.delete(orderNumber);
    return now - at <= this.#s.openIntervalMs * ANNOUNCEMENT_INTERVALS;
  }

  /** Adds the deliveries counted here to the stored record: one write at a time, merged. */
  #writeEvents(): Promise<void> {
    // A write not yet started takes these deliveries too.
    if (this.#flush) return this.#flush;
    const flush = this.#queue.then(async () => {
      this.#flush = undefined;
      const count = this.#pending;
      this.#pending = 0;
      const { store, clock } = this.#s;
      try {
        const stored = parseEvents(await store.getCheckpoint(HEALTH_KEYS.events));
        const merged = withEvent(stored, clock.now(), count);
        await store.setCheckpoint(HEALTH_KEYS.events, JSON.stringify(merged));
        this.#events = newer(merged, this.#events);
      } catch (error) {
        this.#warn("recording a webhook's arrival failed", error);
      }
    });
    this.#flush = flush;
    this.#queue = flush;
    return flush;
  }

  #forgetOld<V>(map: Map<number, V>): void {
    while (map.size > REMEMBERED) map.delete(map.keys().next().value as number);
  }

  #warn(message: string, error: unknown): void {
    const said = error instanceof Error ? error.message : String(error);
    this.#s.log.warn(`${message}; polling goes on`, { error: said.slice(0, 300) });
  }
}

/** The record with the later last delivery. */
function newer(a: EventRecord | undefined, b: EventRecord | undefined): EventRecord | undefined {
  if (!a || !b) return a ?? b;
  return a.last >= b.last ? a : b;
}

/** The miss found later. */
function later(a: MissRecord | undefined, b: MissRecord | undefined): MissRecord | undefined {
  if (!a || !b) return a ?? b;
  return a.at >= b.at ? a : b;
}

/**
 * Where an order falls in an interval, in [0, 1): a multiplicative hash of its number, so orders
 * polled together spread evenly, and every process puts one order at the same point.
 */
function spreadOf(orderNumber: number): number {
  return (Math.imul(orderNumber | 0, 0x9e3779b1) >>> 0) / 2 ** 32;
}
