/**
 * The consumer-group phase of `npm run bench:sync` (alone: `SYNC_PHASES=groups npm run bench:sync`).
 * Member processes are test/fault/group-member-worker.ts on one PostgreSQL server:
 *
 * - throughput: GROUP_CHANGES changes (default 100,000) over 5,000 orders, consumed by 1 member,
 *   then by 3 members of one consumer name, one of them SIGKILLed halfway and replaced, GROUP_ROUNDS
 *   (2) rounds alternating, the fastest of each kept; each
 *   handler inserts its batch of 100 into the partner's table through `tx` and waits 20 ms (the
 *   partner's own call out). Checked: every change in the table exactly once, each order in id order.
 * - latency: a change committed in this process, handled by a member in another; wall time from
 *   the commit's return to the handler, with LISTEN/NOTIFY and with the feed as it was (a look
 *   every second).
 * - exactly once: a consumer SIGKILLed at random 20 times while it consumes; the partner's table
 *   afterwards holds each change once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { postgresStore } from "partner-orders/sync";
import pg from "pg";
import type { PostgresServer } from "../test/support/postgres";
import { record } from "../test/sync/stores/support";

const CHANGES = Number(process.env.GROUP_CHANGES ?? 100_000);
/** Rounds of the throughput comparison (GROUP_ROUNDS), the fastest run of each kept. */
const ROUNDS = Number(process.env.GROUP_ROUNDS ?? 2);
const ORDERS = 5_000;
const WORKER = fileURLToPath(new URL("../test/fault/group-member-worker.ts", import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: lines of JSON from a child
type Line = any;
interface Member {
  child: ChildProcess;
  lines: Line[];
  when(test: (line: Line) => boolean): Promise<Line>;
  exited: Promise<unknown>;
}

function member(url: string, env: Record<string, string>): Member {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
    env: { ...process.env, DATABASE_URL: url, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: Line[] = [];
  const waiters: { test: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    const line = JSON.parse(text);
    lines.push(line);
    for (const w of [...waiters])
      if (w.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    lines,
    exited,
    when: (test) => lines.find(test) ?? new Promise((resolve) => waiters.push({ test, resolve })),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(50);
}

/** A database with `count` changes (order i % ORDERS + 1) and the partner's table. */
async function prepared(postgres: PostgresServer, count: number) {
  const database = await postgres.createDatabase();
  const store = postgresStore(database.url);
  await store.open();
  await store.close();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(
    "CREATE TABLE partner_effects (seq BIGSERIAL PRIMARY KEY, change_id BIGINT NOT NULL, order_number BIGINT NOT NULL, member INT NOT NULL)",
  );
  /** Writes the changes in one transaction and tells the listeners. */
  const write = async () => {
    await admin.query(
      `INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload)
       SELECT 'order.unresolvable', (i % ${ORDERS}) + 1, 12, '2026-11-26T00:00:00.000Z', 'poll', '{}'
       FROM generate_series(0, $1::int - 1) AS i`,
      [count],
    );
    await admin.query("SELECT pg_notify('partner_orders_changes', '')");
  };
  const verdict = async () => {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS rows, count(DISTINCT change_id)::int AS distinct_ids,
         (SELECT count(*)::int FROM (
            SELECT change_id < lag(change_id) OVER (PARTITION BY order_number ORDER BY seq) AS back
            FROM partner_effects) x WHERE back) AS out_of_order
       FROM partner_effects`,
    );
    return rows[0] as { rows: number; distinct_ids: number; out_of_order: number };
  };
  const done = async (consumer: string) =>
    (await admin.query("SELECT position::int AS p FROM po_consumers WHERE name = $1", [consumer]))
      .rows[0]?.p === count;
  return {
    url: database.url,
    admin,
    write,
    verdict,
    done,
    async drop() {
      await admin.end();
      await database.drop();
    },
  };
}

async function throughput(postgres: PostgresServer, members: number, killHalfway: boolean) {
  const db = await prepared(postgres, CHANGES);
  const env = { MODE: "consume", CONSUMER: "billing", BATCH: "100", DELAY_MS: "20" };
  const running = Array.from({ length: members }, () => member(db.url, env));
  await Promise.all(running.map((m) => m.when((l) => l.ready)));
  await sleep(1_500); // every member listening
  await db.write();
  const started = Date.now();
  let killed = false;
  await until(async () => {
    if (killHalfway && !killed) {
      const { rows } = await db.admin.query("SELECT count(*)::int AS n FROM partner_effects");
      if (rows[0].n >= CHANGES / 2) {
        killed = true;
        running[0]?.child.kill("SIGKILL");
        running.push(member(db.url, env));
      }
    }
    return db.done("billing");
  });
  const seconds = (Date.now() - started) / 1000;
  for (const m of running) m.child.kill("SIGKILL");
  await Promise.all(running.map((m) => m.exited));
  const verdict = await db.verdict();
  await db.drop();
  return { seconds, perSecond: CHANGES / seconds, killed, ...verdict };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function latency(postgres: PostgresServer, mode: "consume" | "poll", samples: number) {
  const db = await prepared(postgres, 0);
  const store = postgresStore(db.url);
  await store.open();
  const m = member(db.url, { MODE: mode, CONSUMER: "latency", BATCH: "100" });
  await m.when((l) => l.ready);
  await sleep(1_500); // listening, or past its first look
  const delays: number[] = [];
  for (let n = 1; n <= samples; n++) {
    const written = await record(store, n);
    const committed = Date.now();
    const id = written[0]?.id;
    const line = await m.when((l) => l.batch?.some(([changeId]: number[]) => changeId === id));
    delays.push(line.at - committed);
    await sleep(20 + Math.random() * 80);
  }
  m.child.kill("SIGKILL");
  await m.exited;
  await store.close();
  await db.drop();
  return { p50: percentile(delays, 50), p99: percentile(delays, 99), samples };
}

async function exactlyOnce(postgres: PostgresServer, kills: number) {
  const count = 20_000;
  const db = await prepared(postgres, count);
  await db.write();
  const env = { MODE: "consume", CONSUMER: "ledger", BATCH: "50", DELAY_MS: "10" };
  for (let k = 0; k < kills; k++) {
    const m = member(db.url, env);
    await m.when((l) => l.ready);
    await sleep(200 + Math.random() * 600);
    m.child.kill("SIGKILL");
    await m.exited;
  }
  const last = member(db.url, env);
  await until(() => db.done("ledger"));
  last.child.kill("SIGKILL");
  await last.exited;
  const verdict = await db.verdict();
  await db.drop();
  return { count, kills, ...verdict };
}

/** Runs the phase and answers the rows of its report table. */
export async function groupsPhase(
  postgres: PostgresServer,
  progress: (line: string) => void,
): Promise<string[]> {
  // Two rounds, alternating, the faster of each kept: a shared machine's load shifts over minutes.
  const rounds: { one: Awaited<ReturnType<typeof throughput>>[]; three: typeof rounds.one } = {
    one: [],
    three: [],
  };
  for (let round = 1; round <= ROUNDS; round++) {
    progress(`consumer group: ${CHANGES} changes, one member (round ${round} of ${ROUNDS})`);
    rounds.one.push(await throughput(postgres, 1, false));
    progress(
      `consumer group: ${CHANGES} changes, three members, one SIGKILLed halfway (round ${round})`,
    );
    rounds.three.push(await throughput(postgres, 3, true));
  }
  const fastest = (runs: typeof rounds.one) =>
    runs.reduce((best, run) => (run.perSecond > best.perSecond ? run : best));
  const one = fastest(rounds.one);
  const three = fastest(rounds.three);
  const worst = rounds.three.reduce((w, run) =>
    run.rows !== CHANGES || run.distinct_ids !== CHANGES || run.out_of_order > 0 ? run : w,
  );
  progress("consumer group: latency from commit to a handler in another process");
  const listened = await latency(postgres, "consume", 200);
  const looked = await latency(postgres, "poll", 60);
  progress("consumer group: exactly-once effects, the consumer SIGKILLed 20 times");
  const once = await exactlyOnce(postgres, 20);
  const ratio = three.perSecond / one.perSecond;
  const exact = (r: { rows: number; distinct_ids: number; out_of_order: number }, n: number) =>
    r.rows === n && r.distinct_ids === n && r.out_of_order === 0;
  return [
    "| figure | measured | goal | met |",
    "|---|---|---|---|",
    `| consumer group throughput: ${CHANGES} changes, 5000 orders, batches of 100 inserted into the partner's table through tx + 20 ms of partner work each; fastest of ${ROUNDS} alternating rounds | 1 member ${Math.round(one.perSecond)}/s (${one.seconds.toFixed(1)} s; rounds ${rounds.one.map((r) => `${r.seconds.toFixed(1)} s`).join(", ")}); 3 members ${Math.round(three.perSecond)}/s (${three.seconds.toFixed(1)} s; rounds ${rounds.three.map((r) => `${r.seconds.toFixed(1)} s`).join(", ")}; one member SIGKILLed halfway and replaced in each): ${ratio.toFixed(2)}x | at least 2.5x | ${ratio >= 2.5 ? "yes" : "no"} |`,
    `| consumer group correctness, 3 members, one killed halfway (the worst of ${ROUNDS} rounds) | ${worst.rows} rows, ${worst.distinct_ids} distinct changes, ${worst.out_of_order} out of id order within an order | ${CHANGES}, ${CHANGES}, 0 | ${exact(worst, CHANGES) && worst.killed ? "yes" : "no"} |`,
    `| latency, commit to a handler in another process (wall time, loopback) | LISTEN/NOTIFY p50 ${listened.p50} ms, p99 ${listened.p99} ms (${listened.samples} changes); the one-second look it replaces p50 ${looked.p50} ms, p99 ${looked.p99} ms (${looked.samples}) | p50 < 50 ms, p99 < 250 ms | ${listened.p50 < 50 && listened.p99 < 250 ? "yes" : "no"} |`,
    `| exactly-once effects: ${once.count} changes, the consumer SIGKILLed at random ${once.kills} times | ${once.rows} rows in the partner's table, ${once.distinct_ids} distinct, ${once.out_of_order} out of order | ${once.count}, ${once.count}, 0 | ${exact(once, once.count) ? "yes" : "no"} |`,
  ];
}
