// @ts-nocheck
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createSandbox, type Listener, type Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, redisAvailable, startRedis } from "../support/redis.js";

/** Real processes, a real redis-server and the sandbox over loopback HTTP (issue: many processes). */
const available = redisAvailable();
const worker = fileURLToPath(new URL("./worker.ts", import.meta.url));

interface Line {
  at?: number;
  path?: string;
  status?: number;
  done?: boolean;
  error?: string;
}

function runWorker(env: Record<string, string>): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      const lines = out
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line);
      if (code !== 0) reject(new Error(`worker exited with ${code}: ${out}`));
      else resolve(lines);
    });
  });
}

describe.runIf(available)("a fleet of client processes", () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let listener: Listener;
  let env: Record<string, string>;
  let db = 0;

  beforeAll(async () => {
    redis = await startRedis();
    sandbox = createSandbox();
    listener = await sandbox.listen();
    env = {
      BASE_URL: listener.url,
      CLIENT_ID: sandbox.credentials.clientId,
      CLIENT_SECRET: sandbox.credentials.clientSecret,
    };
  }, 30_000);
  afterAll(async () => {
    await sandbox?.close();
    await redis?.stop();
  });

  // Each test its own Redis database, so no token or closure carries over.
  const fresh = () => ({ ...env, REDIS_URL: `${redis.url}/${++db}` });

  it("ten processes with the Redis token cache make one token request in total", async () => {
    sandbox.resetCounters();
    const shared = fresh();
    const runs = await Promise.all(
      Array.from({ length: 10 }, () => runWorker({ ...shared, CALLS: "me,sites,me" })),
    );
    for (const lines of runs) expect(lines.at(-1)).toEqual({ done: true });
    expect(sandbox.counters.tokenRequests).toBe(1);
    expect(sandbox.counters.requests["GET /v1/me"]).toBe(20);
  }, 60_000);

  it("after one process meets a 429, no process sends before its Retry-After has passed", async () => {
    const shared = fresh();
    await runWorker({ ...shared, CALLS: "me" }); // a token in the cache, so the others start at once
    sandbox.faults.inject({ method: "GET", path: "/v1/sites", status: 429, retryAfter: 1 });
    const first = await runWorker({ ...shared, CALLS: "sites", MAX_RETRIES: "0" });
    const limited = first.find((line) => line.status === 429);
    expect(first.at(-1)).toEqual({ error: "RateLimitError" });
    expect(limited?.at).toBeDefined();

    const others = await Promise.all([
      runWorker({ ...shared, CALLS: "me,sites" }),
      runWorker({ ...shared, CALLS: "sites" }),
    ]);
    const sends = others.flat().filter((line) => line.at !== undefined);
    expect(sends.length).toBe(3);
    for (const line of sends) {
      expect(line.status).toBe(200);
      expect(line.at).toBeGreaterThanOrEqual((limited?.at as number) + 1_000);
    }
  }, 60_000);
});
