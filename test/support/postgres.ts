import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

/**
 * A real PostgreSQL server for one test file: a throwaway cluster in a temporary directory,
 * listening on a free loopback port, with trust authentication for the `postgres` role.
 *
 * `initdb` refuses to run as root, so when the tests run as root (CI does) the cluster belongs to
 * the `postgres` system user and its commands run through `runuser`.
 *
 * Each test makes its own database with `createDatabase()` and drops it when done, so tests never
 * see each other's tables.
 */
export interface PostgresServer {
  /** Creates an empty database; `drop()` removes it (closing any connection still open to it). */
  createDatabase(): Promise<TestDatabase>;
  /**
   * Stops the server (fast shutdown: every session is terminated, as in a real restart or
   * failover), runs `whileDown` if given, and starts it again on the same port and data.
   */
  restart(whileDown?: () => Promise<unknown>): Promise<void>;
  /** The server's `postgres://` URL without a database. */
  readonly base: string;
  /** The cluster's directory: its data, socket and log. */
  readonly dir: string;
  stop(): Promise<void>;
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The directory of the PostgreSQL server binaries, or undefined when none is installed. */
export function findPostgresBin(): string | undefined {
  const onPath = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const candidates = [
    onPath.status === 0 ? onPath.stdout.trim() : "",
    ...listVersions("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin`),
  ];
  return candidates.find((dir) => dir && existsSync(join(dir, "initdb")));
}

function listVersions(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).sort((a, b) => Number(b) - Number(a));
}

/**
 * True when a real server can be started here. CI installs PostgreSQL (see .ci/run), so there a
 * missing server is a failure, not a skip.
 */
export function postgresAvailable(): boolean {
  const found = findPostgresBin() !== undefined;
  if (!found && process.env.CI) throw new Error("CI: PostgreSQL server binaries are missing");
  if (!found) console.warn("Skipping the PostgreSQL tests: no PostgreSQL server binaries here.");
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Set by a run that starts one server for all its test files (mutation testing of the PostgreSQL
 * store, where a cluster per mutant would cost seconds each): `startPostgres` then hands out that
 * server, and `stop` leaves it running for the next file.
 */
export const SHARED_POSTGRES_ENV = "PARTNER_ORDERS_TEST_POSTGRES";

/** What {@link SHARED_POSTGRES_ENV} holds: the server's data directory, socket directory and port. */
interface SharedPostgres {
  dir: string;
  port: number;
}

export async function startPostgres(): Promise<PostgresServer> {
  const shared = process.env[SHARED_POSTGRES_ENV];
  if (shared) return serve(JSON.parse(shared) as SharedPostgres, { owned: false });
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-pg-"));
  if (asRoot) chownSync(dir, ...postgresIds());
  const port = await freePort();
  pgTool("initdb", [
    "-D",
    join(dir, "data"),
    "-A",
    "trust",
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--no-sync",
  ]);
  return serve({ dir, port }, { owned: true });
}

/** Runs a PostgreSQL server tool, as the `postgres` user when this process is root. */
function pgTool(tool: string, args: string[]): void {
  const bin = findPostgresBin();
  if (!bin) throw new Error("no PostgreSQL server binaries found");
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? "runuser" : join(bin, tool);
  const argv = asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : args;
  const result = spawnSync(command, argv, { encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout}`);
}

/**
 * Starts the cluster in `dir` (when it is not running yet) and answers for it. A server that is
 * not `owned` was started for a whole run: `stop` only ends this file's admin session.
 */
async function serve(
  { dir, port }: SharedPostgres,
  { owned }: { owned: boolean },
): Promise<PostgresServer> {
  const data = join(dir, "data");
  const run = pgTool;
  const settings = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  if (owned) run("pg_ctl", ["-D", data, "-o", settings, "-l", join(dir, "log"), "-w", "start"]);

  const base = `postgres://postgres@127.0.0.1:${port}`;
  const { default: pg } = await import("pg");
  const connectAdmin = async () => {
    const client = new pg.Client({ connectionString: `${base}/postgres` });
    // A restart ends this session; the next admin query uses the new one.
    client.on("error", () => undefined);
    await client.connect();
    return client;
  };
  let admin = await connectAdmin();

  return {
    base,
    dir,
    async restart(whileDown) {
      await admin.end().catch(() => undefined);
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      try {
        await whileDown?.();
      } finally {
        run("pg_ctl", ["-D", data, "-o", settings, "-l", join(dir, "log"), "-w", "start"]);
        admin = await connectAdmin();
      }
    },
    async createDatabase() {
      const name = `t_${randomBytes(6).toString("hex")}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return {
        name,
        url: `${base}/${name}`,
        drop: async () => {
          await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
      };
    },
    async stop() {
      await admin.end().catch(() => undefined);
      if (!owned) return;
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The server of one test file, with what its tests make on it cleaned up for them. */
export interface PostgresHarness {
  /** The file's server (set once the file's `beforeAll` has run). */
  readonly server: PostgresServer;
  /**
   * An empty database, dropped after the current test; made in a `beforeAll`, after the file.
   */
  createDatabase(): Promise<TestDatabase>;
  /**
   * A connected client on `url` that ignores the error a terminated session raises (the faults
   * these tests inject), ended before its database is dropped.
   */
  connect(url: string): Promise<pg.Client>;
  /** Runs `close` after the current test (or file), before the databases made earlier are dropped. */
  closeAfter(close: () => unknown): void;
}

/**
 * Starts a server for the calling test file (call it inside its `describe.runIf(postgresAvailable())`)
 * and stops it after the file. Cleanups run after the file's own `afterEach`/`afterAll` (vitest runs
 * after-hooks in reverse order), so children and stores are gone before their database is dropped.
 */
export function usePostgres(): PostgresHarness {
  let server: PostgresServer | undefined;
  let inTest = false;
  const perTest: (() => Promise<unknown>)[] = [];
  const perFile: (() => Promise<unknown>)[] = [];
  const cleanUp = async (stack: (() => Promise<unknown>)[]) => {
    for (let step = stack.pop(); step; step = stack.pop()) await step();
  };
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await cleanUp(perFile);
    await server?.stop();
  });
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await cleanUp(perTest);
  });
  const started = (): PostgresServer => {
    if (!server) throw new Error("usePostgres: the server starts in beforeAll");
    return server;
  };
  return {
    get server() {
      return started();
    },
    async createDatabase() {
      const database = await started().createDatabase();
      (inTest ? perTest : perFile).push(() => database.drop());
      return database;
    },
    async connect(url) {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => undefined);
      (inTest ? perTest : perFile).push(() => client.end().catch(() => undefined));
      await client.connect();
      return client;
    },
    closeAfter(close) {
      (inTest ? perTest : perFile).push(async () => close());
    },
  };
}

function postgresIds(): [number, number] {
  const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error("running as root, but there is no postgres system user to own the cluster");
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}
