import { createRedisTokenCache, type SharedToken, type TokenCache } from "partner-orders/fleet";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainSharedToken, type SharedTokenRequest } from "../../src/core/shared-token.js";
import { tokenCacheKey } from "../../src/core/token-cache.js";
import { type RedisServer, redisAvailable, startRedis } from "../support/redis.js";

/** A clock whose sleeps advance it at once and yield, so waits cost no real time. */
function manualTime(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: async (ms: number) => {
      now += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function memoryCache(): TokenCache & { stored: Map<string, SharedToken>; locked: Set<string> } {
  const stored = new Map<string, SharedToken>();
  const locked = new Set<string>();
  return {
    stored,
    locked,
    async get(key) {
      return stored.get(key);
    },
    async set(key, token) {
      stored.set(key, token);
    },
    async lock(key) {
      if (locked.has(key)) return undefined;
      locked.add(key);
      return { release: async () => void locked.delete(key) };
    },
  };
}

function request(
  cache: TokenCache,
  time: ReturnType<typeof manualTime>,
  overrides: Partial<SharedTokenRequest> = {},
) {
  const errors: unknown[] = [];
  let minted = 0;
  const base: SharedTokenRequest = {
    cache,
    key: "cred",
    now: time.now,
    sleep: time.sleep,
    onCacheError: (error) => errors.push(error),
    mint: async () => {
      minted += 1;
      return {
        accessToken: `local-${minted}`,
        refreshAt: time.now() + 3_000_000,
        expiresAt: time.now() + 3_600_000,
      };
    },
    ...overrides,
  };
  return { base, errors, minted: () => minted };
}

describe("obtainSharedToken", () => {
  it("uses a fresh stored token without minting", async () => {
    const time = manualTime();
    const cache = memoryCache();
    cache.stored.set("cred", {
      accessToken: "shared",
      refreshAt: time.now() + 1,
      expiresAt: time.now() + 2,
    });
    const r = request(cache, time);
    expect((await obtainSharedToken(r.base)).accessToken).toBe("shared");
    expect(r.minted()).toBe(0);
  });

  it("mints under the lock, stores the token and gives the lock back", async () => {
    const time = manualTime();
    const cache = memoryCache();
    cache.stored.set("cred", {
      accessToken: "old",
      refreshAt: time.now(),
      expiresAt: time.now() + 10,
    });
    const r = request(cache, time);
    expect((await obtainSharedToken(r.base)).accessToken).toBe("local-1");
    expect(cache.stored.get("cred")?.accessToken).toBe("local-1");
    expect(cache.locked.size).toBe(0);
  });

  it("keeps sending a due-but-valid token while another process mints", async () => {
    const time = manualTime();
    const cache = memoryCache();
    cache.locked.add("cred");
    cache.stored.set("cred", {
      accessToken: "old",
      refreshAt: time.now(),
      expiresAt: time.now() + 10,
    });
    const r = request(cache, time);
    expect((await obtainSharedToken(r.base)).accessToken).toBe("old");
    expect(r.minted()).toBe(0);
  });

  it("waits for the minting process's token instead of minting too", async () => {
    const time = manualTime();
    const cache = memoryCache();
    cache.locked.add("cred");
    const r = request(cache, time, {
      sleep: async (ms) => {
        await time.sleep(ms);
        // The other process stores its token 200 ms into the wait.
        if (time.now() >= 1_000_200 && !cache.stored.has("cred"))
          cache.stored.set("cred", {
            accessToken: "theirs",
            refreshAt: time.now() + 9e5,
            expiresAt: time.now() + 1e6,
          });
      },
    });
    expect((await obtainSharedToken(r.base)).accessToken).toBe("theirs");
    expect(r.minted()).toBe(0);
    expect(time.now()).toBeLessThan(1_000_300);
  });

  it("mints locally when the minting process never stores a token (it died)", async () => {
    const time = manualTime();
    const cache = memoryCache();
    cache.locked.add("cred");
    const r = request(cache, time, { waitMs: 2_000 });
    expect((await obtainSharedToken(r.base)).accessToken).toBe("local-1");
    expect(time.now() - 1_000_000).toBeGreaterThanOrEqual(2_000);
    expect(time.now() - 1_000_000).toBeLessThan(2_100);
  });

  it("mints locally and reports it when the cache is down", async () => {
    const time = manualTime();
    const down: TokenCache = {
      get: () => Promise.reject(new Error("connection refused")),
      set: () => Promise.reject(new Error("connection refused")),
      lock: () => Promise.reject(new Error("connection refused")),
    };
    const r = request(down, time);
    expect((await obtainSharedToken(r.base)).accessToken).toBe("local-1");
    expect(r.errors).toHaveLength(1);
  });

  it("still returns the minted token when storing it fails", async () => {
    const time = manualTime();
    const cache = memoryCache();
    cache.set = () => Promise.reject(new Error("READONLY"));
    const r = request(cache, time);
    expect((await obtainSharedToken(r.base)).accessToken).toBe("local-1");
    expect(r.errors).toHaveLength(1);
    expect(cache.locked.size).toBe(0);
  });

  it("keys a credential by base URL, client id and scopes, never by the secret", async () => {
    const key = await tokenCacheKey("https://api.example.com", "client-1", [
      "orders:read",
      "sites:read",
    ]);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(
      await tokenCacheKey("https://api.example.com", "client-1", ["sites:read", "orders:read"]),
    ).toBe(key);
    expect(
      await tokenCacheKey("https://api.example.com", "client-2", ["orders:read", "sites:read"]),
    ).not.toBe(key);
    expect(await tokenCacheKey("https://api.example.com", "client-1", ["orders:read"])).not.toBe(
      key,
    );
    expect(
      await tokenCacheKey("https://other.example.com", "client-1", ["orders:read", "sites:read"]),
    ).not.toBe(key);
  });
});

const available = redisAvailable();
describe.runIf(available)("obtainSharedToken on a real redis-server", () => {
  let server: RedisServer;
  const connections: { quit(): Promise<unknown> }[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const c of connections) await c.quit().catch(() => undefined);
    await server.stop();
  });

  it("ten processes that start cold together make one token request", async () => {
    const time = manualTime();
    let minted = 0;
    const tokens = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const redis = await createClient({ url: server.url }).connect();
        connections.push(redis);
        return obtainSharedToken({
          cache: createRedisTokenCache(redis, { prefix: "cold:" }),
          key: "cred",
          now: time.now,
          sleep: time.sleep,
          onCacheError: (error) => {
            throw error;
          },
          mint: async () => {
            minted += 1;
            // The token request takes a while; the others must wait for it, not mint.
            for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
            return {
              accessToken: `t${minted}`,
              refreshAt: time.now() + 9e5,
              expiresAt: time.now() + 1e6,
            };
          },
        });
      }),
    );
    expect(minted).toBe(1);
    expect(new Set(tokens.map((t) => t.accessToken))).toEqual(new Set(["t1"]));
  });
});
