import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { PartnerOrders } from "partner-orders";
import { OrderMirror, sqliteStore } from "partner-orders/sync";
import { chaoticWebhooks, createSandbox, createWorld } from "partner-orders/testing";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { listed, truth } from "./support.js";

/**
 * Correctness under chaos (issue: the order mirror), at a size the suite can afford: a world of
 * orders changing for a simulated day, 30 % of webhooks dropped, 10 % duplicated, deliveries
 * reordered, 429s and 503s injected, and the process killed mid-sweep and restarted on the same
 * SQLite file. The mirror must end equal to the service, with every change reported exactly once.
 */
const QUARTER = 15 * 60_000;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the mirror under chaos", () => {
  it("converges on the service and reports every change once", async () => {
    dir = mkdtempSync(join(tmpdir(), "partner-orders-chaos-"));
    const path = join(dir, "orders.db");
    const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
    const hooks = chaoticWebhooks({ seed: 11, drop: 0.3, duplicate: 0.1, reorder: true });
    sandbox.webhooks.register({ url: "https://partner.example/hooks", fetch: hooks.fetch });
    const world = createWorld(sandbox, { seed: 11 });

    // The process dies: from then on every request of this client fails.
    let killed = false;
    let listRequests = 0;
    let killAtList = Number.POSITIVE_INFINITY;
    const client = new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      clock: new FakeClock(), // retries and Retry-After waits cost no real time
      maxRetries: 6,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (new URL(request.url).pathname === "/v1/orders" && ++listRequests >= killAtList)
          killed = true;
        if (killed) throw new TypeError("fetch failed");
        return sandbox.fetch(request);
      },
    });
    const start = () =>
      new OrderMirror({
        client,
        store: sqliteStore(path),
        clock: sandbox.clock,
        openOrderIntervalMs: QUARTER,
        concurrency: 4,
      });
    let mirror = start();
    const failures: unknown[] = [];
    const onEvent = (event: Parameters<OrderMirror["handleEvent"]>[0]) =>
      mirror.handleEvent(event).catch((error) => failures.push(error));

    await world.place(120);
    await mirror.sync();
    let resumedWithCursor = false;
    for (let step = 0; step < 96; step++) {
      await world.step(3);
      sandbox.clock.advance(QUARTER);
      await sandbox.webhooks.settled();
      if (step % 7 === 3) sandbox.faults.inject({ path: /^\/v1\/orders/, status: 503 });
      if (step % 11 === 5)
        sandbox.faults.inject({ path: /^\/v1\/orders/, status: 429, retryAfter: 1 });
      // A read that fails for good (every retry answered 503): the order must not be flagged.
      if (step % 13 === 6) sandbox.faults.inject({ path: /\/shipments$/, status: 503, times: 7 });
      await hooks.flush(onEvent);

      if (step === 40) {
        // Killed as it asks for the second page of a sweep, then restarted on the same file.
        killAtList = listRequests + 2;
        await expect(mirror.sync()).rejects.toThrow();
        killed = false;
        killAtList = Number.POSITIVE_INFINITY;
        mirror = start();
        const before = sandbox.requests.length;
        await mirror.sync();
        const firstList = sandbox.requests.slice(before).find((r) => r.path === "/v1/orders");
        resumedWithCursor = firstList?.search.includes("cursor=") ?? false;
        continue;
      }
      await mirror.sync();
    }
    expect(resumedWithCursor).toBe(true);

    // Quiet again: what is left is found by the polls and sweeps, whatever the webhooks did.
    sandbox.faults.clear();
    for (let i = 0; i < 3; i++) {
      sandbox.clock.advance(QUARTER);
      await mirror.sync();
    }

    // Field by field, every order the service lists.
    for (const n of await listed(client)) {
      expect(await mirror.get(n), `order ${n}`).toEqual({
        ...(await truth(client, n)),
        unresolvable: false,
      });
    }

    // Every change of the world reported exactly once, read straight from the store's outbox.
    const db = new Database(path, { readonly: true });
    const rows = db
      .prepare("SELECT id, type, order_number, payload FROM po_changes ORDER BY id")
      .all() as {
      id: number;
      type: string;
      order_number: number;
      payload: string;
    }[];
    db.close();
    const count = (type: string, key: (p: Record<string, never>, n: number) => string) => {
      const seen = new Map<string, number>();
      for (const row of rows.filter((r) => r.type === type)) {
        const k = key(JSON.parse(row.payload), row.order_number);
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      return seen;
    };
    const added = count("order.added", (_, n) => `${n}`);
    const shipped = count(
      "shipment.shipped",
      (p, n) => `${n}:${(p.shipment as { shipmentNumber: number }).shipmentNumber}`,
    );
    const delivered = count(
      "shipment.delivered",
      (p, n) => `${n}:${(p.shipment as { shipmentNumber: number }).shipmentNumber}`,
    );
    const cancelled = count(
      "item.cancelled",
      (p, n) => `${n}:${(p.item as { itemNumber: number }).itemNumber}`,
    );
    const unresolvable = count("order.unresolvable", (_, n) => `${n}`);
    const h = world.history;
    expect(h.shipped.length).toBeGreaterThan(20);
    expect(h.hidden.length).toBeGreaterThan(0);
    for (const n of h.placed) expect(added.get(`${n}`), `order.added ${n}`).toBe(1);
    for (const k of h.shipped) expect(shipped.get(k), `shipment.shipped ${k}`).toBe(1);
    for (const k of h.delivered) expect(delivered.get(k), `shipment.delivered ${k}`).toBe(1);
    for (const k of h.cancelled) expect(cancelled.get(k), `item.cancelled ${k}`).toBe(1);
    // Only a 404 flags an order: never a 503, a 429 or a dead process (Errors rule 4).
    expect([...unresolvable.keys()].sort()).toEqual(h.hidden.map(String).sort());
    for (const n of h.hidden) {
      expect(unresolvable.get(`${n}`), `order.unresolvable ${n}`).toBe(1);
      expect((await mirror.get(n))?.unresolvable).toBe(true);
    }
    // Nothing invented: no change of these kinds beyond what the world did (seeded orders aside).
    const worldOrders = new Set(h.placed.map(String));
    const ours = (m: Map<string, number>) =>
      [...m.keys()].filter((k) => worldOrders.has(k.split(":")[0] as string));
    expect(ours(shipped).sort()).toEqual([...h.shipped].sort());
    expect(ours(cancelled).sort()).toEqual([...h.cancelled].sort());

    // A consumer reads every change once, in id order.
    const abort = new AbortController();
    const ids: number[] = [];
    for await (const change of mirror.changes({ consumer: "audit", signal: abort.signal })) {
      ids.push(change.id);
      if (change.id === rows.at(-1)?.id) abort.abort();
    }
    expect(ids).toEqual(rows.map((r) => r.id));
    await mirror.close();
    await sandbox.close();
  }, 120_000);
});
