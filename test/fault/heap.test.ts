import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createSandbox } from "partner-orders/testing";
import { expect, it } from "vitest";

/**
 * The mirror's heap stays flat however many orders it reads: a process syncs 1,000 orders, then
 * 19,000 more, and its live heap after garbage collection barely moves. (A read map that was never
 * emptied once kept about 1.5 KB per order read: 27 MB here.) The service runs in this process, so
 * the worker's heap holds only the mirror and its client. `npm run bench:sync` measures the same at
 * 20,000 and 100,000 orders.
 */
it("a 20,000-order sync leaves the mirror's heap where 1,000 left it", async () => {
  const sandbox = createSandbox({ seed: 3 });
  const placeOrders = (n: number) => {
    for (let i = 0; i < n; i++) sandbox.admin.placeOrder({ lines: 1 });
  };
  const { url, close } = await sandbox.listen();
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-heap-"));
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--import", "tsx", fileURLToPath(new URL("./heap-worker.ts", import.meta.url))],
    {
      env: {
        ...process.env,
        BASE_URL: url,
        ...{
          CLIENT_ID: sandbox.credentials.clientId,
          CLIENT_SECRET: sandbox.credentials.clientSecret,
        },
        DB_PATH: join(dir, "orders.db"),
      },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const pass = async () => {
    child.stdin.write("sync\n");
    const next = await lines.next();
    return JSON.parse(String(next.value)) as { ordersAdded: number; heapUsed: number };
  };
  try {
    placeOrders(1_000);
    const small = await pass();
    placeOrders(19_000);
    const large = await pass();
    expect(large.ordersAdded).toBe(19_000);
    const grownMb = (large.heapUsed - small.heapUsed) / 2 ** 20;
    // Flat: well under the 27 MB a per-order leak of 1.5 KB would add.
    expect(grownMb, `${small.heapUsed} -> ${large.heapUsed}`).toBeLessThan(3);
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 600_000);
