/**
 * Dedupe stores. Duplicates of a delivery are possible and are recognised by `eventId` (API
 * document, Events rule 4); a store remembers which ids were already handled.
 */
// @ts-nocheck

export interface DedupeStore {
  /**
   * Records `eventId` and answers whether this is the first time it was seen. Must be atomic: of two
   * concurrent claims of one id, exactly one gets `true`.
   */
  claim(eventId: string): Promise<boolean>;
  /**
   * Forgets `eventId` so a later duplicate is handled again; called when handling it failed.
   * Optional: without it a failed event stays claimed until its TTL ends.
   */
  release?(eventId: string): Promise<void>;
}

/** How long an id is remembered: well beyond any plausible gap between two copies of a delivery. */
export const DEFAULT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/** Options of {@link createMemoryDedupeStore}: how many ids it keeps, and for how long. */
export interface MemoryDedupeStoreOptions {
  /**
   * Most ids kept; the oldest are forgotten first, so memory stays bounded.
   * @default 10000
   */
  maxEntries?: number;
  /** How long an id is remembered, in milliseconds. @default 86400000 (24 h) */
  ttlMs?: number;
  /** Wall-clock milliseconds; injectable for tests. @default Date.now */
  now?: () => number;
}

/**
 * An in-memory store for a receiver that runs as one process (the handler's default). Receivers on
 * several instances share a store instead: {@link createRedisDedupeStore}.
 */
export function createMemoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  const maxEntries = positive(options.maxEntries ?? 10_000, "maxEntries");
  const ttlMs = positive(options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS, "ttlMs");
  const now = options.now ?? Date.now;
  // Insertion order is expiry order (one TTL for all), so the oldest entries are always first.
  const expiresAt = new Map<string, number>();

  return {
    async claim(eventId) {
      const at = now();
      if ((expiresAt.get(eventId) ?? at) > at) return false;
      // Deleted first, so a re-claimed id moves to the end and the order stays expiry order.
      expiresAt.delete(eventId);
      expiresAt.set(eventId, at + ttlMs);
      for (const [id, expiry] of expiresAt) {
        if (expiry > at && expiresAt.size <= maxEntries) break;
        expiresAt.delete(id);
      }
      return true;
    },
    async release(eventId) {
      expiresAt.delete(eventId);
    },
  };
}

/** A node-redis v4/v5 client (or cluster): `set(key, value, { NX: true, PX })` answers "OK" or null. */
export interface NodeRedisClientLike {
  /** Claims an event: `SET key 1 NX PX ttl`, so only the first claim of an id succeeds. */
  set(key: string, value: string, options: { NX: true; PX: number }): Promise<unknown>;
  /** Releases an event whose handling failed, so a duplicate delivery is handled again. */
  del(key: string): Promise<unknown>;
}

/** An ioredis client (or cluster): `set(key, value, "PX", ms, "NX")` answers "OK" or null. */
export interface IoRedisClientLike {
  /** ioredis's connection state; how an ioredis client is told apart from a node-redis one. */
  status: string;
  /** Claims an event: `SET key 1 PX ttl NX`, so only the first claim of an id succeeds. */
  set(key: string, value: string, px: "PX", ms: number, nx: "NX"): Promise<unknown>;
  /** Releases an event whose handling failed, so a duplicate delivery is handled again. */
  del(key: string): Promise<unknown>;
}

/** Options of {@link createRedisDedupeStore}: where ids are kept, and for how long. */
export interface RedisDedupeStoreOptions {
  /**
   * Prefix of every key (the `eventId` follows). Every instance of one receiver uses the same; two
   * endpoints that both receive an event and share one Redis need different ones.
   * @default "partner-orders:webhook-event:"
   */
  prefix?: string;
  /** How long an id is remembered, in milliseconds. @default 86400000 (24 h) */
  ttlMs?: number;
}

/**
 * A store shared by every instance of a receiver, on a Redis client you create and connect. One
 * atomic `SET key 1 NX PX ttl` per event: the instance whose SET succeeds handles it. The client is
 * recognised by its shape (node-redis v4/v5 or ioredis), so this package loads no Redis library.
 *
 * @example
 * import { createClient } from "redis";
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * createWebhookHandler({ secret, onEvent, dedupe: createRedisDedupeStore(redis) });
 */
export function createRedisDedupeStore(
  client: NodeRedisClientLike | IoRedisClientLike,
  options: RedisDedupeStoreOptions = {},
): DedupeStore {
  if (typeof client?.set !== "function") {
    throw new TypeError("createRedisDedupeStore needs a node-redis or ioredis client.");
  }
  const prefix = options.prefix ?? "partner-orders:webhook-event:";
  const ttlMs = Math.ceil(positive(options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS, "ttlMs"));
  // ioredis is told apart by its `status` (connection state); node-redis has none.
  const set: (key: string) => Promise<unknown> =
    typeof (client as IoRedisClientLike).status === "string"
      ? (key) => (client as IoRedisClientLike).set(key, "1", "PX", ttlMs, "NX")
      : (key) => (client as NodeRedisClientLike).set(key, "1", { NX: true, PX: ttlMs });

  return {
    async claim(eventId) {
      // Both clients answer null when NX found the key, and "OK" when this call set it.
      return (await set(prefix + eventId)) != null;
    },
    async release(eventId) {
      await client.del(prefix + eventId);
    },
  };
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(`${name} must be a positive finite number.`);
  }
  return value;
}
