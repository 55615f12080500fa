/**
 * A member of a consumer group on PostgreSQL, for the consumer-group tests and the bench: an
 * OrderMirror (its client never called) reading DATABASE_URL as consumer CONSUMER.
 *
 * MODE=changes: `for await` over `changes({ consumer })`, printing { change: [id, order] } per change.
 * MODE=consume: `consume()` with batches of BATCH whose handler inserts each change into the table
 * partner_effects (change_id, order_number, member) through `tx`, then prints { batch: [[id, order]...] }
 * and waits DELAY_MS (real time, to widen the window in which a SIGKILL lands inside the handler).
 *
 * With STALL_AT, once it has printed that many changes it prints { stalled: true } and hangs inside
 * its batch (a member that dies or freezes mid-batch, for the test to SIGKILL or SIGSTOP). SIGTERM
 * ends the loop: it closes the mirror and prints { closed: true }. Prints { ready: true } first.
 */
import { PartnerOrders } from "../../src/client";
import { OrderMirror, postgresStore } from "../../src/sync/index";

const env = process.env;
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const mirror = new OrderMirror({
  client: new PartnerOrders({
    baseUrl: "http://127.0.0.1:9",
    clientId: "unused",
    clientSecret: "unused",
  }),
  store: postgresStore(env.DATABASE_URL as string),
  consumerLeaseMs: Number(env.LEASE_MS ?? 30_000),
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
const consumer = env.CONSUMER ?? "billing";
const stallAt = env.STALL_AT ? Number(env.STALL_AT) : Number.POSITIVE_INFINITY;
const delayMs = Number(env.DELAY_MS ?? 0);
const abort = new AbortController();
process.on("SIGTERM", () => abort.abort());
// Keeps the process alive while it hangs on purpose.
const alive = setInterval(() => undefined, 60_000);
let printed = 0;
const stallIfDue = async () => {
  if (printed < stallAt) return;
  print({ stalled: true });
  await new Promise(() => undefined);
};

await mirror.status();
print({ ready: true, pid: process.pid });
if (env.MODE === "consume") {
  await mirror.consume({
    consumer,
    batchSize: Number(env.BATCH ?? 10),
    signal: abort.signal,
    handler: async (changes, tx) => {
      if (!tx.exactlyOnce) throw new Error("PostgreSQL must hand an exactly-once transaction");
      for (const change of changes) {
        await tx.query(
          "INSERT INTO partner_effects (change_id, order_number, member) VALUES ($1, $2, $3)",
          [change.id, change.orderNumber, process.pid],
        );
      }
      print({ batch: changes.map((c) => [c.id, c.orderNumber]) });
      printed += changes.length;
      await stallIfDue();
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    },
  });
} else {
  for await (const change of mirror.changes({ consumer, signal: abort.signal })) {
    print({ change: [change.id, change.orderNumber] });
    printed++;
    await stallIfDue();
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}
await mirror.close();
clearInterval(alive);
print({ closed: true });
