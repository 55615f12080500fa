import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  MIRROR_SCHEMA_VERSION,
  MirrorError,
  type MirrorStore,
  SchemaVersionError,
  StoreLockedError,
  sqliteStore,
} from "partner-orders/sync";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import { STREAM } from "../../../src/sync/stores/schema";
import { record, row, V1_SQLITE_SCHEMA, V2_SQLITE_SCHEMA, v2Rows } from "../stores/support.js";

/** The SQLite store's file: its schema version, migration, refusals and the one-writer claim. */
const dir = mkdtempSync(join(tmpdir(), "po-sqlite-"));
const file = (name = crypto.randomUUID()) => join(dir, `${name}.db`);
const stores: MirrorStore[] = [];
const holders: string[] = [];
function store(path: string): MirrorStore {
  const made = sqliteStore(path);
  stores.push(made);
  return made;
}
function holder(): string {
  const name = newHolder();
  holders.push(name);
  return name;
}
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const h of holders.splice(0)) retireHolder(h);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file as the first released version left it: its tables, an order, a change, a lease. */
function versionOneFile(): string {
  const path = file();
  const db = new Database(path);
  db.exec(V1_SQLITE_SCHEMA);
  db.prepare(
    "INSERT INTO po_orders VALUES (100001, 12, ?, '[]', '[]', 0, 0, 1767225600000, 3)",
  ).run(JSON.stringify({ orderNumber: 100001, siteId: 12, status: "Open", closed: false }));
  db.prepare(
    "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload) VALUES ('order.unresolvable', 100001, 12, '2026-01-01T00:00:00.000Z', 'sweep', '{}')",
  ).run();
  db.prepare("INSERT INTO po_checkpoints VALUES ('sweep:last', '3')").run();
  db.prepare("INSERT INTO po_consumers VALUES ('billing', 1)").run();
  db.prepare("INSERT INTO po_leases VALUES ('sweep', 'some-holder', 1767225660000)").run();
  db.close();
  return path;
}

describe("sqliteStore's schema", () => {
  it("migrates a version 1 file forward with its data, and records the version", async () => {
    const path = versionOneFile();
    const s = store(path);
    await s.open();
    expect(await s.info()).toEqual({ schemaVersion: MIRROR_SCHEMA_VERSION, account: null });
    expect(await s.get(100001)).toMatchObject({ orderNumber: 100001, seenInSweep: 3 });
    expect((await s.changesAfter(0, 10)).map((c) => c.type)).toEqual(["order.unresolvable"]);
    expect(await s.getCheckpoint("sweep:last")).toBe("3");
    // Its first sweep had ended: the snapshot is complete, its change is not part of it.
    expect((await s.changesAfter(0, 10)).map((c) => c.snapshot)).toEqual([false]);
    expect(await s.getCheckpoint(STREAM.snapshotComplete)).toBe("1");
    expect(await s.consumers()).toEqual([{ name: "billing", position: 1 }]);
    const lease = await s.leaseHolder("sweep");
    expect(lease).toMatchObject({ holder: "some-holder", expiresAt: 1767225660000 });
    // A lease from before leases recorded their start: the migration is the earliest known.
    expect(lease?.since).toBeGreaterThan(0);
    // What version 2 adds works on the migrated file.
    await s.claimWriter(holder());
    await s.claimAccount({ partnerId: "p_1", baseUrl: "https://x.example" });
    expect((await record(s, 100002)).map((c) => c.type)).toEqual(["order.added"]);
    await s.close();

    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(MIRROR_SCHEMA_VERSION);
    db.close();
    // Opened again: nothing left to migrate, the data still there.
    const again = store(path);
    await again.open();
    expect((await again.changesAfter(0, 10)).length).toBe(2);
  });

  it("migrates a version 2 file whose first sweep had ended: its changes are not the snapshot, nor what comes next", async () => {
    const path = file();
    const db = new Database(path);
    db.exec(V2_SQLITE_SCHEMA + v2Rows(true));
    db.close();
    const s = store(path);
    await s.open();
    expect(await s.info()).toEqual({ schemaVersion: 3, account: null });
    const old = await s.changesAfter(0, 10);
    expect(old.map((c) => [c.id, c.type, c.snapshot])).toEqual([
      [1, "order.added", false],
      [2, "order.changed", false],
    ]);
    expect(await s.getCheckpoint(STREAM.snapshotComplete)).toBe("2");
    expect(await s.consumers()).toEqual([{ name: "billing", position: 1 }]);
    await s.claimWriter(holder());
    const [next] = await record(s, 100002);
    expect(next).toMatchObject({ id: 3, snapshot: false });
    await s.close();
    const after = new Database(path, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(3);
    after.close();
  });

  it("migrates a version 2 file in the middle of its first sweep: what the sweep wrote so far is the snapshot", async () => {
    const path = file();
    const db = new Database(path);
    db.exec(V2_SQLITE_SCHEMA + v2Rows(false));
    db.close();
    const s = store(path);
    await s.open();
    expect((await s.changesAfter(0, 10)).map((c) => [c.cause, c.snapshot])).toEqual([
      ["sweep", true],
      ["webhook", false],
    ]);
    expect(await s.getCheckpoint(STREAM.snapshotComplete)).toBeNull();
    // The sweep goes on after the upgrade: still the snapshot.
    const [next] = await s.commit(100003, () => ({
      next: row(100003),
      changes: [
        {
          type: "order.added",
          orderNumber: 100003,
          siteId: 12,
          observedAt: "2026-01-01T00:02:00.000Z",
          cause: "sweep",
        } as never,
      ],
    }));
    expect(next).toMatchObject({ id: 3, snapshot: true });
  });

  it("a migration that fails part-way leaves the version 2 file as it was", async () => {
    const path = file();
    const db = new Database(path);
    db.exec(`${V2_SQLITE_SCHEMA + v2Rows(true)} DROP TABLE po_checkpoints;`);
    db.close();
    await expect(store(path).open()).rejects.toMatchObject({ code: "store_open_failed" });
    const after = new Database(path, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(2);
    // The column added before the failing statement went with the rest.
    const columns = (after.pragma("table_info(po_changes)") as { name: string }[]).map(
      (c) => c.name,
    );
    expect(columns).not.toContain("snapshot");
    after.close();
  });

  it("refuses a file of the next version (4), naming both", async () => {
    const path = file();
    await store(path).open();
    await stores[0]?.close();
    const db = new Database(path);
    db.pragma("user_version = 4");
    db.close();
    await expect(store(path).open()).rejects.toMatchObject({
      code: "schema_too_new",
      found: 4,
      supported: 3,
      message: expect.stringMatching(/version 4.*up to 3/),
    });
  });

  it("a new file starts at the current version", async () => {
    const path = file();
    await store(path).open();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(MIRROR_SCHEMA_VERSION);
    db.close();
  });

  it("refuses a file of a newer version, naming both versions and the file, and leaves it alone", async () => {
    const path = file();
    await store(path).open();
    await stores[0]?.close();
    const db = new Database(path);
    db.pragma("user_version = 99");
    db.close();
    const refused = await store(path)
      .open()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaVersionError);
    expect(refused).toMatchObject({
      code: "schema_too_new",
      found: 99,
      supported: MIRROR_SCHEMA_VERSION,
    });
    expect((refused as Error).message).toContain(path);
    expect((refused as Error).message).toMatch(
      new RegExp(`version 99.*up to ${MIRROR_SCHEMA_VERSION}`),
    );
    const after = new Database(path, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(99);
    after.close();
  });

  it("refuses a table whose column was renamed, naming the table and the column", async () => {
    const path = file();
    await store(path).open();
    await record(stores[0] as MirrorStore, 5);
    await stores[0]?.close();
    const db = new Database(path);
    db.exec("ALTER TABLE po_orders RENAME COLUMN data TO body");
    db.close();
    const refused = await store(path)
      .open()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MirrorError);
    expect(refused).toMatchObject({ code: "schema_mismatch" });
    expect((refused as Error).message).toContain("po_orders");
    expect((refused as Error).message).toContain("column data");
  });

  it("a version 1 file with a renamed column is migrated, then refused by the column check", async () => {
    const path = versionOneFile();
    const db = new Database(path);
    db.exec("ALTER TABLE po_changes RENAME COLUMN payload TO body");
    db.close();
    await expect(store(path).open()).rejects.toMatchObject({
      code: "schema_mismatch",
      message: expect.stringContaining("po_changes has no column payload"),
    });
  });

  it("a path whose directory does not exist, or a file that is not a database, gives a typed error naming the path", async () => {
    const missing = join(dir, "no-such-directory", "orders.db");
    const refused = await store(missing)
      .open()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MirrorError);
    expect(refused).toMatchObject({ code: "store_open_failed" });
    expect((refused as Error).message).toContain(missing);
    expect((refused as Error).message).toMatch(/directory/);

    const notADatabase = join(dir, "notes.txt");
    writeFileSync(
      notADatabase,
      "this is not a SQLite file, just some notes, long enough to look\n".repeat(20),
    );
    await expect(store(notADatabase).open()).rejects.toMatchObject({
      code: "store_open_failed",
      message: expect.stringContaining(notADatabase),
    });
  });
});

describe("sqliteStore's writer claim", () => {
  it("refuses a second live writer, naming the file and the process; readers need no claim", async () => {
    const path = file();
    const first = store(path);
    await first.open();
    const a = holder();
    await first.claimWriter(a);
    await first.claimWriter(a); // the holder's own claim again: fine
    await record(first, 1);

    const second = store(path);
    await second.open();
    const refused = await second.claimWriter(holder()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreLockedError);
    expect(refused).toMatchObject({
      code: "store_locked",
      path,
      holderPid: process.pid,
      holderHost: hostname(),
    });
    expect((refused as Error).message).toContain(path);
    expect((refused as Error).message).toContain(String(process.pid));
    // Reading, and storing a consumer's position, need no claim.
    expect((await second.get(1))?.orderNumber).toBe(1);
    expect((await second.changesAfter(0, 10)).length).toBe(1);
    await second.setPosition("billing", 1);
    expect(await first.getPosition("billing")).toBe(1);

    // Closing the writer gives the claim back.
    await first.close();
    const b = holder();
    await second.claimWriter(b);
    const third = store(path);
    await third.open();
    await expect(third.claimWriter(holder())).rejects.toBeInstanceOf(StoreLockedError);
  });

  it("a claim whose mirror closed without releasing it (retired holder) is taken over", async () => {
    const path = file();
    const first = store(path);
    await first.open();
    const a = holder();
    await first.claimWriter(a);
    // The mirror is gone (its store never closed, as after a crash): only its name is retired.
    retireHolder(a);
    const second = store(path);
    await second.open();
    await second.claimWriter(holder());
  });
});
