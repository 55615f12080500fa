// @ts-nocheck
import { type RedisLike, redisCommands } from "./redis";

/**
 * A bearer token as every process of a fleet can read it. Times are wall-clock epoch milliseconds:
 * a monotonic clock means nothing outside the process that read it.
 */
export interface SharedToken {
  /** The bearer token itself. */
  accessToken: string;
  /** After this the token is no longer sent. */
  expiresAt: number;
  /** From this on a new token is minted (max(60 s, 10 % of `expires_in`) before expiry). */
  refreshAt: number;
}

/**
 * Where the processes of a fleet share their bearer token, so the fleet makes one token request per
 * credential per expiry instead of one per process (the token endpoint has its own rate limit:
 * API document, Authentication 1). `key` names the credential (base URL, client id and scopes,
 * hashed); the client secret is never part of it.
 */
export interface TokenCache {
  /** The stored token for `key`, if any. */
  get(key: string): Promise<SharedToken | undefined>;
  /** Stores `token` for `key` for `ttlMs` (until it expires, on the minting process's clock). */
  set(key: string, token: SharedToken, ttlMs: number): Promise<void>;
  /**
   * Claims the right to mint for `key` for at most `ttlMs`, so one process mints while the others
   * wait for its token. Undefined when another process holds the claim.
   */
  lock(key: string, ttlMs: number): Promise<TokenCacheLock | undefined>;
}

/** The right to mint, held by one process at a time. */
export interface TokenCacheLock {
  /** Gives the claim back (only if it is still this process's). */
  release(): Promise<void>;
}

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

/**
 * The cache key of a credential: a SHA-256 of what identifies it (never the secret), so keys in a
 * shared Redis reveal nothing and two clients with different scopes never share a token.
 */
export async function tokenCacheKey(
  baseUrl: string,
  clientId: string,
  scopes: readonly string[],
): Promise<string> {
  const identity = JSON.stringify([baseUrl, clientId, [...scopes].sort()]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(identity));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
