import type { RateLimitGate } from "../core/rate-limit-gate";
import { type RedisLike, redisCommands } from "./redis";

export type { RateLimitGate } from "../core/rate-limit-gate";

/** Options of {@link createRedisRateLimitGate}. */
export interface RedisRateLimitGateOptions {
  /**
   * The key shared by every process that uses one credential.
   * @default "partner-orders:rate-limit"
   */
  key?: string;
}

// The key's own expiry is the closure, measured by Redis alone, so the processes' clocks never have
// to agree. A closure is only ever lengthened.
const CLOSE = `local left = redis.call("PTTL", KEYS[1])
if left < tonumber(ARGV[1]) then redis.call("SET", KEYS[1], "1", "PX", ARGV[1]) end
return 1`;
const WAIT = `return redis.call("PTTL", KEYS[1])`;

/**
 * A {@link RateLimitGate} on a Redis client you create and connect (node-redis v4/v5 or ioredis).
 *
 * @example
 * const client = new PartnerOrders({ clientId, clientSecret, rateLimitGate: createRedisRateLimitGate(redis) });
 */
export function createRedisRateLimitGate(
  client: RedisLike,
  options: RedisRateLimitGateOptions = {},
): RateLimitGate {
  const redis = redisCommands(client, "createRedisRateLimitGate");
  const key = options.key ?? "partner-orders:rate-limit";
  return {
    async waitMs() {
      // PTTL answers -2 for no key (gate open) and -1 for a key without expiry (never written so).
      return Math.max(0, Number(await redis.eval(WAIT, [key], [])) || 0);
    },
    async close(ms) {
      if (!(ms >= 1)) return;
      await redis.eval(CLOSE, [key], [String(Math.ceil(ms))]);
    },
  };
}
