import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, FIXTURES, type Listener, type Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, killAll, cli as run, STACK_FRAME, start } from "./support";

/** `sync` and `status` as a shell runs them: the built CLI, the sandbox, real SQLite files. */
let sandbox: Sandbox;
let listener: Listener;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  sandbox = createSandbox();
  listener = await sandbox.listen();
  dir = mkdtempSync(join(tmpdir(), "partner-orders-cli-sync-"));
});
afterAll(async () => {
  killAll();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const credentials = () => ({
  PARTNER_ORDERS_BASE_URL: listener.url,
  PARTNER_ORDERS_CLIENT_ID: sandbox.credentials.clientId,
  PARTNER_ORDERS_CLIENT_SECRET: sandbox.credentials.clientSecret,
});
const noCredentials = {
  PARTNER_ORDERS_BASE_URL: undefined,
  PARTNER_ORDERS_CLIENT_ID: undefined,
  PARTNER_ORDERS_CLIENT_SECRET: undefined,
};
const cli = (args: string[]) => run(args, credentials());
const jsonLines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** A loopback port nothing listens on (it was free a moment ago, and nobody is told of it). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("sync --once", () => {
  it("fills a SQLite file, prints each change as a JSON line and then the totals", async () => {
    const db = join(dir, "orders.db");
    const result = await cli(["sync", "--once", "--db", db, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    const summary = lines.pop();
    expect(summary).toMatchObject({ type: "sync.summary", passes: 1, invalidOrders: [] });
    // Every change the pass wrote was printed before the totals.
    expect(lines).toHaveLength(summary.changesWritten);
    expect(lines.filter((c) => c.type === "order.added")).toHaveLength(summary.ordersAdded);
    expect(summary.ordersAdded).toBeGreaterThan(100);
    const again = await cli(["sync", "--once", "--db", db]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^changesWritten: 0$/m);
    expect(again.stdout).toMatch(/^invalidOrders: 0$/m);
  }, 60_000);

  it("prints the mirror's warnings on stderr, one line each", async () => {
    const db = join(dir, "warnings.db");
    sandbox.faults.inject({
      method: "GET",
      path: "/v1/orders/{orderNumber}/items",
      status: 400,
      code: "invalid_order_number",
    });
    const result = await cli(["sync", "--once", "--db", db, "--site", String(FIXTURES.sites.main)]);
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.split("\n").filter((l) => l.startsWith("warning: "));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: reading order \d+ failed \(invalid_order_number\)/);
  }, 60_000);

  it("a database directory that does not exist: one line naming the path, no stack (exit 1)", async () => {
    const db = join(dir, "missing-dir", "x.db");
    const result = await cli(["sync", "--once", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    const [first, hint, ...more] = result.stderr.trimEnd().split("\n");
    expect(first).toBe(
      `error (store_open_failed): cannot open ${db}: the directory ${join(dir, "missing-dir")} does not exist`,
    );
    expect(hint).toMatch(/^hint: /);
    expect(more).toEqual([]);
  }, 30_000);

  it("a PostgreSQL server that cannot be reached: the error's line, never the driver's object or the password", async () => {
    const url = `postgres://mirror:pw-s3cret-xyz@127.0.0.1:${await closedPort()}/orders`;
    const result = await cli(["sync", "--once", "--postgres", url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error \([a-z_]+\): .*ECONNREFUSED/);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stderr).not.toMatch(/errno|syscall|\{$/m);
    expect(result.stderr).not.toContain("pw-s3cret-xyz");
    expect(result.stderr.trimEnd().split("\n").length).toBeLessThanOrEqual(2);
  }, 30_000);

  it("--db with --postgres, or a --site that is no number, is a usage error (exit 2)", async () => {
    const both = await cli(["sync", "--once", "--db", join(dir, "a.db"), "--postgres", "x"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give --db or --postgres, not both");
    const site = await cli(["sync", "--once", "--db", join(dir, "a.db"), "--site", "101,x"]);
    expect(site.code).toBe(2);
    expect(site.stderr).toContain('--site must be a whole number, not "x"');
  }, 30_000);
});

describe("sync --full --once", () => {
  it("re-reads every order, closed ones too: a shipment added without a webhook comes out with cause resync", async () => {
    const db = join(dir, "full.db");
    const n = sandbox.admin.placeOrder({ lines: 1 });
    sandbox.admin.setOrderStatus(n, "Delivered", { closed: true });
    expect((await cli(["sync", "--once", "--db", db])).code).toBe(0);
    sandbox.admin.addShipment(n); // no event; the list row does not move
    const plain = await cli(["sync", "--once", "--db", db, "--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(jsonLines(plain.stdout).filter((c) => c.orderNumber === n)).toEqual([]);
    const full = await cli(["sync", "--full", "--once", "--db", db, "--json"]);
    expect(full.code, full.stderr).toBe(0);
    const lines = jsonLines(full.stdout);
    const summary = lines.pop();
    expect(summary).toMatchObject({ type: "sync.summary", passes: 1 });
    expect(summary.ordersSeen).toBeGreaterThan(100);
    expect(lines).toHaveLength(summary.changesWritten);
    expect(lines.filter((c) => c.orderNumber === n)).toEqual([
      expect.objectContaining({ type: "shipment.added", cause: "resync" }),
    ]);
    const text = await cli(["sync", "--full", "--once", "--db", db]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^changesWritten: 0$/m);
  }, 120_000);
});

describe("sync (until stopped)", () => {
  it("says what it mirrors where, and stops on SIGTERM with exit 0", async () => {
    const db = join(dir, "run.db");
    const sync = start(["sync", "--db", db, "--site", "101,102"], credentials());
    await sync.waitFor("stdout", /\n/);
    expect(sync.stdout).toBe(
      `mirroring sites 101, 102 into ${db} (SQLite): a sweep every 15 min, open orders every 5 min; Ctrl-C stops after the current write\n`,
    );
    sync.proc.kill("SIGTERM");
    const done = await sync.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(
      /^stopped after [\d,]+ pass(es)?: [\d,]+ changes?, [\d,]+ requests? in /m,
    );
    expect(done.stderr).toBe("");
  }, 60_000);

  it("with --json: changes on stdout, the start line on stderr, the totals as the last line", async () => {
    const db = join(dir, "run-json.db");
    const sync = start(["sync", "--db", db, "--json"], credentials());
    await sync.waitFor("stderr", /^mirroring every granted site into /);
    // The sweep is under way once changes come out.
    await sync.waitFor("stdout", /"type":"order\.added"/);
    sync.proc.kill("SIGTERM");
    const done = await sync.done;
    expect(done.code, done.stderr).toBe(0);
    const lines = jsonLines(done.stdout);
    expect(lines.at(-1)).toMatchObject({ type: "sync.summary" });
    expect(lines.slice(0, -1).every((c) => typeof c.id === "number")).toBe(true);
  }, 60_000);

  it("a store that cannot be opened ends it with the code and hint (exit 1)", async () => {
    const db = join(dir, "nowhere", "run.db");
    const result = await cli(["sync", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error \(store_open_failed\): cannot open .*nowhere/);
    expect(result.stderr).toMatch(/^hint: /m);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, 30_000);
});

describe("status", () => {
  it("needs no credential, and names a database file that does not exist (exit 1)", async () => {
    const db = join(dir, "never-synced.db");
    const result = await run(["status", "--db", db], noCredentials);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^error \\(store_not_found\\): ${db.replaceAll(".", "\\.")} does not exist`),
    );
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, 30_000);

  it("of a synced file, without credentials: the last sweep, open orders, the account; --json the object", async () => {
    const db = join(dir, "status.db");
    const synced = await cli(["sync", "--once", "--db", db]);
    expect(synced.code, synced.stderr).toBe(0);
    const text = await run(["status", "--db", db], noCredentials);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/last sweep:\s.*ok/);
    expect(text.stdout).toMatch(/open orders:\s+\d+/);
    const json = await run(["status", "--db", db, "--json"], noCredentials);
    expect(json.code, json.stderr).toBe(0);
    const status = JSON.parse(json.stdout);
    expect(status).toMatchObject({
      lastSweep: { ok: true },
      sweepHolder: null,
      account: { partnerId: FIXTURES.partnerId, baseUrl: listener.url.replace(/\/$/, "") },
    });
    expect(status.openOrders).toBeGreaterThan(0);
  }, 60_000);

  it("sync --once while another live process holds the sweep: says who and since when, exit 4", async () => {
    const db = join(dir, "held.db");
    expect((await cli(["sync", "--once", "--db", db])).code).toBe(0);
    // This test's own process holds the lease: alive, and not the CLI's.
    const { default: Database } = await import("better-sqlite3");
    const file = new Database(db);
    const holder = `${hostname()}/${process.pid}/held-by-the-test`;
    file
      .prepare(
        "INSERT OR REPLACE INTO po_leases (name, holder, since, expires_at) VALUES ('sweep', ?, ?, ?)",
      )
      .run(holder, Date.now(), Date.now() + 600_000);
    file.close();
    const result = await cli(["sync", "--once", "--db", db]);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain(`another process holds the sweep (${holder}`);
  }, 60_000);

  it("--db with --postgres is a usage error (exit 2)", async () => {
    const result = await run(["status", "--db", "x.db", "--postgres", "y"], noCredentials);
    expect(result.code).toBe(2);
  }, 30_000);
});

describe("consumers", () => {
  it("lists each consumer's position and lag, and resets one to now or the beginning, without credentials", async () => {
    const db = join(dir, "consumers.db");
    expect((await cli(["sync", "--once", "--db", db])).code).toBe(0);
    const { default: Database } = await import("better-sqlite3");
    const file = new Database(db);
    const last = (file.prepare("SELECT MAX(id) AS id FROM po_changes").get() as { id: number }).id;
    file.prepare("INSERT INTO po_consumers VALUES ('billing', 3), ('mailer', ?)").run(last);
    file.close();
    expect(last).toBeGreaterThan(3);

    const text = await run(["consumers", "--db", db], noCredentials);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^billing  at 3, ${(last - 3).toLocaleString("en-US")} changes behind \\(.+\\)$`,
        ),
      ),
      `mailer   at ${last}, caught up`,
    ]);
    const json = await run(["consumers", "--db", db, "--json"], noCredentials);
    expect(jsonLines(json.stdout)).toEqual([
      { name: "billing", position: 3, lagChanges: last - 3, lagMs: expect.any(Number) },
      { name: "mailer", position: last, lagChanges: 0, lagMs: 0 },
    ]);
    // status tells the same lag.
    const status = await run(["status", "--db", db], noCredentials);
    expect(status.stdout).toMatch(/consumers:\s+billing\s+at 3, /);

    const now = await run(
      ["consumers", "reset", "billing", "--to", "now", "--db", db],
      noCredentials,
    );
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout.trim()).toBe(`billing  at ${last}, caught up (was at 3)`);
    const back = await run(
      ["consumers", "reset", "billing", "--to", "beginning", "--db", db, "--json"],
      noCredentials,
    );
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({
      name: "billing",
      position: 0,
      lagChanges: last,
      previousPosition: last,
    });
  }, 60_000);

  it("refuses an unknown consumer (exit 1), a reset without --to now|beginning (exit 2), and a missing file", async () => {
    const db = join(dir, "consumers-refusals.db");
    expect((await cli(["sync", "--once", "--db", db])).code).toBe(0);
    const unknown = await run(
      ["consumers", "reset", "nobody", "--to", "now", "--db", db],
      noCredentials,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^error \(consumer_not_found\): no consumer named "nobody" in this store \(it has none\)/,
    );
    expect(unknown.stderr).not.toMatch(STACK_FRAME);
    const noTo = await run(["consumers", "reset", "billing", "--db", db], noCredentials);
    expect(noTo.code).toBe(2);
    expect(noTo.stderr).toContain("consumers reset needs --to now or --to beginning");
    const badTo = await run(
      ["consumers", "reset", "billing", "--to", "later", "--db", db],
      noCredentials,
    );
    expect(badTo.code).toBe(2);
    expect(badTo.stderr).toContain('not "later"');
    const noName = await run(["consumers", "reset", "--to", "now", "--db", db], noCredentials);
    expect(noName.code).toBe(2);
    const missing = await run(["consumers", "--db", join(dir, "none.db")], noCredentials);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error \(store_not_found\)/);
  }, 60_000);
});
