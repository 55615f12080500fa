/**
 * A member of a consumer group on PostgreSQL, for the consumer-group tests and the bench: an
 * OrderMirror (its client never called) reading DATABASE_URL as consumer CONSUMER.
 *
 * MODE=changes: `for await` over `changes({ consumer })`, printing { change: [id, order], at } per
 * change. MODE=consume: `consume()` with batches of BATCH whose handler inserts the batch into the
 * table partner_effects (change_id, order_number, member) through `tx`, then prints
 * { batch: [[id, order]...], at } and waits DELAY_MS (real time: a call to the partner's system,
 * and a window in which a SIGKILL lands inside the handler). MODE=poll: no consumer, new changes
 * read as the feed read them before LISTEN, looking again every second. `at` is Date.now().
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
      // One statement for the batch, in id order, so the table's seq keeps each order's order.
      await tx.query(
        "INSERT INTO partner_effects (change_id, order_number, member) SELECT id, n, $3 FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n)",
        [changes.map((c) => c.id), changes.map((c) => c.orderNumber), process.pid],
      );
      print({ batch: changes.map((c) => [c.id, c.orderNumber]), at: Date.now() });
      printed += changes.length;
      await stallIfDue();
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    },
  });
} else if (env.MODE === "poll") {
  // The feed as it was before LISTEN: a read of the changes after the last one, and when there
  // are none, a look again a second later (for the bench's comparison).
  const store = postgresStore(env.DATABASE_URL as string);
  await store.open();
  let after = await store.lastChangeId();
  while (!abort.signal.aborted) {
    const changes = await store.changesAfter(after, 100);
    if (changes.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      continue;
    }
    print({ batch: changes.map((c) => [c.id, c.orderNumber]), at: Date.now() });
    after = changes[changes.length - 1]?.id ?? after;
  }
  await store.close();
} else {
  for await (const change of mirror.changes({ consumer, signal: abort.signal })) {
    print({ change: [change.id, change.orderNumber], at: Date.now() });
    printed++;
    await stallIfDue();
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}
await mirror.close();
clearInterval(alive);
print({ closed: true });
