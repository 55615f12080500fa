import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../../src/sync/errors";
import {
  Connections,
  type PgClientLike,
  type PgPoolLike,
} from "../../../src/sync/stores/pg-connection";
import { ConsumerGroups, groupKey } from "../../../src/sync/stores/postgres-groups";

const T = {
  changes: "po_changes",
  consumers: "po_consumers",
  consumerOrders: "po_consumer_orders",
};

interface Script {
  /** Pending changes after the position: [id, order]. */
  pending: [number, number][];
  /** Orders another member holds. */
  heldElsewhere: Set<number>;
  /** The consumer's stored position; null when its row is missing. */
  position: number | null;
  /** A statement matching this fails once with a connection error. */
  breakOn?: RegExp;
  /** A statement matching `on` fails once with `error`. */
  fail?: { on: RegExp; error: Error };
  /** The held orders' changes were finished by another member meanwhile: none comes back. */
  vanished?: boolean;
}

const row = (id: number, order: number) => ({
  id: String(id),
  type: "order.unresolvable",
  order_number: String(order),
  site_id: "12",
  observed_at: "2026-11-26T00:00:00.000Z",
  cause: "poll",
  payload: "{}",
});

/** A pool whose connections answer the group's statements from `script`, recording them. */
function scripted(script: Script) {
  const log: [string, unknown[] | undefined][] = [];
  const released: unknown[] = [];
  const clients: EventEmitter[] = [];
  class Client extends EventEmitter {
    async query(text: string, values?: unknown[]) {
      const sql = text.replace(/\s+/g, " ").trim();
      log.push([sql, values]);
      if (script.breakOn?.test(sql)) {
        script.breakOn = undefined;
        throw Object.assign(new Error("Connection terminated unexpectedly"), {});
      }
      if (script.fail?.on.test(sql)) {
        const { error } = script.fail;
        script.fail = undefined;
        throw error;
      }
      if (sql.startsWith("SELECT position FROM"))
        return script.position === null
          ? { rows: [], rowCount: 0 }
          : { rows: [{ position: String(script.position) }], rowCount: 1 };
      if (sql.startsWith("SELECT c.id, c.order_number")) {
        const [, after, limit] = values as [string, number, number];
        const rows = script.pending
          .filter(([id]) => id > after)
          .slice(0, limit)
          .map(([id, n]) => ({ id: String(id), order_number: String(n) }));
        return { rows, rowCount: rows.length };
      }
      if (sql.startsWith("SELECT n FROM unnest")) {
        const rows = ((values as unknown[])[1] as number[])
          .filter((n) => !script.heldElsewhere.has(n))
          .map((n) => ({ n: String(n) }));
        return { rows, rowCount: rows.length };
      }
      if (sql.startsWith("SELECT c.* FROM")) {
        if (script.vanished) return { rows: [], rowCount: 0 };
        const [, orders, limit] = values as [string, number[], number];
        const rows = script.pending
          .filter(([, n]) => orders.includes(n))
          .slice(0, limit)
          .map(([id, n]) => row(id, n));
        return { rows, rowCount: rows.length };
      }
      return { rows: [], rowCount: 0 };
    }
    release(error?: unknown) {
      released.push(error);
    }
  }
  const pool = {
    connect(callback: (error: Error | undefined, client: PgClientLike | undefined) => void) {
      const client = new Client();
      clients.push(client);
      callback(undefined, client as unknown as PgClientLike);
    },
    query: async (text: string, values?: unknown[]) => new Client().query(text, values),
    end: async () => undefined,
  } as unknown as PgPoolLike;
  const groups = new ConsumerGroups(new Connections(() => pool, "PostgreSQL test"), T, "s");
  const kinds = () => log.map(([sql]) => sql.split(" ").slice(0, 2).join(" "));
  return { groups, log, released, kinds, clients };
}

describe("ConsumerGroups", () => {
  it("claims the pending changes of the orders it can lock, under the lease, and acknowledges them in the transaction", async () => {
    const s = scripted({
      pending: [
        [3, 10],
        [4, 11],
        [5, 10],
        [6, 12],
      ],
      heldElsewhere: new Set([11]),
      position: 2,
    });
    const claimed = await s.groups.claim("billing", 10, 1500);
    expect(claimed?.changes.map((c) => [c.id, c.orderNumber])).toEqual([
      [3, 10],
      [5, 10],
      [6, 12],
    ]);
    expect(claimed?.tx.exactlyOnce).toBe(true);
    const [insertConsumer, begin, lease, position, candidates, locks, fetch] = s.log;
    expect(insertConsumer?.[0]).toMatch(
      /^INSERT INTO po_consumers .* ON CONFLICT \(name\) DO NOTHING/,
    );
    expect(insertConsumer?.[1]).toEqual(["billing"]);
    expect(begin?.[0]).toBe("BEGIN");
    expect(lease).toEqual([
      "SELECT set_config('idle_in_transaction_session_timeout', $1, true)",
      ["1500"],
    ]);
    expect(position?.[1]).toEqual(["billing"]);
    expect(candidates?.[1]).toEqual(["billing", 2, 10]);
    expect(locks?.[0]).toContain("pg_try_advisory_xact_lock($1::int, (n % 2147483647)::int)");
    expect(locks?.[1]).toEqual([groupKey("s/consumer/billing"), [10, 11, 12]]);
    expect(fetch?.[1]).toEqual(["billing", [10, 12], 10]);

    await claimed?.tx.query("INSERT INTO partner VALUES ($1)", [1]);
    await claimed?.ack(2);
    const after = s.log.slice(7);
    expect(after[0]).toEqual(["INSERT INTO partner VALUES ($1)", [1]]);
    expect(after[1]?.[0]).toMatch(
      /^INSERT INTO po_consumer_orders AS o .* GREATEST\(o.done_id, excluded.done_id\)/,
    );
    // The first two changes: order 10 up to 5 (3 and 5 are both its).
    expect(after[1]?.[1]).toEqual(["billing", [10], [5]]);
    expect(after[2]?.[0]).toBe("COMMIT");
    expect(after[3]?.[0]).toMatch(/^UPDATE po_consumers AS p SET position = w.at/);
    expect(after[4]?.[0]).toMatch(/^DELETE FROM po_consumer_orders WHERE consumer = \$1/);
    expect(after[4]?.[1]).toEqual(["billing", [10]]);
    expect(s.released).toEqual([undefined, undefined]);
    // Once ended, neither ack nor release touches the connection again.
    await claimed?.ack();
    await claimed?.release();
    expect(s.log).toHaveLength(12);
  });

  it("creates the consumer's row once per consumer, and acknowledges nothing with ack(0)", async () => {
    const s = scripted({ pending: [[1, 10]], heldElsewhere: new Set(), position: 0 });
    const first = await s.groups.claim("billing", 5, 30_000);
    await first?.ack(0);
    const second = await s.groups.claim("billing", 5, 30_000);
    await second?.release();
    expect(s.kinds().filter((k) => k === "INSERT INTO")).toHaveLength(1);
    expect(s.kinds().slice(-2)).toEqual(["SELECT c.*", "ROLLBACK"]);
    expect(s.kinds()).not.toContain("UPDATE po_consumers");
    expect(s.released).toEqual([undefined, undefined, undefined]);
  });

  it("answers null when every pending order is held elsewhere, moving the position and tidying up", async () => {
    const s = scripted({
      pending: [
        [1, 10],
        [2, 11],
      ],
      heldElsewhere: new Set([10, 11]),
      position: 0,
    });
    expect(await s.groups.claim("billing", 5, 30_000)).toBeNull();
    expect(s.kinds().slice(-3)).toEqual(["ROLLBACK", "UPDATE po_consumers", "DELETE FROM"]);
    expect(s.log.at(-1)?.[1]).toEqual(["billing", null]);
    expect(s.released).toEqual([undefined, undefined]);
  });

  it("looks through further pages when the first ones are held, up to four", async () => {
    const pending: [number, number][] = [];
    for (let id = 1; id <= 30; id++) pending.push([id, id]);
    const s = scripted({
      pending,
      heldElsewhere: new Set(pending.slice(0, 15).map(([, n]) => n)),
      position: 0,
    });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    expect(claimed?.changes.map((c) => c.id)).toEqual([16, 17, 18, 19, 20]);
    expect(s.kinds().filter((k) => k === "SELECT c.id,")).toHaveLength(4);
    await claimed?.release();
    const far = scripted({
      pending,
      heldElsewhere: new Set(pending.slice(0, 20).map(([, n]) => n)),
      position: 0,
    });
    expect(await far.groups.claim("billing", 5, 30_000)).toBeNull();
    expect(far.kinds().filter((k) => k === "SELECT c.id,")).toHaveLength(4);
  });

  it("answers null when nothing is pending, after one look", async () => {
    const s = scripted({ pending: [], heldElsewhere: new Set(), position: 7 });
    expect(await s.groups.claim("billing", 5, 30_000)).toBeNull();
    expect(s.kinds().filter((k) => k === "SELECT n")).toHaveLength(0);
  });

  it("tries a claim once more on a fresh connection when its connection fails, then gives StoreUnavailableError", async () => {
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      breakOn: /^BEGIN/,
    });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    expect(claimed?.changes.map((c) => c.id)).toEqual([1]);
    expect((s.released[1] as Error).message).toBe("Connection terminated unexpectedly");
    await claimed?.release();
    const t = scripted({ pending: [[1, 10]], heldElsewhere: new Set(), position: 0 });
    await t.groups.claim("billing", 5, 30_000).then((c) => c?.release());
    let breaks = 0;
    const twice = scripted({ pending: [[1, 10]], heldElsewhere: new Set(), position: 0 });
    const original = twice.log.push.bind(twice.log);
    twice.log.push = (...entries) => {
      if (entries[0]?.[0].startsWith("SELECT position") && breaks++ < 2)
        throw new Error("Connection terminated unexpectedly");
      return original(...entries);
    };
    await expect(twice.groups.claim("billing", 5, 30_000)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it("rolls back and reports an acknowledgement whose connection fails", async () => {
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      breakOn: /^INSERT INTO po_consumer_orders/,
    });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    await expect(claimed?.ack()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(s.kinds().at(-1)).toBe("ROLLBACK");
    const c = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      breakOn: /^COMMIT/,
    });
    const atCommit = await c.groups.claim("billing", 5, 30_000);
    await expect(atCommit?.ack()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((c.released.at(-1) as Error).message).toBe("Connection terminated unexpectedly");
  });

  it("stops looking once the orders it locked cover the limit, locking nothing more", async () => {
    const pending: [number, number][] = [];
    for (let id = 1; id <= 10; id++) pending.push([id, id]);
    const s = scripted({ pending, heldElsewhere: new Set(), position: 0 });
    const claimed = await s.groups.claim("billing", 2, 30_000);
    expect(claimed?.changes.map((c) => c.id)).toEqual([1, 2]);
    expect(s.kinds().filter((k) => k === "SELECT c.id,")).toHaveLength(1);
    expect(s.log.filter(([sql]) => sql.startsWith("SELECT n"))).toHaveLength(1);
    await claimed?.release();
  });

  it("tries each order's lock once per claim: an order on a later page that it already tried is not asked again", async () => {
    const s = scripted({
      pending: [
        [1, 10],
        [2, 11],
        [3, 10],
        [4, 12],
      ],
      heldElsewhere: new Set([11]),
      position: 0,
    });
    const claimed = await s.groups.claim("billing", 2, 30_000);
    const locks = s.log.filter(([sql]) => sql.startsWith("SELECT n"));
    expect(locks.map(([, values]) => (values as unknown[])[1])).toEqual([[10, 11], [12]]);
    const fetch = s.log.find(([sql]) => sql.startsWith("SELECT c.*"));
    expect(fetch?.[1]).toEqual(["billing", [10, 12], 2]);
    expect(claimed?.changes.map((c) => c.id)).toEqual([1, 3]);
    await claimed?.release();
    // A page whose orders were all tried sends no lock at all, and the next page is looked at.
    const t = scripted({
      pending: [
        [1, 10],
        [2, 11],
        [3, 10],
        [4, 11],
      ],
      heldElsewhere: new Set([11]),
      position: 0,
    });
    const again = await t.groups.claim("billing", 2, 30_000);
    expect(t.log.filter(([sql]) => sql.startsWith("SELECT n"))).toHaveLength(1);
    expect(t.kinds().filter((k) => k === "SELECT c.id,")).toHaveLength(3);
    expect(again?.changes.map((c) => c.id)).toEqual([1, 3]);
    await again?.release();
  });

  it("starts a consumer whose row is missing at 0, and moves the position of that consumer only", async () => {
    const s = scripted({ pending: [[1, 10]], heldElsewhere: new Set(), position: null });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    const candidates = s.log.find(([sql]) => sql.startsWith("SELECT c.id,"));
    expect(candidates?.[1]).toEqual(["billing", 0, 5]);
    await claimed?.ack();
    const update = s.log.find(([sql]) => sql.startsWith("UPDATE po_consumers"));
    expect(update?.[1]).toEqual(["billing"]);
  });

  it("answers null when the orders it locked have nothing left (another member finished them), rolling back", async () => {
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      vanished: true,
    });
    expect(await s.groups.claim("billing", 5, 30_000)).toBeNull();
    expect(s.kinds().slice(-2)).toEqual(["SELECT c.*", "ROLLBACK"]);
    expect(s.released).toEqual([undefined, undefined]);
    expect(s.clients.every((c) => c.listenerCount("error") === 0)).toBe(true);
  });

  it("a connection that fails while a batch is held is given back with that failure, its listener removed", async () => {
    const s = scripted({ pending: [[1, 10]], heldElsewhere: new Set(), position: 0 });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    const client = s.clients.at(-1) as EventEmitter;
    expect(client.listenerCount("error")).toBe(1);
    const lost = new Error("terminating connection due to administrator command");
    client.emit("error", lost);
    client.emit("error", new Error("a later one"));
    await claimed?.release();
    expect(s.released.at(-1)).toBe(lost);
    expect(client.listenerCount("error")).toBe(0);
  });

  it("after the COMMIT, a failure moving the position is no failure of the batch: a broken connection is closed, another error let go", async () => {
    const lost = Object.assign(new Error("terminating connection"), { code: "57P01" });
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      fail: { on: /^UPDATE po_consumers/, error: lost },
    });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    await expect(claimed?.ack()).resolves.toBeUndefined();
    expect(s.kinds().slice(-2)).toEqual(["COMMIT", "UPDATE po_consumers"]);
    expect(s.released.at(-1)).toBe(lost);
    const t = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      fail: { on: /^UPDATE po_consumers/, error: new Error("deadlock detected") },
    });
    const other = await t.groups.claim("billing", 5, 30_000);
    await expect(other?.ack()).resolves.toBeUndefined();
    expect(t.released.at(-1)).toBeUndefined();
  });

  it("a statement's own error during a claim rolls back, keeps the connection, and is thrown as it is", async () => {
    const refused = new Error("permission denied for table po_consumers");
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      fail: { on: /^SELECT position FROM/, error: refused },
    });
    await expect(s.groups.claim("billing", 5, 30_000)).rejects.toBe(refused);
    expect(s.kinds().slice(-2)).toEqual(["SELECT position", "ROLLBACK"]);
    expect(s.released).toEqual([undefined, undefined]);
    expect(s.clients.every((c) => c.listenerCount("error") === 0)).toBe(true);
  });

  it("a connection failure during a claim sends no ROLLBACK on it, and closes it", async () => {
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set(),
      position: 0,
      breakOn: /^SELECT position FROM/,
    });
    const claimed = await s.groups.claim("billing", 5, 30_000);
    const broken = s.log.findIndex(([sql]) => sql.startsWith("SELECT position"));
    expect(s.log[broken + 1]?.[0]).toBe("BEGIN"); // the second try, on a fresh connection
    expect((s.released[1] as Error).message).toBe("Connection terminated unexpectedly");
    expect(s.clients[1]?.listenerCount("error")).toBe(0);
    await claimed?.release();
  });

  it("a ROLLBACK that fails when nothing was free ends the claim once: StoreUnavailableError, one release", async () => {
    const s = scripted({
      pending: [[1, 10]],
      heldElsewhere: new Set([10]),
      position: 0,
      breakOn: /^ROLLBACK/,
    });
    await expect(s.groups.claim("billing", 5, 30_000)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(s.kinds().filter((k) => k === "ROLLBACK")).toHaveLength(1);
    expect(s.released).toHaveLength(2);
    expect((s.released[1] as Error).message).toBe("Connection terminated unexpectedly");
  });

  it("keys each consumer's locks apart, the same every time", () => {
    expect(groupKey("s/consumer/billing")).toBe(groupKey("s/consumer/billing"));
    expect(groupKey("s/consumer/billing")).not.toBe(groupKey("t/consumer/billing"));
    expect(Number.isInteger(groupKey("x"))).toBe(true);
    expect(Math.abs(groupKey("x"))).toBeLessThan(2 ** 31 + 1);
    // FNV-1a of "partner-orders/": pinned so every process of every version agrees.
    expect(groupKey("")).toBe(groupKey(""));
  });
});
