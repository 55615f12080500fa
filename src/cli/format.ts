/** Text for people: the mirror's reports, progress and health, one compact line or block each. */

import type {
  ConsumerStatus,
  InvalidOrder,
  MirrorStatus,
  SyncProgress,
  SyncReport,
} from "../sync/types";

/** `850 ms`, `12 s`, `3 min 5 s`, `2 h 10 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1_000);
  if (s < 60) return ms < 10_000 ? `${(ms / 1_000).toFixed(1)} s` : `${s} s`;
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`;
  if (s < 3_600) return pair(Math.floor(s / 60), "min", s % 60, "s");
  if (s < 86_400) return pair(Math.floor(s / 3_600), "h", Math.floor((s % 3_600) / 60), "min");
  return pair(Math.floor(s / 86_400), "d", Math.floor((s % 86_400) / 3_600), "h");
}

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** The rewritten line while a pass runs: `syncing: 12 pages, 2,400 orders, 310 requests, 20.5/s`. */
export function formatProgress(p: SyncProgress, doing = "syncing"): string {
  return `${doing}: ${count(p.pages, "page")}, ${count(p.orders, "order")}, ${count(p.requests, "request")}, ${p.ratePerSecond.toFixed(1)}/s`;
}

/** `100123 totals.order: not a decimal`; an order whose number could not be read shows `?`. */
export function formatInvalid(order: InvalidOrder): string {
  return `${order.orderNumber ?? "?"} ${order.field}: ${order.reason}`;
}

/** One line per pass of `run()`, for a log: what it read and wrote, and how long it took. */
export function formatPass(pass: number, report: SyncReport, at: Date): string {
  const invalid = report.invalidOrders;
  return (
    `${at.toISOString().replace(/\.\d{3}Z$/, "Z")} pass ${pass}: ` +
    `${count(report.ordersSeen, "order")} seen, ${report.ordersAdded} added, ${report.ordersChanged} changed; ` +
    `items of ${count(report.itemsReread, "order")} and shipments of ${count(report.shipmentsReread, "order")} re-read; ` +
    `${count(report.changesWritten, "change")}, ${count(report.requests, "request")} in ${formatDuration(report.durationMs)}` +
    (invalid.length
      ? `; ${count(invalid.length, "invalid order")}: ${invalid.map(formatInvalid).join("; ")}`
      : "")
  );
}

/** The last line of `sync` in text, once stopped: the totals of its passes. */
export function formatStopped(summary: SyncSummary): string {
  return (
    `stopped after ${count(summary.passes, "pass", "passes")}: ${count(summary.changesWritten, "change")}, ` +
    `${count(summary.requests, "request")} in ${formatDuration(summary.durationMs)}`
  );
}

/** `sync --once` in text: the report's fields, invalid orders one per line under their count. */
export function formatReport(report: SyncReport): string {
  const { invalidOrders, ...rest } = report;
  const lines = Object.entries(rest).map(([k, v]) => `${k}: ${v}`);
  lines.push(`invalidOrders: ${invalidOrders.length}`);
  for (const order of invalidOrders) lines.push(`  ${formatInvalid(order)}`);
  return lines.join("\n");
}

/** What `sync` says as it starts: the store, the sites and how often it reads. */
export function formatStart(options: {
  store: string;
  siteIds: number[] | undefined;
  sweepIntervalMs: number;
  openOrderIntervalMs: number;
}): string {
  const sites = options.siteIds?.length
    ? `${options.siteIds.length === 1 ? "site" : "sites"} ${options.siteIds.join(", ")}`
    : "every granted site";
  return (
    `mirroring ${sites} into ${options.store}: a sweep every ${formatDuration(options.sweepIntervalMs)}, ` +
    `open orders every ${formatDuration(options.openOrderIntervalMs)}; Ctrl-C stops after the current write`
  );
}

/** The totals of the passes `sync` made, printed as one JSON object when it ends (--json). */
export interface SyncSummary extends Omit<SyncReport, "invalidOrders"> {
  /** Tells the summary from the changes printed before it. */
  type: "sync.summary";
  /** Passes finished. */
  passes: number;
  /** The invalid orders of the last pass. */
  invalidOrders: InvalidOrder[];
}

export function emptySummary(): SyncSummary {
  return {
    type: "sync.summary",
    passes: 0,
    ordersSeen: 0,
    ordersAdded: 0,
    ordersChanged: 0,
    itemsReread: 0,
    shipmentsReread: 0,
    changesWritten: 0,
    requests: 0,
    invalidOrders: [],
    durationMs: 0,
  };
}

/** Adds a pass to the totals. */
export function addPass(summary: SyncSummary, report: SyncReport): void {
  summary.passes++;
  summary.ordersSeen += report.ordersSeen;
  summary.ordersAdded += report.ordersAdded;
  summary.ordersChanged += report.ordersChanged;
  summary.itemsReread += report.itemsReread;
  summary.shipmentsReread += report.shipmentsReread;
  summary.changesWritten += report.changesWritten;
  summary.requests += report.requests;
  summary.durationMs += report.durationMs;
  summary.invalidOrders = report.invalidOrders;
}

/** `partner-orders status` in text: a compact block, one fact per line. `now` is epoch ms. */
/** Webhook health on one line: the state, why when degraded, and the last webhook. */
function formatWebhooks(
  health: MirrorStatus["webhookHealth"],
  ago: (at: string) => string,
): string {
  let text: string = health.state;
  if (health.reason === "unannounced" && health.lastUnannounced) {
    const { type, orderNumber, at } = health.lastUnannounced;
    text += `: a ${type} on order ${orderNumber} found without its webhook at ${at}`;
  } else if (health.reason === "silence") {
    text += ": silent for longer than their rate makes likely";
  }
  return health.lastEventAt
    ? `${text}, the last at ${health.lastEventAt}${ago(health.lastEventAt)}`
    : `${text}, none received yet`;
}

export function formatStatus(status: MirrorStatus, now: number): string {
  const ago = (at: string) => {
    const ms = now - Date.parse(at);
    return Number.isFinite(ms) && ms >= 0 ? ` (${formatDuration(ms)} ago)` : "";
  };
  const rows: [string, string][] = [];
  const account = status.account
    ? `partner ${status.account.partnerId} at ${status.account.baseUrl}`
    : "no account yet (never synced)";
  rows.push(["store", `schema ${status.schemaVersion}, ${account}`]);
  const sweep = status.lastSweep;
  rows.push([
    "last sweep",
    sweep
      ? `${sweep.at}${ago(sweep.at)}, ${sweep.ok ? "ok" : `failed: ${sweep.code}`}`
      : "none yet",
  ]);
  const holder = status.sweepHolder;
  rows.push([
    "sweep holder",
    holder
      ? `${holder.holder}${holder.self ? " (this process)" : ""}${holder.since ? ` since ${holder.since}` : ""}, lease until ${holder.expiresAt}`
      : "none",
  ]);
  rows.push(["open orders", String(status.openOrders)]);
  rows.push([
    "due now",
    status.dueNow && status.oldestDueLagMs !== null
      ? `${status.dueNow}, the oldest ${formatDuration(status.oldestDueLagMs)} late`
      : String(status.dueNow),
  ]);
  rows.push(["webhooks", formatWebhooks(status.webhookHealth, ago)]);
  rows.push([
    "poll interval",
    `${formatDuration(status.pollIntervalMs)} at most (${status.pollPolicy} policy)`,
  ]);
  rows.push(["invalid orders", String(status.invalidOrders.length)]);
  for (const order of status.invalidOrders) rows.push(["", formatInvalid(order)]);
  const error = status.lastError;
  rows.push([
    "last error",
    error ? `${error.at}${ago(error.at)} ${error.code}: ${error.message}` : "none",
  ]);
  if (status.consumers.length === 0) rows.push(["consumers", "none"]);
  formatConsumers(status.consumers).forEach((line, i) => {
    rows.push([i === 0 ? "consumers" : "", line]);
  });
  return rows.map(([label, value]) => `${(label && `${label}:`).padEnd(16)}${value}`).join("\n");
}

/** One line per consumer, names aligned: `billing  at 120, 380 changes behind (2 h)`. */
export function formatConsumers(consumers: ConsumerStatus[]): string[] {
  const width = Math.max(0, ...consumers.map((c) => c.name.length));
  return consumers.map((c) => {
    const lag = c.lagChanges
      ? `${count(c.lagChanges, "change")} behind (${formatDuration(c.lagMs)})`
      : "caught up";
    return `${c.name.padEnd(width)}  at ${c.position}, ${lag}`;
  });
}
