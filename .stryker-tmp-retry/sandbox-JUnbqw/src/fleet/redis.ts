/**
 * The few Redis commands the fleet features need, over the client a partner already has: node-redis
 * v4/v5 or ioredis, told apart by shape, so this package loads no Redis library of its own.
 */
// @ts-nocheck


/** A connected node-redis v4/v5 client (or cluster). */
export interface NodeRedisLike {
  /** Reads the shared token. */
  get(key: string): Promise<unknown>;
  /** Stores the token (`PX`), or takes the mint lock (`PX` with `NX`). */
  set(key: string, value: string, options: { PX: number; NX?: true }): Promise<unknown>;
  /** Runs the small atomic scripts: releasing a lock, closing and reading the gate. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** A connected ioredis client (or cluster). */
export interface IoRedisLike {
  /** ioredis's connection state; how an ioredis client is told apart from a node-redis one. */
  status: string;
  /** Reads the shared token. */
  get(key: string): Promise<unknown>;
  /** Stores the token. */
  set(key: string, value: string, px: "PX", ms: number): Promise<unknown>;
  /** Takes the mint lock. */
  set(key: string, value: string, px: "PX", ms: number, nx: "NX"): Promise<unknown>;
  /** Runs the small atomic scripts: releasing a lock, closing and reading the gate. */
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** Either Redis client, connected. */
export type RedisLike = NodeRedisLike | IoRedisLike;

/** One calling convention for both clients. */
export interface RedisCommands {
  get(key: string): Promise<string | null>;
  /** `SET key value PX ms [NX]`; true when the value was written. */
  set(key: string, value: string, ms: number, onlyIfAbsent?: boolean): Promise<boolean>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
}

export function redisCommands(client: RedisLike, caller: string): RedisCommands {
  if (typeof client?.get !== "function" || typeof client.set !== "function") {
    throw new TypeError(`${caller} needs a connected node-redis or ioredis client.`);
  }
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  if (typeof (client as IoRedisLike).status === "string") {
    const io = client as IoRedisLike;
    return {
      get: async (key) => text(await io.get(key)),
      set: async (key, value, ms, onlyIfAbsent) =>
        (onlyIfAbsent
          ? await io.set(key, value, "PX", ms, "NX")
          : await io.set(key, value, "PX", ms)) != null,
      eval: (script, keys, args) => io.eval(script, keys.length, ...keys, ...args),
    };
  }
  const node = client as NodeRedisLike;
  return {
    get: async (key) => text(await node.get(key)),
    set: async (key, value, ms, onlyIfAbsent) =>
      (await node.set(key, value, onlyIfAbsent ? { PX: ms, NX: true } : { PX: ms })) != null,
    eval: (script, keys, args) => node.eval(script, { keys, arguments: args }),
  };
}
