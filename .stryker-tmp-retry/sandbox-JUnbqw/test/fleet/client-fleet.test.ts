// @ts-nocheck
import { PartnerOrders, RateLimitError } from "partner-orders";
import type { RateLimitGate, SharedToken, TokenCache } from "partner-orders/fleet";
import { createSandbox } from "partner-orders/testing";
import { describe, expect, it } from "vitest";
import { rejection } from "../support/client.js";
import { FakeClock } from "../support/fake-clock.js";

function memoryTokenCache(): TokenCache & { sets: number } {
  const stored = new Map<string, SharedToken>();
  const locked = new Set<string>();
  const cache = {
    sets: 0,
    async get(key: string) {
      return stored.get(key);
    },
    async set(key: string, token: SharedToken) {
      cache.sets += 1;
      stored.set(key, token);
    },
    async lock(key: string) {
      if (locked.has(key)) return undefined;
      locked.add(key);
      return { release: async () => void locked.delete(key) };
    },
  };
  return cache;
}

/** A gate on the test's clock, as Redis keeps it on its own. */
function memoryGate(clock: FakeClock): RateLimitGate & { closes: number[] } {
  let openAt = 0;
  return {
    closes: [],
    async waitMs() {
      return Math.max(0, openAt - clock.now());
    },
    async close(ms) {
      this.closes.push(ms);
      openAt = Math.max(openAt, clock.now() + ms);
    },
  };
}

function fleet(count: number, options: Record<string, unknown>) {
  const sandbox = createSandbox({ clock: "manual" });
  const clock = new FakeClock();
  const clients = Array.from(
    { length: count },
    () =>
      new PartnerOrders({
        baseUrl: sandbox.baseUrl,
        ...sandbox.credentials,
        fetch: sandbox.fetch,
        clock,
        ...options,
      }),
  );
  return { sandbox, clock, clients };
}

describe("tokenCache: one token for a fleet", () => {
  it("several clients sharing a cache make one token request, and each expiry one more", async () => {
    const cache = memoryTokenCache();
    const { sandbox, clock, clients } = fleet(5, { tokenCache: cache });
    await Promise.all(clients.map((client) => client.me()));
    expect(sandbox.counters.tokenRequests).toBe(1);
    await Promise.all(clients.map((client) => client.sites.list()));
    expect(sandbox.counters.tokenRequests).toBe(1);

    // Past the renewal point (the sandbox's tokens live 3,600 s; renewal 360 s before expiry).
    clock.advance(3_300_000);
    sandbox.clock.advance(3_300_000);
    for (const client of clients) await client.me();
    expect(sandbox.counters.tokenRequests).toBe(2);
  });

  it("without a cache each client mints its own token (what the cache saves)", async () => {
    const { sandbox, clients } = fleet(5, {});
    await Promise.all(clients.map((client) => client.me()));
    expect(sandbox.counters.tokenRequests).toBe(5);
  });

  it("keeps working, minting locally, when the cache is down", async () => {
    const down: TokenCache = {
      get: () => Promise.reject(new Error("ECONNREFUSED redis://:hunter2@cache:6379")),
      set: () => Promise.reject(new Error("down")),
      lock: () => Promise.reject(new Error("down")),
    };
    const lines: string[] = [];
    const logger = { warn: (...args: unknown[]) => lines.push(JSON.stringify(args)) };
    const { sandbox, clients } = fleet(1, { tokenCache: down, logger });
    expect((await clients[0].me()).partnerId).toBeTruthy();
    expect(sandbox.counters.tokenRequests).toBe(1);
    expect(lines.join("\n")).toMatch(/token cache unavailable/);
    expect(lines.join("\n")).not.toMatch(/hunter2/);
  });
});

describe("rateLimitGate: a fleet backs off together", () => {
  it("a 429 met by one client holds every client for its Retry-After", async () => {
    const clock = new FakeClock();
    const gate = memoryGate(clock);
    const { sandbox, clients } = fleet(3, { rateLimitGate: gate, clock });
    await Promise.all(clients.map((client) => client.me())); // warm tokens
    sandbox.faults.inject({ method: "GET", path: "/v1/sites", status: 429, retryAfter: 7 });
    // No retry of its own, so the shared clock stays where the 429 came.
    expect(await rejection(clients[0].sites.list({ maxRetries: 0 }))).toBeInstanceOf(
      RateLimitError,
    );
    expect(gate.closes).toEqual([7_000]);

    // The others find the gate closed and sleep before sending anything.
    const before = sandbox.requests.length;
    clock.sleeps.length = 0;
    const startedAt = clock.now();
    await Promise.all([clients[1].me(), clients[2].sites.list()]);
    expect(clock.sleeps).toEqual([7_000, 7_000]);
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(7_000);
    expect(sandbox.requests.length).toBe(before + 2);
  });

  it("a fleet wait longer than 60 s throws RateLimitError without sending", async () => {
    const clock = new FakeClock();
    const gate = memoryGate(clock);
    const { sandbox, clients } = fleet(1, { rateLimitGate: gate, clock });
    await gate.close(90_000);
    const before = sandbox.requests.length;
    const error = await rejection(clients[0].me());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(90);
    expect(sandbox.requests.length).toBe(before);
  });

  it("sends as usual when the gate is unreachable", async () => {
    const gate: RateLimitGate = {
      waitMs: () => Promise.reject(new Error("down")),
      close: () => Promise.reject(new Error("down")),
    };
    const { clients } = fleet(1, { rateLimitGate: gate });
    expect((await clients[0].me()).partnerId).toBeTruthy();
  });
});
