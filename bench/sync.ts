/**
 * `npm run bench:sync`: what the order mirror costs and how well it converges, against the goals of
 * the mirror issue. Prints four figures and writes bench/results-sync.md.
 *
 *   SYNC_ORDERS=10000 SYNC_CHAOS_ORDERS=2000 SYNC_CHAOS_DAYS=7 SYNC_THROUGHPUT=100000 npm run bench:sync
 *
 * 1. Cost: API requests per simulated day for a store of orders of which 2 % are open, against a
 *    naive poller as fresh as the mirror (every order, its items and its shipments every
 *    openOrderIntervalMs), measured by running one naive pass and counting its requests.
 * 2. Convergence: the delay between a change in the world and the mirror's change, with every
 *    webhook lost (goal: within one openOrderIntervalMs) and with webhooks delivered (goal: within
 *    one second of the delivery).
 * 3. Chaos: the test's chaos run at a larger size: missed and repeated changes (goal: 0 and 0).
 * 4. Throughput: a first sync over loopback HTTP into a SQLite file, and the store's share of the
 *    wall time (goal: under 10 %).
 * 5. Fleet (PostgreSQL, started by the bench on loopback like the tests do): API requests per
 *    simulated day for three run() workers sharing one mirror against one worker (goal: the same,
 *    not three times as many), and the chaos run with three workers.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { type Clock, PartnerOrders } from "partner-orders";
import {
  type Change,
  type MirrorStore,
  OrderMirror,
  postgresStore,
  sqliteStore,
} from "partner-orders/sync";
import { createSandbox, createWorld, type Sandbox } from "partner-orders/testing";

import { parseWebhook } from "partner-orders/webhooks";
import { missedOrRepeated, runChaos } from "../test/support/chaos";
import { startPostgres } from "../test/support/postgres";
import { delays, floorOf, lengthsOf, newChanges, spreadOf, type WorldChange } from "./sync-cost";
import { groupsPhase } from "./sync-groups";
import { storePhase } from "./sync-store";

const ORDERS = Number(process.env.SYNC_ORDERS ?? 10_000);
const CHAOS_ORDERS = Number(process.env.SYNC_CHAOS_ORDERS ?? 2_000);
const CHAOS_DAYS = Number(process.env.SYNC_CHAOS_DAYS ?? 7);
const THROUGHPUT = Number(process.env.SYNC_THROUGHPUT ?? 100_000);
const FLEET_ORDERS = Number(process.env.SYNC_FLEET_ORDERS ?? 2_000);
const MINUTE = 60_000;
const OPEN_INTERVAL = 5 * MINUTE;
const DAY = 24 * 60 * MINUTE;

const startedAt = performance.now();
const progress = (line: string) =>
  console.log(`[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${line}`);

/** A sandbox holding `total` orders of which `open` are open (the world's), the rest closed. */
async function populated(total: number, open: number, seed = 3) {
  const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
  const world = createWorld(sandbox, { seed });
  const seeded = 320;
  for (let n = 100_001; n < 100_001 + seeded; n++) closeQuietly(sandbox, n);
  for (let i = 0; i < total - seeded - open; i++)
    closeQuietly(sandbox, sandbox.admin.placeOrder({ lines: 2 }));
  await world.place(open);
  // The client's own API requests: the world's reads (the item numbers of the orders it places)
  // go to the same sandbox and are not the mirror's.
  let sent = 0;
  const fetch: typeof sandbox.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes("/oauth2/")) sent++;
    return sandbox.fetch(input, init);
  };
  const client = new PartnerOrders({
    baseUrl: sandbox.baseUrl,
    ...sandbox.credentials,
    fetch,
    clock: sandbox.clock,
  });
  return { sandbox, world, client, sent: () => sent };
}

function closeQuietly(sandbox: Sandbox, orderNumber: number) {
  sandbox.admin.setOrderStatus(orderNumber, "Delivered", { closed: true });
}

const apiRequests = (sandbox: Sandbox) =>
  Object.entries(sandbox.counters.requests)
    .filter(([route]) => !route.includes("oauth2"))
    .reduce((sum, [, n]) => sum + n, 0);

/**
 * The sandbox's clock, counting the sleeps under way: when every loop of the mirror sleeps on it,
 * the mirror has worked through what fell due and simulated time may move on. (Waiting for a quiet
 * spell of requests instead would move time on while a store query is still under way.)
 */
function watched(clock: Clock) {
  let sleeping = 0;
  const wrapped: Clock = {
    now: () => clock.now(),
    monotonic: () => clock.monotonic(),
    sleep: (ms, signal) => {
      sleeping++;
      return clock.sleep(ms, signal).finally(() => sleeping--);
    },
  };
  return { clock: wrapped, sleeping: () => sleeping };
}

/** Lets the mirror's loops work through what fell due: until all of them sleep and no request comes. */
async function idle(sandbox: Sandbox, asleep: () => boolean) {
  let seen = -1;
  let quiet = 0;
  while (quiet < 20) {
    await new Promise((resolve) => setImmediate(resolve));
    const now = sandbox.requests.length;
    quiet = now === seen && asleep() ? quiet + 1 : 0;
    seen = now;
  }
}

/**
 * Runs the mirror's run() loop over `days` of simulated time, one minute at a time, the world
 * making one change every 10 minutes. The measured day starts after the first sync and the hour
 * after it (their cost is reported apart, as `warmup`). `drop` is the share of webhooks lost.
 */
async function simulate(options: {
  total: number;
  open: number;
  days: number;
  webhooks: boolean;
  /** Share of webhook deliveries dropped (seeded), when `webhooks`. */
  drop?: number;
  /** run() loops sharing one PostgreSQL mirror; without, one loop on an in-memory SQLite store. */
  fleet?: { workers: number; postgresUrl: string };
}) {
  const { sandbox, world, client, sent } = await populated(options.total, options.open);
  const time = watched(sandbox.clock);
  const make = () =>
    new OrderMirror({
      client,
      store: options.fleet ? postgresStore(options.fleet.postgresUrl) : sqliteStore(":memory:"),
      clock: time.clock,
    });
  const mirrors = Array.from({ length: options.fleet?.workers ?? 1 }, make);
  // Every run() loop and the changes() loop below.
  const asleep = () => time.sleeping() >= mirrors.length + 1;
  const mirror = mirrors[0] as OrderMirror;
  const dropped = seeded(7);
  if (options.webhooks) {
    sandbox.webhooks.register({
      url: "https://partner.example/hooks",
      fetch: async (request) => {
        const event = parseWebhook(await request.text());
        if (dropped() >= (options.drop ?? 0)) await mirror.handleEvent(event);
        return new Response(null, { status: 204 });
      },
    });
  }
  await mirror.sync();
  const changes: Change[] = [];
  const stop = new AbortController();
  const watching = (async () => {
    for await (const change of mirror.changes({ signal: stop.signal })) changes.push(change);
  })();
  const running = Promise.all(mirrors.map((m) => m.run({ signal: stop.signal })));
  await idle(sandbox, asleep);
  // When each shipment shipped in the world, to measure how long the mirror took to report it.
  const shippedAt = new Map<string, number>();
  const made: WorldChange[] = [];
  // The list pages a sweep needs, taken every sweep interval: orders the list shows, 200 a page.
  const listPages: number[] = [];
  const visible = () =>
    options.total + world.history.placed.length - options.open - world.history.hidden.length;
  const live = async (minutes: number, offset: number) => {
    for (let minute = offset; minute < offset + minutes; minute++) {
      if (minute % 15 === 0) listPages.push(Math.ceil(visible() / 200));
      if (minute % 10 === 0) {
        const before = lengthsOf(world.history);
        await world.step(1);
        made.push(...newChanges(world.history, before, sandbox.clock.now()));
        for (const key of world.history.shipped.slice(before.shipped))
          shippedAt.set(key, sandbox.clock.now());
        await sandbox.webhooks.settled();
      }
      sandbox.clock.advance(MINUTE);
      await idle(sandbox, asleep);
    }
  };
  await live(60, 0);
  const warmup = sent();
  made.length = 0;
  shippedAt.clear();
  listPages.length = 0;
  await live(options.days * 24 * 60, 60);
  const requests = sent() - warmup;
  const sweepPages = listPages.splice(0);
  // Changes made near the end get an hour to be reported (nothing else is counted meanwhile).
  await live(60, 60 + options.days * 24 * 60);
  stop.abort();
  await running;
  await watching;
  const health = (await mirror.status()).webhookHealth;
  const dayChanges = made.filter((w) => w.at < sandbox.clock.now() - 60 * MINUTE);
  const kinds = delays(dayChanges, changes);
  const delaysOf = changes
    .filter((c) => c.type === "shipment.shipped")
    .map((c) => {
      const key = `${c.orderNumber}:${(c as Change & { type: "shipment.shipped" }).shipment.shipmentNumber}`;
      return Date.parse(c.observedAt) - (shippedAt.get(key) ?? Number.NaN);
    })
    .filter(Number.isFinite);
  const missed = [...shippedAt.keys()].filter(
    (key) =>
      !changes.some(
        (c) =>
          c.type === "shipment.shipped" && key === `${c.orderNumber}:${c.shipment.shipmentNumber}`,
      ),
  );

  // The naive poller, as fresh: one pass over every order, its items and shipments, per interval.
  sandbox.resetCounters();
  for await (const order of client.orders.list({ limit: 200 })) {
    for await (const _ of client.orders.items(order.orderNumber, { limit: 200 })) void _;
    for await (const _ of client.orders.shipments(order.orderNumber, { limit: 50 })) void _;
  }
  const naivePerPass = apiRequests(sandbox);
  await Promise.all(mirrors.map((m) => m.close()));
  await sandbox.close();
  return {
    perDay: requests / options.days,
    floorPerDay: floorOf(sweepPages, dayChanges) / options.days,
    warmup,
    worldChanges: dayChanges.length,
    changedOrders: new Set(dayChanges.map((w) => w.orderNumber)).size,
    kinds,
    health: health.state,
    naivePerDay: naivePerPass * (DAY / OPEN_INTERVAL),
    maxDelay: delaysOf.length ? Math.max(...delaysOf) : Number.NaN,
    shipped: shippedAt.size,
    missed: missed.length,
  };
}

/** A seeded generator in [0, 1), so a world drops the same webhooks run after run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The worlds of the cost phase; `SYNC_WORLDS` (e.g. `delivered,dropped`) runs some of them. */
const WORLDS = [
  { id: "delivered", name: "webhooks delivered", drop: 0 },
  { id: "dropped30", name: "30 % of webhooks dropped", drop: 0.3 },
  { id: "dropped", name: "every webhook dropped", drop: 1 },
];

/** One world's figures as a row of the cost table. */
function costRow(name: string, r: Simulated): string {
  return `| ${name} | ${Math.round(r.perDay)} | ${Math.round(r.floorPerDay)} | ${(r.perDay / r.floorPerDay).toFixed(2)}x | ${r.warmup} | ${spreadOf(r.kinds.announced)} | ${spreadOf(r.kinds.other)} | ${r.kinds.missed.length} | ${r.health} |`;
}

/** The cost phase: one simulated day in each of three worlds, as report lines. */
async function costPhase(): Promise<{ lines: string[]; lost?: Simulated; delivered?: Simulated }> {
  const open = Math.round(ORDERS * 0.02);
  const picked = (process.env.SYNC_WORLDS ?? "delivered,dropped30,dropped").split(",");
  const worlds = WORLDS.filter((w) => picked.includes(w.id));
  const results = new Map<string, Simulated>();
  const rows: string[] = [];
  for (const w of worlds) {
    progress(`cost: ${ORDERS} orders, 2 % open, one simulated day, ${w.name}`);
    const r = await simulate({ total: ORDERS, open, days: 1, webhooks: true, drop: w.drop });
    results.set(w.id, r);
    rows.push(costRow(w.name, r));
    console.log(rows.at(-1));
  }
  const first = [...results.values()][0] as Simulated;
  const lines = [
    "| world | requests/day | floor | ratio | first sync + first hour | announceable: change to Change | other kinds: change to Change | never reported | health at the end |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `World: ${ORDERS} orders, 2 % open at the start; one change every 10 simulated minutes (${first.worldChanges} in the day, on ${first.changedOrders} orders; weights: place 3, ship 3, deliver 2, status 2, cancel a line 1, change a quantity 1, hide 0.3).`,
  ];
  return { lines, lost: results.get("dropped"), delivered: results.get("delivered") };
}

type Simulated = Awaited<ReturnType<typeof simulate>>;

async function throughput(total: number) {
  const sandbox = createSandbox({ seed: 1 });
  for (let i = 0; i < total - 320; i++) sandbox.admin.placeOrder({ lines: 2 });
  const { url } = await sandbox.listen();
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-bench-sync-"));
  const store = timed(sqliteStore(join(dir, "orders.db")));
  const client = new PartnerOrders({ baseUrl: url, ...sandbox.credentials });
  const mirror = new OrderMirror({ client, store, concurrency: 8 });
  const started = performance.now();
  const report = await mirror.sync();
  const wall = performance.now() - started;
  await mirror.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
  return { report, wall, storeMs: store.elapsed() };
}

/** A store that adds up the wall time spent inside its own calls. */
function timed(store: MirrorStore): MirrorStore & { elapsed(): number } {
  let spent = 0;
  const wrapped = { elapsed: () => spent } as MirrorStore & { elapsed(): number };
  for (const key of Object.keys(store) as (keyof MirrorStore)[]) {
    const method = store[key] as (...args: unknown[]) => Promise<unknown>;
    (wrapped as unknown as Record<string, unknown>)[key] = async (...args: unknown[]) => {
      const t = performance.now();
      try {
        return await method(...args);
      } finally {
        spent += performance.now() - t;
      }
    };
  }
  return wrapped;
}

/**
 * SYNC_PHASES picks phases: unset or `all` runs every phase; `groups` runs only the consumer-group
 * phase (bench/sync-groups.ts) and rewrites only its section of results-sync.md; `store` runs only
 * the store-writes phase (bench/sync-store.ts), likewise; `main` runs the phases of the main table
 * (cost, chaos, throughput, fleet) and rewrites only that table.
 */
const PHASES = new Set((process.env.SYNC_PHASES ?? "all").split(",").map((p) => p.trim()));
const GROUPS_HEADING = "## Consumer groups on PostgreSQL (`SYNC_PHASES=groups npm run bench:sync`)";

const COST_HEADING =
  "## Cost and convergence by webhook delivery (`SYNC_PHASES=cost npm run bench:sync`)";

/** Replaces (or adds, before the consumer-group section) one section of results-sync.md. */
async function writeSection(
  heading: string,
  rows: string[],
  note = "2 cores shared",
): Promise<void> {
  const file = new URL("./results-sync.md", import.meta.url);
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  const section = [
    heading,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${process.version}, ${note}.`,
    "",
    ...rows,
  ].join("\n");
  const start = before.indexOf(`\n${heading}`);
  const next = start < 0 ? -1 : before.indexOf("\n## ", start + 1);
  const groups = before.indexOf(`\n${GROUPS_HEADING}`);
  const [head, tail] =
    start >= 0
      ? [before.slice(0, start), next < 0 ? "" : before.slice(next)]
      : groups >= 0 && heading !== GROUPS_HEADING
        ? [before.slice(0, groups), before.slice(groups)]
        : [before, ""];
  writeFileSync(file, `${head.trimEnd()}\n\n${section}\n${tail ? `${tail.trimEnd()}\n` : ""}`);
}

/** Replaces (or adds) the consumer-group section of results-sync.md. */
function writeGroups(rows: string[]): Promise<void> {
  return writeSection(
    GROUPS_HEADING,
    rows,
    "2 cores shared (PostgreSQL, members and this process on them)",
  );
}

if (PHASES.has("cost") && !PHASES.has("all")) {
  const { lines } = await costPhase();
  for (const line of lines) console.log(line);
  await writeSection(COST_HEADING, lines);
  progress("wrote the cost section of bench/results-sync.md");
  if (!PHASES.has("groups")) process.exit(0);
}

if (PHASES.has("store")) await storePhase(progress);
if (!PHASES.has("all") && !PHASES.has("groups") && !PHASES.has("main")) process.exit(0);
if (!PHASES.has("all") && !PHASES.has("main")) {
  const postgres = await startPostgres();
  try {
    if (PHASES.has("groups")) {
      const rows = await groupsPhase(postgres, progress);
      for (const row of rows) console.log(row);
      await writeGroups(rows);
      progress("wrote the consumer-group section of bench/results-sync.md");
    }
  } finally {
    await postgres.stop();
  }
  process.exit(0);
}

const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};

const costed = await costPhase();
const costLines = costed.lines;
const lost = costed.lost as Simulated;
const delivered = costed.delivered as Simulated;
progress(`chaos: ${CHAOS_ORDERS} orders, ${CHAOS_DAYS} simulated days`);
const chaos = await runChaos({
  orders: CHAOS_ORDERS,
  steps: CHAOS_DAYS * 96,
  stepMs: 15 * MINUTE,
  changesPerStep: 6,
});
const wrong = missedOrRepeated(chaos);
const mismatched = chaos.compared.filter(
  (c) => !isDeepStrictEqual(c.mirrored, { ...(c.served as object), unresolvable: false }),
).length;
const repeatedIds = chaos.consumed.length - new Set(chaos.consumed).size;
progress(`throughput: first sync of ${THROUGHPUT} orders over loopback HTTP`);
const first = await throughput(THROUGHPUT);

progress(`fleet: ${FLEET_ORDERS} orders, one simulated day, one and three workers on PostgreSQL`);
const postgres = await startPostgres();
const onDatabase = async <T>(run: (url: string) => Promise<T>): Promise<T> => {
  const database = await postgres.createDatabase();
  try {
    return await run(database.url);
  } finally {
    await database.drop();
  }
};
const fleetOf = (workers: number) =>
  onDatabase((postgresUrl) =>
    simulate({
      total: FLEET_ORDERS,
      open: Math.round(FLEET_ORDERS * 0.02),
      days: 1,
      webhooks: true,
      fleet: { workers, postgresUrl },
    }),
  );
const one = await fleetOf(1);
const three = await fleetOf(3);
progress(`fleet chaos: ${CHAOS_ORDERS} orders, ${CHAOS_DAYS} simulated days, three workers`);
const fleetChaos = await onDatabase((postgresUrl) =>
  runChaos({
    orders: CHAOS_ORDERS,
    steps: CHAOS_DAYS * 96,
    stepMs: 15 * MINUTE,
    changesPerStep: 6,
    workers: 3,
    postgresUrl,
  }),
);
await postgres.stop();
const fleetWrong = missedOrRepeated(fleetChaos);
const fleetMismatched = fleetChaos.compared.filter(
  (c) => !isDeepStrictEqual(c.mirrored, { ...(c.served as object), unresolvable: false }),
).length;
const fleetRepeatedIds = fleetChaos.consumed.length - new Set(fleetChaos.consumed).size;
const fleetRatio = three.perDay / one.perDay;

const ratio = lost.naivePerDay / lost.perDay;
const share = first.storeMs / first.wall;
report("# Order mirror benchmark (`npm run bench:sync`)\n");
report(
  `Measured ${new Date().toISOString().slice(0, 10)} on ${process.version}, 2 cores shared.\n`,
);
report("| figure | measured | goal | met |");
report("|---|---|---|---|");
report(
  `| cost: API requests per simulated day, ${ORDERS} orders, 2 % open | mirror ${Math.round(lost.perDay)}, naive poller ${Math.round(lost.naivePerDay)}: ${ratio.toFixed(1)}x fewer | at least 20x fewer | ${ratio >= 20 ? "yes" : "no"} |`,
);
report(
  `| convergence, every webhook lost | ${lost.shipped} shipments shipped, ${lost.missed} missed, slowest reported after ${(lost.maxDelay / 1000).toFixed(0)} s | within ${OPEN_INTERVAL / 1000} s | ${lost.missed === 0 && lost.maxDelay <= OPEN_INTERVAL ? "yes" : "no"} |`,
);
report(
  `| convergence, webhooks delivered | ${delivered.shipped} shipments shipped, ${delivered.missed} missed, slowest reported after ${(delivered.maxDelay / 1000).toFixed(1)} s of simulated time | within 1 s of the delivery | ${delivered.missed === 0 && delivered.maxDelay <= 1000 ? "yes" : "no"} |`,
);
report(
  `| chaos: ${CHAOS_ORDERS} orders, ${CHAOS_DAYS} days, 30 % dropped, 10 % duplicated, reordered, 429/503, restart mid-sweep | ${mismatched} orders differing from the service, ${wrong.length} changes missed or repeated, ${repeatedIds} change ids repeated, resumed at the stored cursor: ${chaos.resumedWithCursor} | 0, 0, 0 | ${mismatched + wrong.length + repeatedIds === 0 && chaos.resumedWithCursor ? "yes" : "no"} |`,
);
report(
  `| throughput: first sync of ${THROUGHPUT} orders with items and shipments, loopback HTTP, SQLite file | ${(first.wall / 1000).toFixed(1)} s, ${first.report.requests} requests (${Math.round(first.report.requests / (first.wall / 1000))}/s); store ${(share * 100).toFixed(1)} % of wall time | store under 10 % | ${share < 0.1 ? "yes" : "no"} |`,
);
report(
  `| fleet cost: API requests per simulated day, ${FLEET_ORDERS} orders, 2 % open, webhooks delivered, PostgreSQL | three workers ${Math.round(three.perDay)}, one worker ${Math.round(one.perDay)}: ${fleetRatio.toFixed(2)}x | the same (1.00x), not 3x | ${fleetRatio <= 1.1 ? "yes" : "no"} |`,
);
report(
  `| fleet chaos: three workers on PostgreSQL, ${CHAOS_ORDERS} orders, ${CHAOS_DAYS} days, as above | ${fleetMismatched} orders differing, ${fleetWrong.length} changes missed or repeated, ${fleetRepeatedIds} change ids repeated, resumed at the stored cursor: ${fleetChaos.resumedWithCursor} | 0, 0, 0 | ${fleetMismatched + fleetWrong.length + fleetRepeatedIds === 0 && fleetChaos.resumedWithCursor ? "yes" : "no"} |`,
);
const resultsFile = new URL("./results-sync.md", import.meta.url);
if (PHASES.has("main")) {
  // The main table only: the sections after it (cost, store, groups) keep their last runs.
  const before = existsSync(resultsFile) ? readFileSync(resultsFile, "utf8") : "";
  const sections = before.indexOf("\n## ");
  writeFileSync(
    resultsFile,
    `${lines.join("\n")}\n${sections < 0 ? "" : `\n${before.slice(sections + 1)}`}`,
  );
  progress("wrote the main table of bench/results-sync.md");
  process.exit(0);
}
writeFileSync(resultsFile, `${lines.join("\n")}\n`);
await writeSection(COST_HEADING, costLines);
{
  const groupsServer = await startPostgres();
  try {
    await writeGroups(await groupsPhase(groupsServer, progress));
  } finally {
    await groupsServer.stop();
  }
}
await storePhase(progress);
progress("wrote bench/results-sync.md");
