import type { SharedToken, TokenCache } from "../core/token-cache";
import { type RedisLike, redisCommands } from "./redis";

export type { SharedToken, TokenCache, TokenCacheLock } from "../core/token-cache";

/** Options of {@link createRedisTokenCache}. */
export interface RedisTokenCacheOptions {
  /**
   * Prefix of every key. Processes that share tokens use the same one.
   * @default "partner-orders:token:"
   */
  prefix?: string;
}

// Deletes the lock only when it still holds this process's value, so a claim that outlived its TTL
// and was taken over is never released by its former holder.
const RELEASE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/**
 * A {@link TokenCache} on a Redis client you create and connect (node-redis v4/v5 or ioredis).
 *
 * @example
 * import { createClient } from "redis";
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = new PartnerOrders({ clientId, clientSecret, tokenCache: createRedisTokenCache(redis) });
 */
export function createRedisTokenCache(
  client: RedisLike,
  options: RedisTokenCacheOptions = {},
): TokenCache {
  const redis = redisCommands(client, "createRedisTokenCache");
  const prefix = options.prefix ?? "partner-orders:token:";
  return {
    async get(key) {
      return parseSharedToken(await redis.get(prefix + key));
    },
    async set(key, token, ttlMs) {
      if (ttlMs >= 1) await redis.set(prefix + key, JSON.stringify(token), Math.ceil(ttlMs));
    },
    async lock(key, ttlMs) {
      const lockKey = `${prefix + key}:lock`;
      const holder = crypto.randomUUID();
      const taken = await redis.set(lockKey, holder, Math.max(1, Math.ceil(ttlMs)), true);
      if (!taken) return undefined;
      return {
        release: async () => {
          await redis.eval(RELEASE, [lockKey], [holder]);
        },
      };
    },
  };
}

/** A stored token read back; anything that is not one (another writer, a damaged value) is none. */
export function parseSharedToken(text: string | null | undefined): SharedToken | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<SharedToken>;
    if (
      typeof value.accessToken === "string" &&
      value.accessToken !== "" &&
      Number.isFinite(value.expiresAt) &&
      Number.isFinite(value.refreshAt)
    ) {
      return {
        accessToken: value.accessToken,
        expiresAt: value.expiresAt as number,
        refreshAt: value.refreshAt as number,
      };
    }
  } catch {
    // Not JSON: treated as no token, so a new one is minted.
  }
  return undefined;
}
