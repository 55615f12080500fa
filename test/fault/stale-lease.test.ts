import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { PartnerOrders } from "partner-orders";
import { OrderMirror, sqliteStore } from "partner-orders/sync";
import { createSandbox } from "partner-orders/testing";
import { expect, it } from "vitest";
import { quiet } from "../support/logger.js";

/**
 * A mirror process SIGKILLed mid-sweep leaves its sweep lease and its claim on the SQLite file
 * behind. The next process must see they belong to a dead process and sweep at once, instead of
 * reporting a pass it did not make (or waiting out the lease).
 */
it("after a SIGKILL mid-sweep, the next process sweeps at once, from where the dead one was", async () => {
  const sandbox = createSandbox({ seed: 5 });
  const { url, close } = await sandbox.listen();
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-lease-"));
  const path = join(dir, "orders.db");
  try {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./sweep-worker.ts", import.meta.url))],
      {
        env: {
          ...process.env,
          BASE_URL: url,
          CLIENT_ID: sandbox.credentials.clientId,
          CLIENT_SECRET: sandbox.credentials.clientSecret,
          DB_PATH: path,
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    expect(JSON.parse(String((await lines.next()).value))).toMatchObject({ stuck: true });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;

    const before = sandbox.requests.length;
    const mirror = new OrderMirror({
      client: new PartnerOrders({ baseUrl: url, ...sandbox.credentials }),
      store: sqliteStore(path),
      logger: quiet,
    });
    // The default lease is a minute: a sweep now means the dead holder was recognised, not waited out.
    const report = await mirror.sync();
    expect(report.ordersSeen).toBeGreaterThan(0);
    const lists = sandbox.requests.slice(before).filter((r) => r.path === "/v1/orders");
    // It resumed from the dead process's checkpoint: the second page, not the first.
    expect(lists[0]?.search).toContain("cursor=");
    expect((await mirror.status()).lastSweep).toMatchObject({ ok: true });
    await mirror.close();
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
