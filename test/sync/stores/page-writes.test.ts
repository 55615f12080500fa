import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MirrorStore, postgresStore, sqliteStore } from "partner-orders/sync";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../../src/sync/diff";
import type { OrderCommit } from "../../../src/sync/types";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../../support/postgres.js";
import { observation, record, row } from "./support.js";

/**
 * A page's write (`commitPage`) on both stores: one transaction holding its orders, their changes,
 * its marks and its checkpoint, so a failure part-way leaves none of it; ids in commit order.
 */
const withPostgres = postgresAvailable();
let server: PostgresServer | undefined;
const databases: TestDatabase[] = [];
const dir = mkdtempSync(join(tmpdir(), "po-page-"));
const kinds = [
  { name: "sqlite", make: async () => sqliteStore(join(dir, `${crypto.randomUUID()}.db`)) },
  ...(withPostgres
    ? [
        {
          name: "postgres",
          async make() {
            const database = await (server as PostgresServer).createDatabase();
            databases.push(database);
            return postgresStore(database.url);
          },
        },
      ]
    : []),
];
const open: MirrorStore[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  for (const database of databases.splice(0)) await database.drop();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(async () => {
  if (withPostgres) server = await startPostgres();
}, 60_000);

const commitOf = (n: number, status = "Open"): OrderCommit => ({
  orderNumber: n,
  decide: (current) => decide(current, observation(n, status)),
});

describe.each(kinds)("a page written to the $name store", (kind) => {
  async function store(): Promise<MirrorStore> {
    const made = await kind.make();
    await made.open();
    open.push(made);
    return made;
  }

  it("writes its orders, their changes in commit order, its marks and its checkpoint together", async () => {
    const s = await store();
    await s.commit(7, () => ({ next: row(7), changes: [] }));
    await record(s, 5);
    const written = await s.commitPage({
      commits: [commitOf(3), commitOf(1), commitOf(5, "Shipped"), commitOf(2)],
      seen: { orderNumbers: [7], sweep: 4 },
      checkpoint: { name: "sweep:cursor:all", value: "c2" },
    });
    expect(written.map((changes) => changes.map((c) => [c.orderNumber, c.type]))).toEqual([
      [[3, "order.added"]],
      [[1, "order.added"]],
      [[5, "order.changed"]],
      [[2, "order.added"]],
    ]);
    const ids = written.flat().map((c) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(4);
    // What each commit was told is what the stream holds under that id.
    const stream = await s.changesAfter(ids[0] as number, 10);
    expect(stream.map((c) => [c.id, c.orderNumber])).toEqual(
      written
        .flat()
        .slice(1)
        .map((c) => [c.id, c.orderNumber]),
    );
    expect((await s.get(5))?.order.status).toBe("Shipped");
    expect((await s.get(7))?.seenInSweep).toBe(4);
    expect(await s.getCheckpoint("sweep:cursor:all")).toBe("c2");
  });

  it("a failure part-way leaves none of it: no order, no change, no mark, no checkpoint", async () => {
    const s = await store();
    await s.commit(7, () => ({ next: row(7), changes: [] }));
    await s.setCheckpoint("sweep:cursor:all", "c1");
    const before = await s.lastChangeId();
    const failing = s.commitPage({
      commits: [
        commitOf(1),
        commitOf(2),
        {
          orderNumber: 3,
          decide: () => {
            throw new Error("the process died here");
          },
        },
      ],
      seen: { orderNumbers: [7], sweep: 4 },
      checkpoint: { name: "sweep:cursor:all", value: "c2" },
    });
    await expect(failing).rejects.toThrow("the process died here");
    expect(await s.get(1)).toBeUndefined();
    expect(await s.get(2)).toBeUndefined();
    expect(await s.lastChangeId()).toBe(before);
    expect((await s.get(7))?.seenInSweep).toBe(0);
    expect(await s.getCheckpoint("sweep:cursor:all")).toBe("c1");
    // Written again whole, each change once, ids going on from where they were.
    const again = await s.commitPage({ commits: [commitOf(1), commitOf(2), commitOf(3)] });
    expect(again.flat().map((c) => c.orderNumber)).toEqual([1, 2, 3]);
    expect(await s.changesAfter(before, 10)).toHaveLength(3);
  });

  it("an order twice in one page is decided the second time against the first write", async () => {
    const s = await store();
    const written = await s.commitPage({ commits: [commitOf(1), commitOf(1, "Shipped")] });
    expect(written.map((changes) => changes.map((c) => c.type))).toEqual([
      ["order.added"],
      ["order.changed"],
    ]);
    expect((await s.get(1))?.order.status).toBe("Shipped");
  });
});
