/**
 * A process writing a mirror's SQLite file, for the multi-process tests: claims the writer, prints
 * { claimed, pid }, records COMMITS orders (one change each) printing { committed } every 100 and
 * { done } at the end, then holds the claim until SIGTERM, closes and prints { closed }. Any error
 * is printed as { error, code, message } and ends the process with exit code 2.
 */
import { decide } from "../../src/sync/diff";
import { newHolder, retireHolder } from "../../src/sync/holder";
import { sqliteStore } from "../../src/sync/index";
import { observation } from "../sync/stores/support";

const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const store = sqliteStore(process.env.DB as string);
const holder = newHolder();
try {
  await store.open();
  await store.claimWriter(holder);
  print({ claimed: holder, pid: process.pid });
  const commits = Number(process.env.COMMITS ?? 0);
  for (let n = 1; n <= commits; n++) {
    const seen = observation(n);
    await store.commit(n, (current) => decide(current, seen));
    if (n % 100 === 0) print({ committed: n });
  }
  print({ done: commits });
} catch (error) {
  const e = error as { name?: string; code?: string; message?: string };
  print({ error: e.name, code: e.code, message: e.message });
  process.exit(2);
}
process.on("SIGTERM", async () => {
  await store.close();
  retireHolder(holder);
  print({ closed: true });
  process.exit(0);
});
// Holds the claim (and the process) until SIGTERM or SIGKILL.
setInterval(() => undefined, 60_000);
