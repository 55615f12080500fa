/**
 * A process recording orders in a PostgreSQL mirror store while the test breaks its connections.
 * Prints { ready } once the store is open, then one line per commit: { order, changes } when it
 * resolved, { order, error, code } when it threw. With ORDERS it records orders 1..ORDERS,
 * CONCURRENCY at a time, prints { done } and exits; without, it records new orders one after the
 * other until SIGTERM, pausing briefly after a failure as the mirror backs off, then closes and
 * prints { closed }. An unhandled error ends the process with a non-zero code: the test reads that.
 */
import { decide } from "../../src/sync/diff";
import { postgresStore } from "../../src/sync/index";
import { observation } from "../sync/stores/support";

const env = process.env;
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const store = postgresStore(env.DATABASE_URL as string);
await store.open();
print({ ready: true });

async function one(n: number): Promise<boolean> {
  const seen = observation(n);
  try {
    const changes = await store.commit(n, (current) => decide(current, seen));
    print({ order: n, changes: changes.length });
    return true;
  } catch (error) {
    const e = error as { name?: string; code?: string; message?: string };
    print({ order: n, error: e.name, code: e.code, message: e.message });
    return false;
  }
}

if (env.ORDERS) {
  const orders = Number(env.ORDERS);
  let next = 1;
  const worker = async () => {
    while (next <= orders) await one(next++);
  };
  await Promise.all(Array.from({ length: Number(env.CONCURRENCY ?? 4) }, worker));
  print({ done: true });
  await store.close();
} else {
  let stopping = false;
  process.on("SIGTERM", () => {
    stopping = true;
  });
  for (let n = 1; !stopping; n++) {
    if (!(await one(n))) await new Promise((resolve) => setTimeout(resolve, 50));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await store.close();
  print({ closed: true });
}
