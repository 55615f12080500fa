import type { RequestHistory } from "../request-log";
import type { MirrorStatus } from "../types";

/**
 * What the page shows, as text: the one place that formats a status. The HTML page renders it
 * (escaped) and `status.json` hands it to the page's script, which writes it with `textContent`.
 */
export interface StatusView {
  /** `ok`, `warning` or `error`, with the reason in `figures.health`. */
  level: "ok" | "warning" | "error";
  /** Figure name to display text. */
  figures: Record<string, string>;
  /** Table name to rows of cells. */
  tables: Record<string, string[][]>;
  /** Requests per hour, and what a naive poller would send. */
  chart: ChartData;
}

/** The bars of the requests chart and the naive poller's line. */
export interface ChartData {
  /** `[start of the hour (epoch ms), requests]`, oldest first. */
  hours: [number, number][];
  /** Requests per hour of a naive poller; null while the order count is unknown. */
  naivePerHour: number | null;
  /** How `naivePerHour` was computed, in words. */
  naiveHow: string;
}

/** What the page shows: the mirror's status (fields a newer mirror adds are shown as text). */
export type PageStatus = MirrorStatus;

const KNOWN = new Set([
  "lastSweep",
  "sweepHolder",
  "openOrders",
  "dueNow",
  "oldestDueLagMs",
  "invalidOrders",
  "lastError",
  "consumers",
  "schemaVersion",
  "account",
  "webhookHealth",
  "pollIntervalMs",
  "pollPolicy",
]);

/** Orders a list page holds when the naive poller asks for the most. */
const LIST_PAGE = 200;

export function statusView(status: PageStatus, history: RequestHistory | null): StatusView {
  const extra = Object.entries(status).filter(([key]) => !KNOWN.has(key));
  const { lastSweep, sweepHolder, lastError } = status;
  const interval = history?.sweepIntervalMs ?? 0;
  const nextSweep =
    lastSweep && interval > 0 ? iso(Date.parse(lastSweep.at) + interval) : "not known";
  const hours = history?.hours ?? [];
  const chart = naive(history);
  return {
    level: levelOf(status),
    figures: {
      health: healthText(status),
      lastSweep: lastSweep
        ? `${lastSweep.at} ${lastSweep.ok ? "finished" : `failed (${lastSweep.code})`}`
        : "none yet",
      nextSweep: lastSweep && interval > 0 ? `${nextSweep} (expected)` : nextSweep,
      sweepHolder: sweepHolder
        ? `${sweepHolder.holder}${sweepHolder.self ? " (this process)" : ""}, since ${sweepHolder.since ?? "unknown"}, lease until ${sweepHolder.expiresAt}`
        : "nobody",
      lastError: lastError
        ? `${lastError.at} ${lastError.code}: ${redactUrls(lastError.message)}`
        : "none",
      openOrders: String(status.openOrders),
      dueNow: String(status.dueNow),
      dueLag: status.oldestDueLagMs === null ? "none due" : duration(status.oldestDueLagMs),
      webhooks: webhookText(status.webhookHealth),
      pollInterval: `${duration(status.pollIntervalMs)} at most (${status.pollPolicy} policy)`,
      account: status.account
        ? `${status.account.partnerId} at ${withoutCredentials(status.account.baseUrl)}`
        : "not recorded yet",
      schemaVersion: String(status.schemaVersion),
      requestsLastHour: String(hours[hours.length - 1]?.[1] ?? 0),
      requests48h: String(hours.reduce((sum, [, n]) => sum + n, 0)),
      naivePerHour: chart.naivePerHour === null ? "not known yet" : String(chart.naivePerHour),
      naiveHow: chart.naiveHow,
    },
    tables: {
      consumers: status.consumers.map((c) => [
        c.name,
        String(c.position),
        String(c.lagChanges),
        duration(c.lagMs),
      ]),
      invalid: status.invalidOrders.map((o) => [
        o.orderNumber === null ? "(no number)" : String(o.orderNumber),
        o.field,
        o.reason,
        o.at,
      ]),
      other: extra.map(([key, value]) => [key, describe(key, value)]),
    },
    chart,
  };
}

function levelOf(status: MirrorStatus): StatusView["level"] {
  if (status.lastSweep && !status.lastSweep.ok) return "error";
  if (!status.lastSweep || status.invalidOrders.length || (status.oldestDueLagMs ?? 0) > 60_000) {
    return "warning";
  }
  return "ok";
}

function healthText(status: MirrorStatus): string {
  const { lastSweep } = status;
  if (lastSweep && !lastSweep.ok) return `error: the last sweep failed (${lastSweep.code})`;
  if (!lastSweep) return "warning: no sweep has finished yet";
  const notes: string[] = [];
  if (status.invalidOrders.length) notes.push(`${status.invalidOrders.length} order(s) kept out`);
  if ((status.oldestDueLagMs ?? 0) > 60_000) {
    notes.push(`polls ${duration(status.oldestDueLagMs ?? 0)} late`);
  }
  return notes.length ? `warning: ${notes.join(", ")}` : "ok";
}

/**
 * A naive poller re-reads every order whole every sweep interval: the list, a page per 200 orders,
 * and each order's items and shipments, two requests an order.
 */
function naive(history: RequestHistory | null): ChartData {
  const hours = history?.hours ?? [];
  const orders = history?.orders ?? null;
  const interval = history?.sweepIntervalMs ?? 0;
  if (orders === null || !(interval > 0)) {
    return { hours, naivePerHour: null, naiveHow: "known after the first complete sweep" };
  }
  const perSweep = Math.ceil(orders / LIST_PAGE) + 2 * orders;
  const sweepsPerHour = 3_600_000 / interval;
  return {
    hours,
    naivePerHour: Math.round(perSweep * sweepsPerHour),
    naiveHow: `a naive poller reads every order every sweep interval (${duration(interval)}): ⌈${orders} orders / ${LIST_PAGE}⌉ list pages + 2 × ${orders} (items and shipments) = ${perSweep} requests, ${formatNumber(sweepsPerHour)} times an hour`,
  };
}

/** `1 h 5 min`, `3 min 20 s`, `800 ms`. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

function iso(epochMs: number): string {
  return Number.isFinite(epochMs) ? new Date(epochMs).toISOString() : "not known";
}

/** A value of a field this page does not know, as short text (a duration for `...Ms` numbers). */
/** Webhook health in words: the state, why when degraded, and the figures it rests on. */
function webhookText(health: MirrorStatus["webhookHealth"]): string {
  const parts: string[] = [health.state];
  if (health.reason === "unannounced" && health.lastUnannounced) {
    const { type, orderNumber, at } = health.lastUnannounced;
    parts.push(`a ${type} on order ${orderNumber} found at ${at} without its webhook`);
  } else if (health.reason === "silence") {
    parts.push("no webhook for longer than their rate makes likely");
  }
  parts.push(health.lastEventAt ? `last webhook ${health.lastEventAt}` : "no webhook received yet");
  if (health.eventsPerHour !== null) parts.push(`${formatNumber(health.eventsPerHour)} an hour`);
  return parts.join("; ");
}

function describe(key: string, value: unknown): string {
  if (typeof value === "number" && /Ms$/.test(key)) return duration(value);
  if (typeof value === "string") return redactUrls(value);
  const text = redactUrls(JSON.stringify(value) ?? String(value));
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** `text` with the user name and password of every URL in it replaced by `***`. */
export function redactUrls(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1***@");
}

/** A URL fit to show: user name and password dropped, whatever the base URL was given with. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return "(a base URL that does not parse)";
  }
}
