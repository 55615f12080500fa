import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { PartnerOrders } from "partner-orders";
import { type Change, type MirrorStore, OrderMirror, postgresStore } from "partner-orders/sync";
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { ConsumerGroupStore } from "../../src/sync/consume-types";
import { LOOK_MS } from "../../src/sync/feed";
import { FakeClock } from "../support/fake-clock";
import { postgresAvailable, type TestDatabase, usePostgres } from "../support/postgres.js";
import { record, V2_POSTGRES_SCHEMA } from "../sync/stores/support.js";

/**
 * A named consumer as a group on a real PostgreSQL server, its members real processes: the stream
 * split among them with each change handled once and each order in id order, a member that dies
 * or hangs mid-batch replaced, `consume()` effects exactly once through SIGKILLs, and consumers
 * woken by NOTIFY from another process without the periodic look, also after a server restart.
 */
const available = postgresAvailable();
const WORKER = fileURLToPath(new URL("./group-member-worker.ts", import.meta.url));
const STORE_WORKER = fileURLToPath(new URL("./postgres-store-worker.ts", import.meta.url));
const STATUSES = ["Open", "In Production", "Printed", "Packed", "Ready"];

// biome-ignore lint/suspicious/noExplicitAny: lines of JSON from a child
type Line = any;

interface Member {
  child: ChildProcess;
  lines: Line[];
  /** Resolves with the first line (seen or to come) that `test` accepts. */
  when(test: (line: Line) => boolean): Promise<Line>;
  exited: Promise<number | null>;
}

function member(url: string, env: Record<string, string>, script = WORKER): Member {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, DATABASE_URL: url, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Line[] = [];
  const waiters: { test: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    let line: Line;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      if (code !== 0 && code !== null) console.error(stderr.slice(-2000));
      resolve(code);
    }),
  );
  return {
    child,
    lines,
    exited,
    when: (test) => {
      const found = lines.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        void exited.then(() => reject(new Error(`member exited first: ${stderr.slice(-1000)}`)));
      });
    },
  };
}

/** [id, order] pairs a member printed, as handled (consume batches or single changes). */
function handled(m: Member): [number, number][] {
  return m.lines.flatMap((l: Line) => l.batch ?? (l.change ? [l.change] : []));
}

/** Each order's ids in the order they were handled are increasing. */
function inIdOrderPerOrder(pairs: [number, number][]): boolean {
  const last = new Map<number, number>();
  for (const [id, order] of pairs) {
    if ((last.get(order) ?? 0) >= id) return false;
    last.set(order, id);
  }
  return true;
}

/** Waits on real events: polls `check` (a query) until it holds. */
async function until(check: () => Promise<boolean>, what: string, tries = 2_000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never: ${what}`);
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const unusedClient = () =>
  new PartnerOrders({ baseUrl: "http://127.0.0.1:9", clientId: "unused", clientSecret: "unused" });

describe.runIf(available)("consumer groups on PostgreSQL", () => {
  const postgres = usePostgres();
  let database: TestDatabase;
  let store: MirrorStore;
  let admin: pg.Client;
  const children: Member[] = [];
  const setUp = async () => {
    database = await postgres.createDatabase();
    store = postgresStore(database.url);
    await store.open();
    admin = await postgres.connect(database.url);
    await admin.query(
      "CREATE TABLE partner_effects (seq BIGSERIAL PRIMARY KEY, change_id BIGINT NOT NULL, order_number BIGINT NOT NULL, member INT NOT NULL)",
    );
  };
  afterEach(async () => {
    for (const m of children.splice(0)) {
      m.child.kill("SIGKILL");
      await m.exited;
    }
    await admin?.end().catch(() => undefined);
    await store?.close();
  });

  /** Orders 1..orders, each recorded `rounds` times with a new status: one change per record. */
  async function write(orders: number, rounds: number): Promise<number> {
    let last = 0;
    for (let round = 0; round < rounds; round++) {
      for (let n = 1; n <= orders; n++) {
        const written = await record(store, n, STATUSES[round] as string);
        last = Math.max(last, ...written.map((c) => c.id));
      }
    }
    return last;
  }
  const start = (env: Record<string, string>) => {
    const m = member(database.url, env);
    children.push(m);
    return m;
  };
  const effects = async () =>
    (
      await admin.query(
        "SELECT change_id::int AS id, order_number::int AS n, member FROM partner_effects ORDER BY seq",
      )
    ).rows as { id: number; n: number; member: number }[];

  it("splits one consumer name among three processes: each change once, each order in id order, the position the low watermark", async () => {
    await setUp();
    const members = [0, 1, 2].map(() =>
      start({ MODE: "consume", CONSUMER: "billing", BATCH: "10", DELAY_MS: "5" }),
    );
    await Promise.all(members.map((m) => m.when((l) => l.ready)));
    const last = await write(60, 5);
    await until(async () => (await effects()).length >= last, "every change handled");
    await until(
      async () =>
        (await admin.query("SELECT position::int AS p FROM po_consumers WHERE name = 'billing'"))
          .rows[0]?.p === last,
      "the position reaching the last change",
    );
    for (const m of members) m.child.kill("SIGTERM");
    await Promise.all(members.map((m) => m.when((l) => l.closed)));
    const rows = await effects();
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: last }, (_, i) => i + 1),
    );
    expect(inIdOrderPerOrder(rows.map((r) => [r.id, r.n]))).toBe(true);
    expect(new Set(rows.map((r) => r.member)).size).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("passes the share of a member SIGKILLed mid-batch to the others, and never hands them its orders before", async () => {
    await setUp();
    const last = await write(150, 2);
    const stuck = start({ MODE: "changes", CONSUMER: "mailer", STALL_AT: "3" });
    await stuck.when((l) => l.stalled);
    const heldOrders = new Set(handled(stuck).map(([, n]) => n));
    const others = [start({ MODE: "changes", CONSUMER: "mailer" })];
    others.push(start({ MODE: "changes", CONSUMER: "mailer" }));
    await Promise.all(others.map((m) => m.when((l) => l.ready)));
    // Its batch (100 changes) holds at most the orders of the first 100: the rest gets done, and
    // what it printed waits for it.
    const notHeld = await admin.query(
      "SELECT count(*)::int AS n FROM po_changes WHERE order_number NOT IN (SELECT order_number FROM po_changes WHERE id <= 100)",
    );
    expect(notHeld.rows[0].n).toBeGreaterThan(0);
    await until(
      async () => others.flatMap(handled).length >= notHeld.rows[0].n,
      "the others doing what is free",
    );
    expect(others.flatMap(handled).some(([, n]) => heldOrders.has(n))).toBe(false);
    stuck.child.kill("SIGKILL");
    await stuck.exited;
    await until(
      async () => new Set(others.flatMap(handled).map(([id]) => id)).size === last,
      "the others taking over its share",
    );
    const pairs = others.flatMap(handled);
    // Its unfinished batch came again (at least once), to one member, in id order per order.
    for (const [id] of handled(stuck)) expect(pairs.some(([other]) => other === id)).toBe(true);
    expect(pairs.length).toBe(last);
    for (const m of others) expect(inIdOrderPerOrder(handled(m))).toBe(true);
  }, 120_000);

  it("passes the share of a member that hangs mid-batch to the others after consumerLeaseMs", async () => {
    await setUp();
    const last = await write(20, 2);
    const hung = start({ MODE: "changes", CONSUMER: "mailer", STALL_AT: "2", LEASE_MS: "1500" });
    await hung.when((l) => l.stalled);
    const other = start({ MODE: "changes", CONSUMER: "mailer", LEASE_MS: "1500" });
    await until(
      async () => new Set(handled(other).map(([id]) => id)).size === last,
      "the other member taking over once the lease ran out",
    );
    // The hung member is still alive: the server ended its transaction, not its process.
    expect(hung.child.exitCode).toBe(null);
    expect(inIdOrderPerOrder(handled(other))).toBe(true);
  }, 120_000);

  it("consume(): writes through tx happen exactly once while the consumer is SIGKILLed at random", async () => {
    await setUp();
    const last = await write(100, 4);
    for (let kill = 0; kill < 6; kill++) {
      const m = start({ MODE: "consume", CONSUMER: "ledger", BATCH: "7", DELAY_MS: "15" });
      const after = 1 + Math.floor(Math.random() * 4);
      await m.when((l) => l.batch && m.lines.filter((x: Line) => x.batch).length >= after);
      m.child.kill("SIGKILL");
      await m.exited;
    }
    const m = start({ MODE: "consume", CONSUMER: "ledger", BATCH: "7" });
    await until(
      async () =>
        (await admin.query("SELECT position::int AS p FROM po_consumers WHERE name = 'ledger'"))
          .rows[0]?.p === last,
      "the consumer finishing",
    );
    m.child.kill("SIGTERM");
    await m.when((l) => l.closed);
    const rows = await effects();
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: last }, (_, i) => i + 1),
    );
    expect(inIdOrderPerOrder(rows.map((r) => [r.id, r.n]))).toBe(true);
  }, 180_000);

  it("migrates a version 2 database in one transaction, a consumer's position carried into its group", async () => {
    await setUp();
    // A database as version 2 laid it out, with four changes and a consumer at the second.
    await admin.query(
      "DROP TABLE po_orders, po_changes, po_checkpoints, po_consumers, po_leases, po_meta, po_external_ids, po_consumer_orders",
    );
    await admin.query(V2_POSTGRES_SCHEMA);
    for (let n = 1; n <= 4; n++)
      await admin.query(
        `INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload)
         VALUES ('order.unresolvable', $1, 12, '2026-01-01T00:00:00.000Z', 'sweep', '{}')`,
        [n],
      );
    await admin.query("INSERT INTO po_consumers (name, position) VALUES ('billing', 2)");
    const opened = [postgresStore(database.url), postgresStore(database.url)];
    await Promise.all(opened.map((s) => s.open()));
    const version = await admin.query("SELECT value FROM po_meta WHERE name = 'schema_version'");
    expect(version.rows).toEqual([{ value: "3" }]);
    const claimed = await (opened[0] as unknown as ConsumerGroupStore).claimChanges(
      "billing",
      10,
      30_000,
    );
    expect(claimed?.changes.map((c) => c.id)).toEqual([3, 4]);
    await claimed?.ack();
    expect(await opened[1]?.consumers()).toEqual([{ name: "billing", position: 4 }]);
    await Promise.all(opened.map((s) => s.close()));
  }, 60_000);

  it("consume(): a handler that throws rolls back its writes, keeps the position and rejects with its error", async () => {
    await setUp();
    await write(3, 1);
    const mirror = new OrderMirror({
      client: unusedClient(),
      store: postgresStore(database.url),
      logger: silent,
    });
    try {
      const boom = new Error("partner table full");
      const seen: number[][] = [];
      const failed = await mirror
        .consume({
          consumer: "ledger",
          batchSize: 2,
          handler: async (changes, tx) => {
            seen.push(changes.map((c) => c.id));
            if (!tx.exactlyOnce) throw new Error("expected exactly once");
            await tx.query(
              "INSERT INTO partner_effects (change_id, order_number, member) VALUES ($1, $2, 0)",
              [changes[0]?.id, changes[0]?.orderNumber],
            );
            throw boom;
          },
        })
        .catch((error: unknown) => error);
      expect(failed).toBe(boom);
      expect(seen).toEqual([[1, 2]]);
      expect(await effects()).toEqual([]);
      expect((await mirror.status()).consumers).toEqual([
        expect.objectContaining({ name: "ledger", position: 0 }),
      ]);
      const abort = new AbortController();
      const again: number[] = [];
      await mirror.consume({
        consumer: "ledger",
        batchSize: 2,
        signal: abort.signal,
        handler: (changes) => {
          again.push(...changes.map((c) => c.id));
          if (again.length === 3) abort.abort();
        },
      });
      expect(again).toEqual([1, 2, 3]);
      expect((await mirror.status()).consumers[0]?.position).toBe(3);
    } finally {
      await mirror.close();
    }
  }, 60_000);

  it("wakes a consumer when another process commits, without the periodic look, also after a server restart", async () => {
    await setUp();
    // Sleeps end only when the test moves time: a look that happened is a LOOK_MS sleep that woke.
    const clock = new FakeClock({
      monotonic: Date.UTC(2030, 0, 1),
      hostTimers: true,
      holdSleeps: true,
    });
    const looks = () => clock.woke.filter((ms) => ms === LOOK_MS).length;
    const mirror = new OrderMirror({
      client: unusedClient(),
      store: postgresStore(database.url),
      clock,
      logger: silent,
    });
    const abort = new AbortController();
    const listening = async () =>
      (
        await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        )
      ).rows[0].n === 1;
    const writeElsewhere = async (orders: number) => {
      const writer = member(
        database.url,
        { ORDERS: String(orders), CONCURRENCY: "1" },
        STORE_WORKER,
      );
      children.push(writer);
      await writer.when((l) => l.done);
    };
    try {
      const feed = mirror.changes({ consumer: "mailer", signal: abort.signal });
      const first = feed.next();
      await until(listening, "the mirror listening");
      await writeElsewhere(1);
      expect(((await first).value as Change).orderNumber).toBe(1);
      expect(looks()).toBe(0);

      // A restart cuts the listening connection: the looks carry on and listen again.
      await admin.end();
      const second = feed.next();
      await postgres.server.restart();
      admin = await postgres.connect(database.url);
      // Up to 30 s of real time: on a loaded machine the restarted server takes a while to accept.
      for (let i = 0; i < 300 && !(await listening()); i++) {
        clock.advance(LOOK_MS);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await listening()).toBe(true);
      const looksBefore = looks();
      await writeElsewhere(2);
      expect(((await second).value as Change).orderNumber).toBe(2);
      expect(looks()).toBe(looksBefore);
      abort.abort();
      await feed.return(undefined);
    } finally {
      await mirror.close();
    }
  }, 120_000);
});
