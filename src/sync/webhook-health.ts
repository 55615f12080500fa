import type { WebhookHealth } from "./poll-types";
import type { Change } from "./types";

/**
 * Webhook health, worked out from what the store records: when webhooks arrived, and the last
 * announceable change a poll or a sweep found that no webhook had announced. Pure functions, so
 * `status()` in any process and the poll policy come to the same verdict from the same records.
 */

/** What webhooks can announce (API document, "Event types"); anything else is found by reading. */
export type AnnouncedKind = "status" | "shipped" | "shipment_cancelled" | "line_cancelled";

const BY_EVENT: Readonly<Record<string, AnnouncedKind>> = {
  "order.status_changed": "status",
  "shipment.shipped": "shipped",
  "shipment.cancelled": "shipment_cancelled",
  "order_line.cancelled": "line_cancelled",
};

/** The kind of change an event type announces; undefined for a type that announces none. */
export function announcedBy(eventType: string): AnnouncedKind | undefined {
  return Object.hasOwn(BY_EVENT, eventType) ? BY_EVENT[eventType] : undefined;
}

/**
 * The kind of announceable change a recorded change is; undefined for the kinds no webhook
 * announces (deliveries, quantities, tracking, new orders and lines, other fields).
 */
export function announceable(change: Change): AnnouncedKind | undefined {
  switch (change.type) {
    case "order.changed":
      return change.fields.includes("status") ? "status" : undefined;
    case "shipment.shipped":
      return "shipped";
    case "shipment.removed":
      return "shipment_cancelled";
    case "item.cancelled":
      return "line_cancelled";
    default:
      return undefined;
  }
}

/** Checkpoint names, shared by every process on one store. */
export const HEALTH_KEYS = {
  /** {@link EventRecord}: when webhooks arrived. */
  events: "poll:webhook-events",
  /** {@link MissRecord}: the last announceable change found unannounced. */
  miss: "poll:webhook-miss",
  /** Epoch ms of the last time every open order was brought back to the short interval. */
  tightened: "poll:tightened-at",
} as const;

/** When webhooks arrived: a window of recent deliveries, enough for a rate. */
export interface EventRecord {
  /** Start of the window the count covers (epoch ms). */
  first: number;
  /** The latest delivery (epoch ms). */
  last: number;
  /** Deliveries in the window. */
  count: number;
}

/** The last announceable change a poll or sweep found that no webhook had announced. */
export interface MissRecord {
  /** When it was found (epoch ms). */
  at: number;
  /** The order it was found on. */
  orderNumber: number;
  /** The change's type. */
  type: string;
}

/** The window of deliveries the rate is taken over: halved once it grows past a day. */
const RATE_WINDOW_MS = 24 * 3_600_000;
/** How unlikely a silence must be before it counts as webhooks lost: one chance in a thousand. */
const SILENCE_ODDS = Math.log(1_000);
/** Webhooks count as healthy again after this long without a change found unannounced. */
export const RECOVER_MS = 24 * 3_600_000;

/** The record after one more delivery at `now`. */
export function withEvent(record: EventRecord | undefined, now: number, count = 1): EventRecord {
  if (!record) return { first: now, last: now, count };
  const first = Math.min(record.first, now);
  const next = { first, last: Math.max(record.last, now), count: record.count + count };
  if (next.last - first <= RATE_WINDOW_MS) return next;
  // Keep the rate, forget the older half: a day-old rate should not decide about tonight.
  return {
    first: next.last - (next.last - first) / 2,
    last: next.last,
    count: Math.max(1, Math.ceil(next.count / 2)),
  };
}

/** Settings the verdict depends on. */
export interface HealthLimits {
  /** `openOrderIntervalMs`. */
  openIntervalMs: number;
  /** `maxOpenOrderIntervalMs`. */
  maxIntervalMs: number;
}

/**
 * The longest silence the observed delivery rate makes likely: the gap a steady rate leaves with
 * one chance in a thousand, at least one open-order interval, at most a day. With one delivery
 * known, the longest interval.
 */
export function silenceLimitMs(record: EventRecord, limits: HealthLimits): number {
  if (record.count < 2 || record.last <= record.first) return limits.maxIntervalMs;
  const meanGap = (record.last - record.first) / (record.count - 1);
  return Math.round(
    Math.min(RATE_WINDOW_MS, Math.max(limits.openIntervalMs, meanGap * SILENCE_ODDS)),
  );
}

/** The verdict at `now` on the stored records. */
export function assess(
  events: EventRecord | undefined,
  miss: MissRecord | undefined,
  now: number,
  limits: HealthLimits,
): WebhookHealth {
  const lastUnannounced = miss
    ? { at: iso(miss.at), orderNumber: miss.orderNumber, type: miss.type }
    : null;
  if (!events) {
    const base = { lastEventAt: null, eventsPerHour: null, silenceLimitMs: null };
    return { state: "unknown", reason: null, ...base, lastUnannounced };
  }
  const limit = silenceLimitMs(events, limits);
  const span = events.last - events.first;
  const base = {
    lastEventAt: iso(events.last),
    eventsPerHour: events.count >= 2 && span > 0 ? ((events.count - 1) * 3_600_000) / span : null,
    silenceLimitMs: limit,
    lastUnannounced,
  };
  if (miss && now - miss.at < RECOVER_MS)
    return { state: "degraded", reason: "unannounced", ...base };
  if (now - events.last > limit) return { state: "degraded", reason: "silence", ...base };
  return { state: "healthy", reason: null, ...base };
}

/** When the current degradation began (epoch ms); undefined while not degraded. */
export function degradedSince(
  health: WebhookHealth,
  events: EventRecord | undefined,
  miss: MissRecord | undefined,
): number | undefined {
  if (health.reason === "unannounced") return miss?.at;
  if (health.reason === "silence" && events) return events.last + (health.silenceLimitMs ?? 0);
  return undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

const isTime = (value: unknown): value is number => Number.isFinite(value);

function parse(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The stored {@link EventRecord}; undefined when absent or not of its shape. */
export function parseEvents(text: string | null): EventRecord | undefined {
  const v = parse(text);
  if (!v || !isTime(v.first) || !isTime(v.last) || !isTime(v.count) || v.count < 1)
    return undefined;
  return { first: v.first, last: v.last, count: v.count };
}

/** The stored {@link MissRecord}; undefined when absent or not of its shape. */
export function parseMiss(text: string | null): MissRecord | undefined {
  const v = parse(text);
  if (!v || !isTime(v.at) || !isTime(v.orderNumber) || typeof v.type !== "string") return undefined;
  return { at: v.at, orderNumber: v.orderNumber, type: v.type };
}
