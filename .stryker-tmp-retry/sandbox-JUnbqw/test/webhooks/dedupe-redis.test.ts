// @ts-nocheck
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { createRedisDedupeStore } from "partner-orders/webhooks";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The one test allowed to skip: it needs a real redis-server binary (CI installs one).
const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;
if (!hasRedis)
  console.warn("Skipping the Redis dedupe store test: no redis-server binary on PATH.");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("createRedisDedupeStore against a real redis-server", () => {
  let server: ChildProcess | undefined;
  let client: ReturnType<typeof createClient> | undefined;

  beforeAll(async () => {
    if (!hasRedis) return;
    const port = await freePort();
    server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    // Ready once it logs that it accepts connections.
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("Ready to accept connections")) resolve();
      });
      server?.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
    client = createClient({ socket: { host: "127.0.0.1", port } });
    await client.connect();
  });

  afterAll(async () => {
    await client?.quit().catch(() => undefined);
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once("exit", resolve));
      server.kill();
      await exited;
    }
  });

  it.skipIf(!hasRedis)("claims an id exactly once, even concurrently", async () => {
    const store = createRedisDedupeStore(client as NonNullable<typeof client>, { prefix: "t1:" });
    const answers = await Promise.all(Array.from({ length: 10 }, () => store.claim("evt_1")));
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await store.claim("evt_2")).toBe(true);
  });

  it.skipIf(!hasRedis)("sets the TTL on the key and releases it", async () => {
    const redis = client as NonNullable<typeof client>;
    const store = createRedisDedupeStore(redis, { prefix: "t2:", ttlMs: 60_000 });
    await store.claim("evt_1");
    const ttl = await redis.pTTL("t2:evt_1");
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await store.release?.("evt_1");
    expect(await redis.exists("t2:evt_1")).toBe(0);
    expect(await store.claim("evt_1")).toBe(true);
  });

  it.skipIf(!hasRedis)("forgets an id once its TTL has passed", async () => {
    const redis = client as NonNullable<typeof client>;
    const store = createRedisDedupeStore(redis, { prefix: "t3:", ttlMs: 60_000 });
    await store.claim("evt_1");
    // Expire the key now instead of waiting out the TTL.
    await redis.pExpire("t3:evt_1", 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.claim("evt_1")).toBe(true);
  });
});
