/**
 * The store bench's server: the sandbox's real HTTP server on loopback with ORDERS orders of two
 * lines each (list, items, shipments and all), run in its own process so the client's CPU and
 * memory are measured without the server's. Prints one JSON line `{"url": ...}` once it listens
 * and exits when stdin closes or on SIGTERM.
 */
import { createSandbox } from "../src/testing";

const ORDERS = Number(process.env.ORDERS ?? 20_000);
const sandbox = createSandbox({ seed: 1 });
// The seed holds 320 orders of its own (as bench/sync.ts's throughput phase counts them).
for (let i = 0; i < ORDERS - 320; i++) sandbox.admin.placeOrder({ lines: 2 });
const listener = await sandbox.listen();
process.stdout.write(`${JSON.stringify({ url: listener.url })}\n`);

const shutdown = async () => {
  await sandbox.close();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.stdin.on("end", shutdown);
process.stdin.on("close", shutdown);
process.stdin.resume();
