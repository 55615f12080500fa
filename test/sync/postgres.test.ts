import { PartnerOrders } from "partner-orders";
import {
  type Change,
  OrderMirror,
  postgresStore,
  SweepHeldError,
  type SyncReport,
} from "partner-orders/sync";
import { createSandbox, type Sandbox } from "partner-orders/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../support/postgres.js";
import { listed, truth } from "./support.js";

/** The mirror on a real PostgreSQL server, several mirrors on one database as several processes would. */
const available = postgresAvailable();
const MINUTE = 60_000;

// Real servers and several mirrors per test: on a loaded two-core machine a test takes 10 to 30 s.
describe.runIf(available)("OrderMirror on PostgreSQL", { timeout: 90_000 }, () => {
  let server: PostgresServer;
  let database: TestDatabase;
  const closers: (() => Promise<unknown>)[] = [];
  const warnings: string[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await database?.drop();
  });

  async function fleet(count: number, sandbox: Sandbox, fetch?: typeof globalThis.fetch) {
    database = await server.createDatabase();
    const client = new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      clock: new FakeClock(),
      fetch: fetch ?? sandbox.fetch,
    });
    return Array.from({ length: count }, () => {
      const mirror = new OrderMirror({
        client,
        store: postgresStore(database.url),
        clock: sandbox.clock,
        openOrderIntervalMs: 5 * MINUTE,
        logger: {
          debug: () => undefined,
          info: () => undefined,
          warn: (...args: unknown[]) => void warnings.push(JSON.stringify(args)),
          error: (...args: unknown[]) => void warnings.push(JSON.stringify(args)),
        },
      });
      closers.push(() => mirror.close());
      return mirror;
    });
  }

  /** One pass by each mirror at once: the sweep's report, or what a mirror the sweep was held from did. */
  async function passes(mirrors: OrderMirror[]): Promise<SyncReport[]> {
    const settled = await Promise.allSettled(mirrors.map((m) => m.sync()));
    return settled.map((result) => {
      if (result.status === "fulfilled") return result.value;
      expect(result.reason).toBeInstanceOf(SweepHeldError);
      return (result.reason as SweepHeldError).report as SyncReport;
    });
  }

  async function outbox(): Promise<{ id: number; type: string; order_number: number }[]> {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const { rows } = await db.query(
      "SELECT id::int, type, order_number::int FROM po_changes ORDER BY id",
    );
    await db.end();
    return rows;
  }

  it("mirrors the service exactly, and a second pass records nothing", async () => {
    const sandbox = createSandbox({ clock: "manual" });
    closers.push(() => sandbox.close());
    const [mirror] = (await fleet(1, sandbox)) as [OrderMirror];
    const client = new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      fetch: sandbox.fetch,
    });
    await mirror.sync();
    const numbers = await listed(client);
    for (const n of [numbers[0], numbers[100], numbers.at(-1)] as number[]) {
      expect(await mirror.get(n)).toEqual({ ...(await truth(client, n)), unresolvable: false });
    }
    expect((await mirror.sync()).changesWritten).toBe(0);
  });

  it("three mirrors on one database: one sweep, each order added once, each due order read by one", async () => {
    const sandbox = createSandbox({ clock: "manual" });
    closers.push(() => sandbox.close());
    const mirrors = await fleet(3, sandbox);
    const reports = await passes(mirrors);
    expect(warnings).toEqual([]);
    expect(reports.filter((r) => r.ordersSeen > 0)).toHaveLength(1);
    const changes = await outbox();
    const added = changes.filter((c) => c.type === "order.added").map((c) => c.order_number);
    expect(new Set(added).size).toBe(added.length);
    expect(added.length).toBe(reports.reduce((sum, r) => sum + r.ordersSeen, 0));

    // One interval later every open order is due; the three share them, none read twice.
    sandbox.clock.advance(5 * MINUTE);
    sandbox.resetCounters();
    const polls = await passes(mirrors);
    const shipmentReads = sandbox.requests.filter((r) => r.path.endsWith("/shipments"));
    const ordersRead = new Set(shipmentReads.map((r) => r.path));
    // Every order is due once (open ones, and closed ones for their one re-read after closing),
    // and each is read by one mirror only: as many reads reported as distinct orders read.
    expect(ordersRead.size).toBe(added.length);
    expect(polls.reduce((sum, r) => sum + r.shipmentsReread, 0)).toBe(ordersRead.size);
    expect(polls.filter((r) => r.shipmentsReread > 0).length).toBeGreaterThan(1);
  });

  it("a sweep whose process died is taken over after its lease, from the stored cursor", async () => {
    const sandbox = createSandbox({ clock: "manual" });
    closers.push(() => sandbox.close());
    let lists = 0;
    let frozen = false;
    const [a, b] = (await fleet(2, sandbox, async (input, init) => {
      const request = new Request(input, init);
      // A's process dies as it asks for the second page: that request never ends, and nothing of A
      // runs again, so it never gives its lease back.
      if (!frozen && new URL(request.url).pathname === "/v1/orders" && ++lists === 2) {
        frozen = true;
        return new Promise<Response>(() => undefined);
      }
      return sandbox.fetch(request);
    })) as [OrderMirror, OrderMirror];
    void a.sync();
    // Polls for A to reach its second page (real processes and a real database: no fake clock).
    for (let i = 0; i < 3000 && !frozen; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(frozen).toBe(true);
    const blocked = await b.sync().catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(SweepHeldError);
    expect((blocked as SweepHeldError).report?.ordersSeen).toBe(0);
    sandbox.clock.advance(61_000);
    const before = sandbox.requests.length;
    const report = await b.sync();
    expect(report.ordersSeen).toBeGreaterThan(0);
    const first = sandbox.requests.slice(before).find((r) => r.path === "/v1/orders");
    expect(first?.search).toContain("cursor=");
  });

  it("a sweep whose page takes longer than the lease keeps it: no second process sweeps meanwhile", async () => {
    const sandbox = createSandbox({ clock: "manual" });
    closers.push(() => sandbox.close());
    let itemReads = 0;
    let second: Promise<unknown> | undefined;
    let b: OrderMirror | undefined;
    const [a, other] = (await fleet(2, sandbox, async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith("/items")) {
        // Each read of the first page takes a second: the page outlasts the 60 s lease.
        sandbox.clock.advance(1_000);
        if (++itemReads === 120)
          second = (b as OrderMirror).sync().catch((error: unknown) => error);
      }
      return sandbox.fetch(request);
    })) as [OrderMirror, OrderMirror];
    b = other;
    const first = await a.sync();
    expect(itemReads).toBeGreaterThan(120);
    const meanwhile = await second;
    expect(first.ordersSeen).toBeGreaterThan(0);
    expect(meanwhile).toBeInstanceOf(SweepHeldError);
    expect((meanwhile as SweepHeldError).report?.ordersSeen).toBe(0);
    const added = (await outbox())
      .filter((c) => c.type === "order.added")
      .map((c) => c.order_number);
    expect(new Set(added).size).toBe(added.length);
  });

  it("shares each named consumer's position across processes", async () => {
    const sandbox = createSandbox({ clock: "manual" });
    closers.push(() => sandbox.close());
    const [a, b] = (await fleet(2, sandbox)) as [OrderMirror, OrderMirror];
    await a.sync();
    const abort = new AbortController();
    const firstThree: Change[] = [];
    for await (const change of a.changes({ consumer: "billing", signal: abort.signal })) {
      firstThree.push(change);
      if (firstThree.length === 3) break;
    }
    const next = await b.changes({ consumer: "billing", signal: abort.signal }).next();
    // The third was not finished (the loop broke inside its body), so it comes again.
    expect((next.value as Change).id).toBe(firstThree[2]?.id);
    abort.abort();
  });
});
