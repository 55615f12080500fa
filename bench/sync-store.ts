/**
 * `SYNC_PHASES=store npm run bench:sync` (also part of `all`): what the mirror's first sync costs
 * against the floor, each figure measured in one run against its baseline.
 *
 * (a) Store time of a first sync into a SQLite file against bare better-sqlite3 writing the same
 *     rows into the same tables and indexes (WAL, one transaction per 200-order page, the values
 *     serialised from objects as the mirror does).
 *     The mirror's store time is the time spent inside its store's calls, which on SQLite do all
 *     their work before they return (goal: at most 2x).
 * (b) First-sync wall time and client CPU per request against a bare `undici.request` loop making
 *     the same requests (the list by pages of 200, then each order's items and shipments, 8 in
 *     flight, one page at a time), the server in its own process (goal: at most 1.5x).
 * (c) Peak RSS and live heap after GC of the client process, at 20,000 and 100,000 orders (goal:
 *     peak RSS under 150 MB and flat).
 *
 * Each client runs in its own process (`--expose-gc`), so one's memory is not the other's.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PartnerOrders } from "../src/index";
import { OrderMirror, sqliteStore } from "../src/sync/index";
import type { MirrorStore, OrderCommit, PageWrite } from "../src/sync/types";

const HERE = dirname(fileURLToPath(import.meta.url));
const CREDENTIALS = { clientId: "sandbox-client", clientSecret: "sandbox-secret" };
const CONCURRENCY = 8;
const PAGE = 200;
const SMALL = Number(process.env.SYNC_STORE_ORDERS ?? 20_000);
const LARGE = Number(process.env.SYNC_STORE_LARGE ?? 100_000);
const ROUNDS = Number(process.env.SYNC_STORE_ROUNDS ?? 2);
const HEADING = "## Store writes at the floor (`SYNC_PHASES=store npm run bench:sync`)";

interface MirrorFigures {
  wallMs: number;
  cpuUs: number;
  requests: number;
  /** Store time, the mirror's diff left out. */
  storeMs: number;
  /** The mirror's diff (`decide`), run inside the store's transactions. */
  decideMs: number;
  bareStoreMs: number;
  peakRssMb: number;
  heapMb: number;
  /** `process.memoryUsage()` at the highest RSS sampled during the sync (every 50 ms), in MB. */
  atPeak: PeakBreakdown;
}
interface PeakBreakdown {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}
interface BareFigures {
  wallMs: number;
  cpuUs: number;
  requests: number;
  peakRssMb: number;
  atPeak: PeakBreakdown;
}

const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => {
  gc?.();
  gc?.();
  return {
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    heapMb: process.memoryUsage().heapUsed / 2 ** 20,
  };
};

/**
 * Samples `process.memoryUsage()` every 50 ms and keeps the sample with the highest RSS, to tell
 * what the peak is made of: V8's heap (live or garbage), or memory outside it.
 */
function peakSampler(): () => PeakBreakdown {
  const toMb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
  let peak = process.memoryUsage();
  const timer = setInterval(() => {
    // The RSS alone is cheap to read; the whole breakdown (a walk of V8's heap) only at a new peak.
    if (process.memoryUsage.rss() > peak.rss) peak = process.memoryUsage();
  }, 50);
  return () => {
    clearInterval(timer);
    return {
      rss: toMb(peak.rss),
      heapTotal: toMb(peak.heapTotal),
      heapUsed: toMb(peak.heapUsed),
      external: toMb(peak.external),
      arrayBuffers: toMb(peak.arrayBuffers),
    };
  };
}

/**
 * A store that adds up the time its calls spend before they return (all of it, on SQLite), less
 * the time of the mirror's own `decide` (the diff), which a commit runs inside its transaction.
 */
function timed(store: MirrorStore): MirrorStore & { elapsed(): number; deciding(): number } {
  let spent = 0;
  let deciding = 0;
  const wrapped = { elapsed: () => spent - deciding, deciding: () => deciding } as MirrorStore & {
    elapsed(): number;
    deciding(): number;
  };
  const measured =
    (decide: OrderCommit["decide"]): OrderCommit["decide"] =>
    (current) => {
      const t = performance.now();
      try {
        return decide(current);
      } finally {
        deciding += performance.now() - t;
      }
    };
  for (const key of Object.keys(store) as (keyof MirrorStore)[]) {
    const method = store[key] as (...args: unknown[]) => Promise<unknown>;
    (wrapped as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => {
      if (key === "commit") args[1] = measured(args[1] as OrderCommit["decide"]);
      if (key === "commitPage") {
        const page = args[0] as PageWrite;
        args[0] = {
          ...page,
          commits: page.commits.map((c) => ({ ...c, decide: measured(c.decide) })),
        };
      }
      const t = performance.now();
      try {
        return method(...args);
      } finally {
        spent += performance.now() - t;
      }
    };
  }
  return wrapped;
}

/** The mirror's first sync into a new SQLite file, then bare better-sqlite3 writing its rows. */
async function mirrorChild(url: string, bare: boolean): Promise<MirrorFigures> {
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-bench-store-"));
  try {
    const file = join(dir, "orders.db");
    const store = timed(sqliteStore(file));
    const client = new PartnerOrders({ baseUrl: url, ...CREDENTIALS });
    const mirror = new OrderMirror({ client, store, concurrency: CONCURRENCY });
    const sampled = peakSampler();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await mirror.sync();
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const atPeak = sampled();
    const mem = memory();
    await mirror.close();
    return {
      wallMs,
      cpuUs: used.user + used.system,
      requests: report.requests,
      storeMs: store.elapsed(),
      decideMs: store.deciding(),
      bareStoreMs: bare ? await bareSqlite(file, join(dir, "bare.db")) : Number.NaN,
      ...mem,
      atPeak,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * better-sqlite3 on its own writing the rows the mirror wrote: each order's row (its JSON
 * serialised from objects, as the mirror does) and its changes, 200 orders per transaction.
 */
async function bareSqlite(from: string, to: string): Promise<number> {
  const Database = (await import("better-sqlite3")).default;
  const source = new Database(from, { readonly: true });
  const orders = (
    source.prepare("SELECT * FROM po_orders ORDER BY order_number").all() as Row[]
  ).map((r) => ({
    ...r,
    data: JSON.parse(r.data as string),
    items: r.items === null ? null : JSON.parse(r.items as string),
    shipments: r.shipments === null ? null : JSON.parse(r.shipments as string),
  }));
  const changes = new Map<number, Row[]>();
  for (const c of source.prepare("SELECT * FROM po_changes ORDER BY id").all() as Row[]) {
    const list = changes.get(c.order_number as number) ?? [];
    list.push({ ...c, payload: JSON.parse(c.payload as string) });
    changes.set(c.order_number as number, list);
  }
  const ids = new Map<number, string[]>();
  for (const r of source.prepare("SELECT * FROM po_external_ids").all() as Row[]) {
    const list = ids.get(r.order_number as number) ?? [];
    list.push(r.external_id as string);
    ids.set(r.order_number as number, list);
  }
  source.close();
  // The mirror's own tables and indexes, so the floor writes the same rows into the same layout.
  const schema = new Database(from, { readonly: true });
  const ddl = (
    schema
      .prepare(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN ('po_orders', 'po_changes', 'po_external_ids') ORDER BY type DESC",
      )
      .all() as { sql: string }[]
  ).map((r) => r.sql);
  schema.close();
  const db = new Database(to);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  for (const statement of ddl) db.exec(statement);
  const insertOrder = db.prepare(
    `INSERT INTO po_orders (order_number, site_id, data, items, shipments, closed, unresolvable,
       next_poll_at, seen_in_sweep, status, updated_on, total, partner_order_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertChange = db.prepare(
    "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertId = db.prepare(
    "INSERT INTO po_external_ids (external_id, order_number) VALUES (?, ?)",
  );
  const page = db.transaction((rows: Row[]) => {
    for (const o of rows) {
      insertOrder.run(
        o.order_number,
        o.site_id,
        JSON.stringify(o.data),
        o.items === null ? null : JSON.stringify(o.items),
        o.shipments === null ? null : JSON.stringify(o.shipments),
        o.closed,
        o.unresolvable,
        o.next_poll_at,
        o.seen_in_sweep,
        o.status,
        o.updated_on,
        o.total,
        o.partner_order_id,
      );
      for (const id of ids.get(o.order_number as number) ?? []) insertId.run(id, o.order_number);
      for (const c of changes.get(o.order_number as number) ?? [])
        insertChange.run(
          c.type,
          c.order_number,
          c.site_id,
          c.observed_at,
          c.cause,
          JSON.stringify(c.payload),
          c.snapshot,
        );
    }
  });
  const started = performance.now();
  for (let at = 0; at < orders.length; at += PAGE) page(orders.slice(at, at + PAGE));
  const elapsed = performance.now() - started;
  db.close();
  return elapsed;
}
type Row = Record<string, unknown>;

/** The same requests as the mirror's first sync, made by a bare `undici.request` loop. */
async function bareChild(url: string): Promise<BareFigures> {
  const undici = await import("undici");
  const dispatcher = new undici.Agent();
  const token = await fetchToken(url);
  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
  let requests = 0;
  const getJson = async (path: string) => {
    requests++;
    const { statusCode, body } = await undici.request(`${url}${path}`, { headers, dispatcher });
    const data = (await body.json()) as Record<string, unknown>;
    if (statusCode !== 200) throw new Error(`GET ${path} answered ${statusCode}`);
    return data;
  };
  const all = async (path: string, key: string, limit: number) => {
    const rows: unknown[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await getJson(`${path}?limit=${limit}${query}`);
      rows.push(...(page[key] as unknown[]));
      cursor = (page.nextCursor as string | null) ?? null;
    } while (cursor !== null);
    return rows;
  };
  const sampled = peakSampler();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await getJson("/v1/me");
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await getJson(`/v1/orders?limit=${PAGE}${query}`);
    const numbers = (page.orders as { orderNumber: number }[]).map((o) => o.orderNumber);
    let next = 0;
    const worker = async () => {
      while (next < numbers.length) {
        const n = numbers[next++] as number;
        await all(`/v1/orders/${n}/items`, "items", 200);
        await all(`/v1/orders/${n}/shipments`, "shipments", 50);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    cursor = (page.nextCursor as string | null) ?? null;
  } while (cursor !== null);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const atPeak = sampled();
  await dispatcher.close();
  return {
    wallMs,
    cpuUs: used.user + used.system,
    requests,
    peakRssMb: memory().peakRssMb,
    atPeak,
  };
}

async function fetchToken(url: string): Promise<string> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: CREDENTIALS.clientId,
      client_secret: CREDENTIALS.clientSecret,
      scope: "partner-api/orders:read",
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

let bundled: Promise<string> | undefined;

/**
 * This file as plain JavaScript for plain `node`, as a partner runs the SDK: under tsx, its loader
 * thread and the compiled sources added about 60 MB to every client's RSS. The SDK's sources are
 * bundled in; packages stay imports, resolved from the project's node_modules.
 */
function childScript(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import("esbuild");
    const outfile = resolve(HERE, "../node_modules/.cache/partner-orders-bench/sync-store.mjs");
    await build({
      entryPoints: [fileURLToPath(import.meta.url)],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      logLevel: "warning",
    });
    return outfile;
  })();
  return bundled;
}

/** Runs this file in a process of its own and parses the JSON line it prints. */
async function child<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const script = await childScript();
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, ["--expose-gc", script, ...args], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (chunk) => {
      out += chunk;
    });
    proc.on("error", reject);
    proc.on("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) resolvePromise(JSON.parse(line) as T);
      else reject(new Error(`bench child ${args.join(" ")} exited ${code}: ${out.slice(-500)}`));
    });
  });
}

/** The sandbox with `orders` orders in its own process; `stop` ends it. */
async function server(orders: number): Promise<{ url: string; stop(): void }> {
  const proc = spawn(
    process.execPath,
    ["--max-old-space-size=8192", "--import", "tsx", resolve(HERE, "sync-store-server.ts")],
    {
      env: { ...process.env, ORDERS: String(orders) },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolvePromise, reject) => {
    let out = "";
    proc.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n"))
        resolvePromise((JSON.parse(out.split("\n")[0] as string) as { url: string }).url);
    });
    proc.on("exit", (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return { url, stop: () => proc.kill("SIGTERM") };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const breakdown = (p: PeakBreakdown | undefined) =>
  p
    ? `RSS ${mb(p.rss)} = V8 heap ${mb(p.heapTotal)} (${mb(p.heapUsed)} used) + outside it ${mb(p.rss - p.heapTotal)} (external ${mb(p.external)}, of which array buffers ${mb(p.arrayBuffers)})`
    : "not sampled";
const x = (ratio: number) => `${ratio.toFixed(2)}x`;
const mb = (value: number) => `${value.toFixed(0)} MB`;

/** The phase: the figures as markdown rows, also written as their own section of results-sync.md. */
export async function storePhase(progress: (line: string) => void): Promise<string[]> {
  const mirrors: MirrorFigures[] = [];
  const bares: BareFigures[] = [];
  progress(`store: first sync of ${SMALL} orders, mirror and bare clients, ${ROUNDS} rounds`);
  const small = await server(SMALL);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternated, so neither always runs on a warmer server.
      if (round % 2 === 0) {
        mirrors.push(await child<MirrorFigures>(["mirror", small.url, "bare-sqlite"]));
        bares.push(await child<BareFigures>(["bare", small.url]));
      } else {
        bares.push(await child<BareFigures>(["bare", small.url]));
        mirrors.push(await child<MirrorFigures>(["mirror", small.url, "bare-sqlite"]));
      }
    }
  } finally {
    small.stop();
  }
  // Written once the first part is measured, so a run cut short still leaves its figures.
  let rows = storeRows(mirrors, bares, undefined);
  writeSection(rows, undefined);
  progress(`store: first sync of ${LARGE} orders, the mirror's memory`);
  const large = await server(LARGE);
  try {
    const big = await child<MirrorFigures>(["mirror", large.url]);
    rows = storeRows(mirrors, bares, big);
    writeSection(rows, big);
  } finally {
    large.stop();
  }
  return rows;
}

/** The phase's rows; `big` is the run at LARGE orders, undefined until it has been measured. */
function storeRows(
  mirrors: MirrorFigures[],
  bares: BareFigures[],
  big: MirrorFigures | undefined,
): string[] {
  const storeRatio = median(mirrors.map((m) => m.storeMs / m.bareStoreMs));
  const wallRatio = median(mirrors.map((m, i) => m.wallMs / (bares[i] as BareFigures).wallMs));
  const cpuRatio = median(
    mirrors.map(
      (m, i) =>
        m.cpuUs /
        m.requests /
        ((bares[i] as BareFigures).cpuUs / (bares[i] as BareFigures).requests),
    ),
  );
  const m = (pick: (f: MirrorFigures) => number) => median(mirrors.map(pick));
  const b = (pick: (f: BareFigures) => number) => median(bares.map(pick));
  const peakSmall = m((f) => f.peakRssMb);
  const rows = [
    "| figure | measured | goal | met |",
    "|---|---|---|---|",
    `| (a) store time, first sync of ${SMALL} orders into a SQLite file | mirror ${(m((f) => f.storeMs) / 1000).toFixed(2)} s (its diff, run in the same transactions, another ${(m((f) => f.decideMs) / 1000).toFixed(2)} s), bare better-sqlite3 writing the same rows ${(m((f) => f.bareStoreMs) / 1000).toFixed(2)} s: ${x(storeRatio)} | at most 2x | ${storeRatio <= 2 ? "yes" : "no"} |`,
    `| (b) first sync of ${SMALL} orders: wall time | mirror ${(m((f) => f.wallMs) / 1000).toFixed(1)} s, bare undici loop ${(b((f) => f.wallMs) / 1000).toFixed(1)} s (${m((f) => f.requests)} and ${b((f) => f.requests)} requests, ${CONCURRENCY} in flight): ${x(wallRatio)} | at most 1.5x | ${wallRatio <= 1.5 ? "yes" : "no"} |`,
    `| (b) first sync of ${SMALL} orders: client CPU per request | mirror ${(m((f) => f.cpuUs / f.requests)).toFixed(0)} µs, bare ${(b((f) => f.cpuUs / f.requests)).toFixed(0)} µs: ${x(cpuRatio)} | at most 1.5x | ${cpuRatio <= 1.5 ? "yes" : "no"} |`,
    `| (c) client memory, first sync | ${SMALL} orders: peak RSS ${mb(peakSmall)}, heap after GC ${mb(m((f) => f.heapMb))}; ${LARGE} orders: peak RSS ${mb(big?.peakRssMb ?? Number.NaN)}, heap after GC ${mb(big?.heapMb ?? Number.NaN)} (bare loop: peak RSS ${mb(b((f) => f.peakRssMb))}); at the highest RSS sampled, ${SMALL} orders: ${breakdown(mirrors[0]?.atPeak)}${big ? `; ${LARGE} orders: ${breakdown(big.atPeak)}` : ""}; bare loop: ${breakdown(bares[0]?.atPeak)} | peak RSS under 150 MB, flat from ${SMALL} to ${LARGE} | ${peakSmall < 150 && (big?.peakRssMb ?? Number.NaN) < 150 && (big?.peakRssMb ?? Number.NaN) < peakSmall * 1.2 ? "yes" : "no"} |`,
  ];
  return rows;
}

function writeSection(rows: string[], big: MirrorFigures | undefined): void {
  writeFile([
    HEADING,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${process.version}, 2 cores shared; the server (the sandbox, orders of two lines) in its own process, each client in its own (plain node --expose-gc, the SDK's sources bundled by esbuild). Medians of ${ROUNDS} round(s) at ${SMALL} orders; ${big ? `one run at ${LARGE}, which took ${(big.wallMs / 1000).toFixed(0)} s` : `the run at ${LARGE} orders did not finish`}.`,
    "",
    ...rows,
  ]);
}

/** Replaces this phase's section of results-sync.md (or adds it before the consumer groups'). */
function writeFile(lines: string[]): void {
  const file = resolve(HERE, "results-sync.md");
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  const section = `${lines.join("\n")}\n`;
  const at = before.indexOf(HEADING);
  let after: string;
  if (at >= 0) {
    const end = before.indexOf("\n## ", at + HEADING.length);
    after = `${before.slice(0, at)}${section}${end >= 0 ? before.slice(end) : ""}`;
  } else {
    const groups = before.indexOf("\n## Consumer groups");
    after =
      groups >= 0
        ? `${before.slice(0, groups)}\n\n${section}${before.slice(groups)}`
        : `${before.trimEnd()}\n\n${section}`;
  }
  writeFileSync(file, after);
}

if (process.argv[2] === "mirror" || process.argv[2] === "bare") {
  const url = process.argv[3] as string;
  const figures =
    process.argv[2] === "mirror"
      ? await mirrorChild(url, process.argv[4] === "bare-sqlite")
      : await bareChild(url);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}
