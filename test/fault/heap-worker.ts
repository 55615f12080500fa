/**
 * A mirror process for the heap test: syncs a SQLite file against the sandbox over HTTP each time
 * a line arrives on stdin, then prints the live heap after garbage collection as a JSON line. Run
 * with --expose-gc.
 */
import { createInterface } from "node:readline";
import { PartnerOrders } from "../../src/client";
import { OrderMirror, sqliteStore } from "../../src/sync/index";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const env = process.env;
const mirror = new OrderMirror({
  client: new PartnerOrders({
    baseUrl: env.BASE_URL,
    clientId: env.CLIENT_ID,
    clientSecret: env.CLIENT_SECRET,
  }),
  store: sqliteStore(env.DB_PATH as string),
  concurrency: 8,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});

for await (const _ of createInterface({ input: process.stdin })) {
  const report = await mirror.sync();
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  process.stdout.write(
    `${JSON.stringify({ ordersAdded: report.ordersAdded, heapUsed: process.memoryUsage().heapUsed })}\n`,
  );
}
await mirror.close();
