/**
 * One process of a partner's fleet, for the multi-process tests: a client with the Redis token cache
 * and rate-limit gate, making the calls it is told to and printing one JSON line per HTTP request it
 * sends ({ at, path, status }) and a last line { done: true } or { error }.
 */
// @ts-nocheck

import { createClient } from "redis";
import { PartnerOrders } from "../../src/client";
import { createRedisRateLimitGate, createRedisTokenCache } from "../../src/fleet/index";

const env = process.env;
const redis = await createClient({ url: env.REDIS_URL }).connect();
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const client = new PartnerOrders({
  baseUrl: env.BASE_URL,
  clientId: env.CLIENT_ID,
  clientSecret: env.CLIENT_SECRET,
  tokenCache: createRedisTokenCache(redis),
  rateLimitGate: createRedisRateLimitGate(redis),
  maxRetries: Number(env.MAX_RETRIES ?? 2),
  fetch: async (input, init) => {
    const request = new Request(input, init);
    const at = Date.now();
    const response = await fetch(request);
    print({ at, path: new URL(request.url).pathname, status: response.status });
    return response;
  },
});

try {
  for (const call of (env.CALLS ?? "me").split(",")) {
    if (call === "me") await client.me();
    else if (call === "sites") await client.sites.list();
  }
  print({ done: true });
} catch (error) {
  print({ error: error instanceof Error ? error.name : String(error) });
} finally {
  await redis.quit();
}
