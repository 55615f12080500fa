import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { PartnerOrders } from "partner-orders";
import {
  type MirroredOrder,
  type MirrorStore,
  OrderMirror,
  postgresStore,
  SweepHeldError,
  sqliteStore,
} from "partner-orders/sync";
import {
  chaoticWebhooks,
  createSandbox,
  createWorld,
  type WorldHistory,
} from "partner-orders/testing";
import pg from "pg";
import { listed, truth } from "../sync/support.js";
import { FakeClock } from "./fake-clock.js";
import { quiet } from "./logger.js";

/**
 * The mirror's chaos run, shared by the test (small) and `npm run bench:sync` (the size): a
 * world of orders changing, 30 % of webhooks dropped, 10 % duplicated, deliveries reordered, 429s
 * and 503s injected (one read failing for good), and the process killed while it asks for a
 * sweep's second page and restarted on the same SQLite file.
 */
export interface ChaosOptions {
  /** Orders the world places at the start. */
  orders: number;
  /** Steps of `stepMs` each. */
  steps: number;
  stepMs: number;
  /** World changes per step. */
  changesPerStep: number;
  seed?: number;
  /**
   * Processes sharing one mirror (each its own client and `OrderMirror`, webhooks received by
   * whichever comes next); more than one needs `postgresUrl`. @default 1
   */
  workers?: number;
  /** A PostgreSQL database to keep the mirror in instead of a SQLite file. */
  postgresUrl?: string;
}

export interface ChaosResult {
  history: WorldHistory;
  /** Every order the service lists, with the mirror's copy and the service's own. */
  compared: { orderNumber: number; mirrored: MirroredOrder | undefined; served: unknown }[];
  hiddenInMirror: (MirroredOrder | undefined)[];
  /** The outbox, straight from the database. */
  outbox: { id: number; type: string; order_number: number; payload: string | object }[];
  /** Ids a named consumer read, in order, across the whole outbox. */
  consumed: number[];
  resumedWithCursor: boolean;
  requests: number;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const seed = options.seed ?? 11;
  const workers = options.workers ?? 1;
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-chaos-"));
  const path = join(dir, "orders.db");
  const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
  const hooks = chaoticWebhooks({ seed, drop: 0.3, duplicate: 0.1, reorder: true });
  sandbox.webhooks.register({ url: "https://partner.example/hooks", fetch: hooks.fetch });
  const world = createWorld(sandbox, { seed });

  // The first process dies: from then on every request of its client fails.
  let killed = false;
  let crashing = false;
  const client = (dies: boolean) =>
    new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      clock: new FakeClock(), // retries and Retry-After waits cost no real time
      maxRetries: 6,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const url = new URL(request.url);
        if (dies) {
          // Dies as it asks for a sweep's second page (the first page, retries included, goes through).
          if (crashing && url.pathname === "/v1/orders" && url.searchParams.has("cursor"))
            killed = true;
          if (killed) throw new TypeError("fetch failed");
        }
        return sandbox.fetch(request);
      },
    });
  const store = (): MirrorStore =>
    options.postgresUrl ? postgresStore(options.postgresUrl) : sqliteStore(path);
  const start = (index: number) =>
    new OrderMirror({
      client: client(index === 0),
      store: store(),
      clock: sandbox.clock,
      openOrderIntervalMs: options.stepMs,
      concurrency: 4,
      // Failed reads are the point here; what counts is the state the mirror converges on.
      logger: quiet,
    });
  const mirrors = Array.from({ length: workers }, (_, i) => start(i));
  // One pass each; the ones the sweep was held from still read their share of the due orders.
  const syncAll = async () => {
    for (const result of await Promise.allSettled(mirrors.map((m) => m.sync()))) {
      if (result.status === "rejected" && !(result.reason instanceof SweepHeldError))
        throw result.reason;
    }
  };
  let next = 0;
  const onEvent = (event: Parameters<OrderMirror["handleEvent"]>[0]) =>
    (mirrors[next++ % workers] as OrderMirror).handleEvent(event).catch(() => undefined); // a failed read: the polls find it later

  let resumedWithCursor = false;
  try {
    await world.place(options.orders);
    await syncAll();
    const crashAt = Math.floor(options.steps * 0.4);
    for (let step = 0; step < options.steps; step++) {
      await world.step(options.changesPerStep);
      sandbox.clock.advance(options.stepMs);
      await sandbox.webhooks.settled();
      if (step % 7 === 3) sandbox.faults.inject({ path: /^\/v1\/orders/, status: 503 });
      if (step % 11 === 5)
        sandbox.faults.inject({ path: /^\/v1\/orders/, status: 429, retryAfter: 1 });
      // A read that fails for good (every retry answered 503): the order must not be flagged.
      if (step % 13 === 6) sandbox.faults.inject({ path: /\/shipments$/, status: 503, times: 7 });
      await hooks.flush(onEvent);

      if (step === crashAt) {
        crashing = true;
        // The first process takes the sweep (the others have nothing to sweep while it holds it).
        await (mirrors[0] as OrderMirror).sync().then(
          () => {
            throw new Error("the mirror was to die in this sweep");
          },
          () => undefined,
        );
        killed = false;
        crashing = false;
        await (mirrors[0] as OrderMirror).close();
        mirrors[0] = start(0);
        const before = sandbox.requests.length;
        await syncAll();
        const firstList = sandbox.requests.slice(before).find((r) => r.path === "/v1/orders");
        resumedWithCursor = firstList?.search.includes("cursor=") ?? false;
        continue;
      }
      await syncAll();
    }

    // Quiet again: what is left is found by the polls and sweeps, whatever the webhooks did.
    sandbox.faults.clear();
    for (let i = 0; i < 3; i++) {
      sandbox.clock.advance(options.stepMs);
      await syncAll();
    }

    const mirror = mirrors[0] as OrderMirror;
    const reader = client(false);
    const compared = [];
    for (const orderNumber of await listed(reader)) {
      compared.push({
        orderNumber,
        mirrored: await mirror.get(orderNumber),
        served: await truth(reader, orderNumber),
      });
    }
    const hiddenInMirror = await Promise.all(world.history.hidden.map((n) => mirror.get(n)));
    const outbox = await readOutbox(options.postgresUrl ?? path);

    const consumed: number[] = [];
    const abort = new AbortController();
    if (outbox.length) {
      for await (const change of mirror.changes({ consumer: "audit", signal: abort.signal })) {
        consumed.push(change.id);
        if (change.id === outbox.at(-1)?.id) abort.abort();
      }
    }
    return {
      history: world.history,
      compared,
      hiddenInMirror,
      outbox,
      consumed,
      resumedWithCursor,
      requests: sandbox.requests.length,
    };
  } finally {
    await Promise.all(mirrors.map((m) => m.close()));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readOutbox(where: string): Promise<ChaosResult["outbox"]> {
  const sql = "SELECT id, type, order_number, payload FROM po_changes ORDER BY id";
  if (!where.startsWith("postgres")) {
    const db = new Database(where, { readonly: true });
    const rows = db.prepare(sql).all() as ChaosResult["outbox"];
    db.close();
    return rows;
  }
  const db = new pg.Client({ connectionString: where });
  await db.connect();
  try {
    const { rows } = await db.query(
      "SELECT id::int, type, order_number::int, payload FROM po_changes ORDER BY id",
    );
    return rows;
  } finally {
    await db.end();
  }
}

/** How many times each world change was reported, by kind and key (`order` or `order:part`). */
export function reported(outbox: ChaosResult["outbox"]) {
  const count = (type: string, key: (p: Record<string, never>, n: number) => string) => {
    const seen = new Map<string, number>();
    for (const row of outbox.filter((r) => r.type === type)) {
      // Text on SQLite, already parsed from jsonb on PostgreSQL.
      const payload = typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload;
      const k = key(payload, row.order_number);
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    return seen;
  };
  const shipment = (p: Record<string, never>, n: number) =>
    `${n}:${(p.shipment as { shipmentNumber: number }).shipmentNumber}`;
  return {
    added: count("order.added", (_, n) => `${n}`),
    shipped: count("shipment.shipped", shipment),
    delivered: count("shipment.delivered", shipment),
    cancelled: count(
      "item.cancelled",
      (p, n) => `${n}:${(p.item as { itemNumber: number }).itemNumber}`,
    ),
    unresolvable: count("order.unresolvable", (_, n) => `${n}`),
  };
}

/** The world's changes the outbox does not report exactly once (empty when none is missed or repeated). */
export function missedOrRepeated(result: ChaosResult): string[] {
  const r = reported(result.outbox);
  const h = result.history;
  const wrong: string[] = [];
  const once = (map: Map<string, number>, keys: string[], kind: string) => {
    for (const k of keys)
      if (map.get(k) !== 1) wrong.push(`${kind} ${k}: ${map.get(k) ?? 0} times`);
  };
  once(r.added, h.placed.map(String), "order.added");
  once(r.shipped, h.shipped, "shipment.shipped");
  once(r.delivered, h.delivered, "shipment.delivered");
  once(r.cancelled, h.cancelled, "item.cancelled");
  once(r.unresolvable, h.hidden.map(String), "order.unresolvable");
  // Only a 404 flags an order: never a 503, a 429 or a dead process (Errors rule 4).
  for (const k of r.unresolvable.keys())
    if (!h.hidden.map(String).includes(k)) wrong.push(`order.unresolvable ${k}: never hidden`);
  return wrong;
}
