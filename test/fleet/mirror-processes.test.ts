import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { PartnerOrders } from "partner-orders";
import { OrderMirror, postgresStore } from "partner-orders/sync";
import { createSandbox, createWorld, type Listener, type Sandbox } from "partner-orders/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missedOrRepeated, reported } from "../support/chaos.js";
import { postgresAvailable, type TestDatabase, usePostgres } from "../support/postgres.js";
import { listed, truth } from "../sync/support.js";

/**
 * Three real processes run one mirror on one PostgreSQL server against the sandbox over loopback
 * HTTP (issue: many processes, one mirror). The first is killed with SIGKILL in the middle of a
 * sweep and started again; the world goes on changing under the fleet the whole time.
 */
const available = postgresAvailable();
const script = fileURLToPath(new URL("./mirror-worker.ts", import.meta.url));
const OPEN_MS = 2_000;
const LEASE_MS = 3_000;

interface Line {
  worker: string;
  at?: number;
  path?: string;
  search?: string;
  done?: boolean;
  warn?: unknown;
  error?: unknown;
}

describe.runIf(available)("a fleet of mirror processes on one PostgreSQL", () => {
  const postgres = usePostgres();
  let database: TestDatabase;
  let sandbox: Sandbox;
  let listener: Listener;
  const children: ChildProcess[] = [];
  const lines: Line[] = [];

  beforeAll(async () => {
    database = await postgres.createDatabase();
    sandbox = createSandbox({ seed: 3 });
    listener = await sandbox.listen();
  });
  // Runs before the harness drops the database and stops the server.
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await sandbox?.close();
  });

  function start(worker: string): ChildProcess {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      env: {
        ...process.env,
        WORKER: worker,
        BASE_URL: listener.url,
        CLIENT_ID: sandbox.credentials.clientId,
        CLIENT_SECRET: sandbox.credentials.clientSecret,
        DATABASE_URL: database.url,
        SWEEP_MS: String(3 * OPEN_MS),
        OPEN_MS: String(OPEN_MS),
        LEASE_MS: String(LEASE_MS),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let rest = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = rest + chunk.toString();
      const complete = text.split("\n");
      rest = complete.pop() ?? "";
      for (const line of complete) if (line) lines.push(JSON.parse(line) as Line);
    });
    children.push(child);
    return child;
  }

  function stop(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.kill("SIGTERM");
    });
  }

  /** Polls `check` until it holds (progress of other processes, not a fixed sleep). */
  async function until(check: () => Promise<boolean> | boolean, what: string, ms = 60_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function query<T>(sql: string): Promise<T[]> {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      return (await db.query(sql)).rows as T[];
    } finally {
      await db.end();
    }
  }

  it("sweeps once at a time, takes over a killed sweep, and records every change exactly once", async () => {
    const world = createWorld(sandbox, { seed: 7 });
    await world.place(300);
    const client = new PartnerOrders({ baseUrl: listener.url, ...sandbox.credentials });

    // The first process alone, killed once its sweep has stored a page and moved on to the next.
    const first = start("a");
    await until(async () => {
      const rows = await query<{ value: string | null }>(
        "SELECT value FROM po_checkpoints WHERE name = 'sweep:cursor:all'",
      ).catch(() => []);
      return Boolean(rows[0]?.value);
    }, "the first page of the first sweep");
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const killedAt = sandbox.requests.length;

    // Three processes now, the killed one started again.
    const fleet = [start("a2"), start("b"), start("c")];
    await until(
      () => sandbox.requests.slice(killedAt).some((r) => r.path === "/v1/orders"),
      "the sweep taken over",
    );
    const resumed = sandbox.requests.slice(killedAt).find((r) => r.path === "/v1/orders");
    expect(resumed?.search).toContain("cursor=");
    await until(async () => {
      const rows = await query<{ value: string | null }>(
        "SELECT value FROM po_checkpoints WHERE name = 'sweep:last'",
      );
      return Boolean(rows[0]?.value);
    }, "the first sweep to finish");

    // The world changes under the fleet, a few changes each time the fleet has made progress.
    for (let round = 0; round < 10; round++) {
      const mark = sandbox.requests.length;
      await world.step(6);
      await until(() => sandbox.requests.length > mark + 50, "the fleet's next reads");
    }

    // Converged: every order the service lists is stored exactly as served.
    const reader = new OrderMirror({ client, store: postgresStore(database.url) });
    const numbers = await listed(client);
    const differing = async () => {
      const wrong: number[] = [];
      for (const n of numbers) {
        const served = await truth(client, n);
        // The partnerOrderId a webhook taught the mirror is the mirror's own knowledge, not a
        // field the service serves on the order.
        const { partnerOrderId: _learnt, ...mirrored } = (await reader.get(n)) ?? {};
        // Key-order blind: jsonb keeps an object's keys in an order of its own.
        if (!isDeepStrictEqual(mirrored, { ...served, unresolvable: false })) wrong.push(n);
      }
      return wrong;
    };
    await until(async () => (await differing()).length === 0, "the fleet to converge", 90_000);
    for (const n of world.history.hidden) expect((await reader.get(n))?.unresolvable).toBe(true);

    // Quiet: open orders are polled by one process per interval, not once by each process.
    const quietFrom = Date.now();
    await until(() => Date.now() > quietFrom + 3 * OPEN_MS, "three quiet intervals", 30_000);
    const quietTo = Date.now();
    const reads = new Map<string, number[]>();
    for (const line of lines) {
      // A read's first page (later pages of the same read carry a cursor).
      if (!line.path?.endsWith("/shipments") || line.search?.includes("cursor=")) continue;
      if ((line.at as number) < quietFrom) continue;
      if ((line.at as number) > quietTo) continue;
      reads.set(line.path, [...(reads.get(line.path) ?? []), line.at as number]);
    }
    expect(reads.size).toBeGreaterThan(50);
    const workers = new Set<string>();
    for (const line of lines)
      if (line.path && (line.at as number) >= quietFrom) workers.add(line.worker);
    expect(workers.size).toBeGreaterThan(1);
    for (const [path, times] of reads) {
      times.sort((x, y) => x - y);
      for (let i = 1; i < times.length; i++) {
        expect(
          (times[i] as number) - (times[i - 1] as number),
          `${path} read twice in one interval`,
        ).toBeGreaterThan(OPEN_MS / 2);
      }
    }

    for (const child of fleet) expect(await stop(child)).toBe(0);
    await reader.close();

    // Every change of the world recorded once, nothing invented, each order added once.
    const outbox = await query<{ id: number; type: string; order_number: number; payload: string }>(
      "SELECT id::int, type, order_number::int, payload FROM po_changes ORDER BY id",
    );
    expect(
      missedOrRepeated({ outbox, history: world.history } as Parameters<
        typeof missedOrRepeated
      >[0]),
    ).toEqual([]);
    const added = reported(outbox).added;
    const everListed = new Set([...numbers, ...world.history.hidden].map(String));
    expect([...added.keys()].sort()).toEqual([...everListed].sort());
    expect([...added.values()].every((count) => count === 1)).toBe(true);
    expect(lines.filter((line) => line.error)).toEqual([]);
  }, 180_000);
});
