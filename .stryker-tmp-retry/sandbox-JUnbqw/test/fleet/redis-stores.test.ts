// @ts-nocheck
import { Redis as IoRedis } from "ioredis";
import {
  createRedisRateLimitGate,
  createRedisTokenCache,
  type RedisLike,
  type SharedToken,
} from "partner-orders/fleet";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, redisAvailable, startRedis } from "../support/redis.js";

const available = redisAvailable();
let server: RedisServer;
const clients: { quit(): Promise<unknown> }[] = [];

beforeAll(async () => {
  if (available) server = await startRedis();
});
afterAll(async () => {
  for (const client of clients) await client.quit().catch(() => undefined);
  await server?.stop();
});

const connect: Record<string, () => Promise<RedisLike>> = {
  "node-redis": async () => {
    const client = await createClient({ url: server.url }).connect();
    clients.push(client);
    return client;
  },
  ioredis: async () => {
    const client = new IoRedis(server.port, "127.0.0.1");
    clients.push(client);
    return client;
  },
};

const token = (value: string, at = Date.now()): SharedToken => ({
  accessToken: value,
  refreshAt: at + 60_000,
  expiresAt: at + 120_000,
});

describe.runIf(available).each(Object.keys(connect))("Redis fleet stores over %s", (name) => {
  const prefix = `${name}:`;

  it("stores a token for its lifetime and reads it back", async () => {
    const cache = createRedisTokenCache(await connect[name](), { prefix });
    expect(await cache.get("k1")).toBeUndefined();
    await cache.set("k1", token("tok-1", 1_000), 120_000);
    expect(await cache.get("k1")).toEqual(token("tok-1", 1_000));
    const raw = await createClient({ url: server.url }).connect();
    clients.push(raw);
    const ttl = await raw.pTTL(`${prefix}k1`);
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    // A value that is not a token (another writer, a damaged entry) reads as none.
    await raw.set(`${prefix}k2`, "not json");
    expect(await cache.get("k2")).toBeUndefined();
    await raw.set(`${prefix}k3`, JSON.stringify({ accessToken: "", refreshAt: 1, expiresAt: 2 }));
    expect(await cache.get("k3")).toBeUndefined();
  });

  it("gives the lock to exactly one of many processes, and only its holder releases it", async () => {
    const caches = await Promise.all(
      Array.from({ length: 5 }, async () =>
        createRedisTokenCache(await connect[name](), { prefix }),
      ),
    );
    const locks = await Promise.all(caches.map((cache) => cache.lock("k4", 10_000)));
    const held = locks.filter((lock) => lock !== undefined);
    expect(held).toHaveLength(1);
    expect(await caches[0].lock("k4", 10_000)).toBeUndefined();
    await held[0]?.release();
    const next = await caches[1].lock("k4", 10_000);
    expect(next).toBeDefined();
    // The former holder's release must not free a lock that now belongs to someone else.
    await held[0]?.release();
    expect(await caches[2].lock("k4", 10_000)).toBeUndefined();
    await next?.release();
  });

  it("closes the rate-limit gate for the longest closure asked, for every process", async () => {
    const a = createRedisRateLimitGate(await connect[name](), { key: `${prefix}gate` });
    const b = createRedisRateLimitGate(await connect[name](), { key: `${prefix}gate` });
    expect(await b.waitMs()).toBe(0);
    await a.close(30_000);
    const left = await b.waitMs();
    expect(left).toBeGreaterThan(25_000);
    expect(left).toBeLessThanOrEqual(30_000);
    await b.close(1_000); // a shorter closure never shortens a longer one
    expect(await a.waitMs()).toBeGreaterThan(25_000);
    await b.close(45_000);
    expect(await a.waitMs()).toBeGreaterThan(40_000);
    await a.close(0); // nothing to close
    expect(await a.waitMs()).toBeGreaterThan(40_000);
  });
});

describe("Redis fleet stores refuse what is not a Redis client", () => {
  it("throws a TypeError naming the factory", () => {
    expect(() => createRedisTokenCache({} as RedisLike)).toThrow(/createRedisTokenCache/);
    expect(() => createRedisRateLimitGate(null as unknown as RedisLike)).toThrow(
      /createRedisRateLimitGate/,
    );
  });
});
