/**
 * `partner-orders/fleet`: what the processes of one partner's fleet share through Redis, so they act
 * as one client: one bearer token per credential per expiry, and one wait when the rate limit
 * answers 429. Pass them to the client as `tokenCache` and `rateLimitGate`.
 */
// @ts-nocheck


export {
  createRedisRateLimitGate,
  type RateLimitGate,
  type RedisRateLimitGateOptions,
} from "./rate-limit-gate";
export type { IoRedisLike, NodeRedisLike, RedisLike } from "./redis";
export {
  createRedisTokenCache,
  type RedisTokenCacheOptions,
  type SharedToken,
  type TokenCache,
  type TokenCacheLock,
} from "./token-cache";
