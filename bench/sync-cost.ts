/**
 * The cost phase's measures (bench/sync.ts, `SYNC_PHASES=cost`): when each change happened in the
 * world, which Change of the mirror reported it, and the floor a day's requests are held against.
 */
import type { Change } from "partner-orders/sync";
import type { createWorld } from "partner-orders/testing";

type World = ReturnType<typeof createWorld>;
type History = World["history"];

/** A change the world made: its kind, what it names, and when. */
export interface WorldChange {
  kind: keyof History;
  key: string;
  orderNumber: number;
  at: number;
}

/** Kinds a webhook announces (API document, "Event types"); the rest are only found by reading. */
const ANNOUNCED: ReadonlySet<keyof History> = new Set(["shipped", "cancelled", "statusChanged"]);

/** Notes the time of every entry the world's history gained since `lengths` was taken. */
export function lengthsOf(history: History): Record<keyof History, number> {
  return Object.fromEntries(
    Object.entries(history).map(([kind, list]) => [kind, list.length]),
  ) as Record<keyof History, number>;
}

export function newChanges(
  history: History,
  before: Record<keyof History, number>,
  at: number,
): WorldChange[] {
  const out: WorldChange[] = [];
  for (const kind of Object.keys(history) as (keyof History)[]) {
    for (const entry of (history[kind] as (string | number)[]).slice(before[kind])) {
      const key = String(entry);
      out.push({ kind, key, orderNumber: Number(key.split(":")[0]), at });
    }
  }
  return out;
}

/** Whether a mirror Change reports a world change of `kind` named `key`. */
function reports(kind: keyof History, key: string, c: Change): boolean {
  const [order, part] = key.split(":").map(Number);
  if (c.orderNumber !== order) return false;
  switch (kind) {
    case "placed":
      return c.type === "order.added";
    case "hidden":
      return c.type === "order.unresolvable";
    case "statusChanged":
      return c.type === "order.changed" && c.fields.includes("status");
    case "shipped":
      return c.type === "shipment.shipped" && c.shipment.shipmentNumber === part;
    case "delivered":
      return c.type === "shipment.delivered" && c.shipment.shipmentNumber === part;
    case "cancelled":
      return c.type === "item.cancelled" && c.item.itemNumber === part;
    case "quantities":
      return (
        c.type === "item.changed" && c.item.itemNumber === part && c.fields.includes("quantity")
      );
  }
}

/** Percentiles of a delay list, in ms. */
function percentiles(delays: number[]) {
  const sorted = [...delays].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length
      ? (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number)
      : Number.NaN;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

/**
 * For each world change, the first Change reporting it observed at or after it: the delay, for
 * announceable kinds and the others apart, and the changes never reported.
 */
export function delays(world: WorldChange[], changes: Change[]) {
  const byOrder = new Map<number, Change[]>();
  for (const c of changes) byOrder.set(c.orderNumber, [...(byOrder.get(c.orderNumber) ?? []), c]);
  const announced: number[] = [];
  const other: number[] = [];
  const missed: WorldChange[] = [];
  for (const w of world) {
    const found = (byOrder.get(w.orderNumber) ?? []).find(
      (c) => Date.parse(c.observedAt) >= w.at && reports(w.kind, w.key, c),
    );
    if (!found) missed.push(w);
    else (ANNOUNCED.has(w.kind) ? announced : other).push(Date.parse(found.observedAt) - w.at);
  }
  return { announced: percentiles(announced), other: percentiles(other), missed };
}

/**
 * The floor of `days`: the list pages of each sweep (one entry per sweep interval, 96 a day: the
 * orders the list showed then, 200 a page), and 2 reads (items, shipments) per order that changed.
 */
export function floorOf(sweepPages: number[], world: WorldChange[]): number {
  const pages = sweepPages.reduce((sum, n) => sum + n, 0);
  return pages + 2 * new Set(world.map((w) => w.orderNumber)).size;
}

const s = (ms: number) => (Number.isFinite(ms) ? `${Math.round(ms / 1000)} s` : "n/a");

/** `p50 12 s, p99 290 s, max 300 s (n 70)`. */
export function spreadOf(p: ReturnType<typeof percentiles>): string {
  return `p50 ${s(p.p50)}, p99 ${s(p.p99)}, max ${s(p.max)} (${p.count} changes)`;
}
