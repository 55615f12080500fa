import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type MirrorStore, postgresStore, StoreUnavailableError } from "partner-orders/sync";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresAvailable, type TestDatabase, usePostgres } from "../support/postgres.js";
import { record } from "../sync/stores/support.js";
import { startCommitCutter } from "./tcp-proxy.js";

/**
 * PostgreSQL connections failing under the store for real: backends terminated again and again
 * while a process commits, the server restarted under it, and a COMMIT whose answer is lost on the
 * wire. The process must live on, each commit land once or throw StoreUnavailableError, and no
 * change be recorded twice.
 */
const available = postgresAvailable();
const script = fileURLToPath(new URL("./postgres-store-worker.ts", import.meta.url));

interface Line {
  ready?: boolean;
  done?: boolean;
  closed?: boolean;
  order?: number;
  changes?: number;
  error?: string;
  code?: string;
  message?: string;
}

describe.runIf(available)("the PostgreSQL store when its connections fail", () => {
  const postgres = usePostgres();
  let database: TestDatabase;
  const children: ChildProcess[] = [];
  const stores: MirrorStore[] = [];
  // Runs before the harness drops the test's database.
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
    for (const store of stores.splice(0)) await store.close();
  });

  function startWorker(env: Record<string, string>) {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, DATABASE_URL: database.url, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const lines: Line[] = [];
    let stderr = "";
    let rest = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = rest + chunk.toString();
      const complete = text.split("\n");
      rest = complete.pop() ?? "";
      for (const line of complete) if (line) lines.push(JSON.parse(line) as Line);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { child, lines, exited, stderr: () => stderr };
  }

  /** Polls until `check` holds: another process's progress, not a timing. */
  async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async function query<T>(text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Changes recorded more than once: the same order, type and payload. */
  function duplicates() {
    return query(
      "SELECT order_number, type, count(*)::int AS n FROM po_changes GROUP BY order_number, type, payload HAVING count(*) > 1",
    );
  }

  /** Checks each commit's outcome against what the database holds. */
  async function checkOutcomes(lines: Line[]) {
    const stored = new Map(
      (
        await query<{ order_number: string; n: number }>(
          "SELECT order_number, count(*)::int AS n FROM po_changes GROUP BY order_number",
        )
      ).map((r) => [Number(r.order_number), r.n]),
    );
    const outcomes = lines.filter((l) => l.order !== undefined);
    for (const line of outcomes) {
      if (line.error !== undefined) {
        // Only a connection failure may surface, typed; the commit landed or not, never twice.
        expect(line).toMatchObject({ error: "StoreUnavailableError", code: "store_unavailable" });
        expect(stored.get(line.order as number) ?? 0).toBeLessThanOrEqual(1);
      } else {
        // Resolved: it landed once, its change returned now or, when a lost answer made it run
        // again, by the run that landed.
        expect(stored.get(line.order as number)).toBe(1);
        expect(line.changes).toBeLessThanOrEqual(1);
      }
    }
    return outcomes;
  }

  it("backends terminated again and again while a process commits: it lives, each commit lands once or throws StoreUnavailableError", async () => {
    database = await postgres.createDatabase();
    const worker = startWorker({ ORDERS: "200", CONCURRENCY: "4" });
    await until(() => worker.lines.some((l) => l.ready), "the worker's store to open");
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    let terminated = 0;
    while (!worker.lines.some((l) => l.done) && worker.child.exitCode === null) {
      const { rows } = await admin.query(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
      );
      terminated += (rows[0] as { n: number }).n;
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 50));
    }
    await admin.end();
    expect(await worker.exited, worker.stderr()).toBe(0);
    expect(worker.stderr()).not.toMatch(/Unhandled|Connection terminated/);
    expect(terminated).toBeGreaterThan(10);

    const outcomes = await checkOutcomes(worker.lines);
    expect(outcomes.length).toBe(200);
    expect(outcomes.filter((l) => l.error === undefined).length).toBeGreaterThan(0);
    // The ones that failed are recorded once when tried again, like the mirror's next round.
    const store = postgresStore(database.url);
    stores.push(store);
    await store.open();
    for (const line of outcomes.filter((l) => l.error !== undefined))
      await record(store, line.order as number);
    const counts = await query<{ n: number }>(
      "SELECT count(*)::int AS n FROM po_changes GROUP BY order_number",
    );
    expect(counts.length).toBe(200);
    expect(counts.every((c) => c.n === 1)).toBe(true);
    expect(await duplicates()).toEqual([]);
  }, 60_000);

  it("a server restart under a working process: StoreUnavailableError while it is down, the same store works again once it is up", async () => {
    database = await postgres.createDatabase();
    const worker = startWorker({});
    const ok = () => worker.lines.filter((l) => l.changes !== undefined).length;
    await until(() => ok() >= 20, "commits before the restart");
    await postgres.server.restart(() =>
      until(
        () => worker.lines.some((l) => l.code === "store_unavailable"),
        "a commit to meet the stopped server",
      ),
    );
    const before = ok();
    await until(() => ok() >= before + 20, "commits after the restart");
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.stderr()).toBe(0);
    expect(worker.lines.some((l) => l.closed)).toBe(true);
    expect(worker.stderr()).not.toMatch(/Unhandled|Connection terminated/);

    const failed = worker.lines.filter((l) => l.error !== undefined);
    expect(failed.length).toBeGreaterThan(0);
    for (const line of failed) expect((line.message as string).length).toBeGreaterThan(0);
    await checkOutcomes(worker.lines);
    expect(await duplicates()).toEqual([]);
  }, 60_000);

  it("a COMMIT that landed but whose answer was lost runs again whole and records nothing twice", async () => {
    database = await postgres.createDatabase();
    const url = new URL(database.url);
    const cutter = await startCommitCutter({ host: url.hostname, port: Number(url.port) });
    try {
      url.port = String(cutter.port);
      const store = postgresStore(url.toString());
      stores.push(store);
      await store.open();

      cutter.loseNextCommitAnswer();
      const changes = await record(store, 100001);
      expect(cutter.lost).toBe(1);
      // The first run landed; the second read its row and found nothing new to record.
      expect(changes).toEqual([]);
      const rows = await query<{ type: string }>(
        "SELECT type FROM po_changes WHERE order_number = 100001",
      );
      expect(rows).toEqual([{ type: "order.added" }]);

      // A later change of the order, its answer lost too: recorded once.
      cutter.loseNextCommitAnswer();
      await store.commit(100001, (current) => {
        const next = { ...(current as NonNullable<typeof current>) };
        next.order = { ...next.order, status: "Shipped" };
        const fields = ["status"];
        return {
          next,
          // Compares with what it read, as the mirror's decide does.
          changes:
            current?.order.status === "Shipped"
              ? []
              : [
                  {
                    type: "order.changed",
                    orderNumber: 100001,
                    siteId: 12,
                    observedAt: "2026-01-01T00:01:00.000Z",
                    cause: "poll",
                    order: next.order,
                    fields,
                    previous: { status: current?.order.status },
                  } as never,
                ],
        };
      });
      expect(cutter.lost).toBe(2);
      expect(await duplicates()).toEqual([]);
      expect(
        (await query<{ type: string }>("SELECT type FROM po_changes ORDER BY id")).map(
          (r) => r.type,
        ),
      ).toEqual(["order.added", "order.changed"]);
    } finally {
      await cutter.close();
    }
  });

  it("a connection that fails twice gives StoreUnavailableError naming the store without its password", async () => {
    database = await postgres.createDatabase();
    const url = new URL(database.url);
    const cutter = await startCommitCutter({ host: url.hostname, port: Number(url.port) });
    url.port = String(cutter.port);
    url.password = "hunter2-secret";
    const store = postgresStore(url.toString());
    stores.push(store);
    await store.open();
    await cutter.close(); // the proxy is gone: every connection through it is refused
    const error = await store.get(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`127.0.0.1:${cutter.port}/${database.name}`);
    expect((error as Error).message).not.toContain("hunter2");
    expect((error as Error).message).toContain("ECONNREFUSED");
  });
});
