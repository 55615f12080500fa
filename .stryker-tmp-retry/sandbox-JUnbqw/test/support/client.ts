// @ts-nocheck
import { PartnerOrders } from "../../src/client";
import type { ClientOptions } from "../../src/core/options";
import { FakeClock } from "./fake-clock";
import { baseUrl, FakeServer } from "./fake-server";

export interface Harness {
  client: PartnerOrders;
  server: FakeServer;
  clock: FakeClock;
}

/** A client wired to a fresh fake server and fake clock; `options` override the defaults. */
export function harness(options: ClientOptions = {}): Harness {
  const server = new FakeServer();
  const clock = new FakeClock();
  const client = new PartnerOrders({
    baseUrl,
    clientId: "client-id",
    clientSecret: "client-secret",
    fetch: server.fetch,
    clock,
    ...options,
  });
  return { client, server, clock };
}

/**
 * Resolves with what `call` rejected with (or threw, when given as a function); fails the test when
 * it succeeds.
 */
export async function rejection(call: PromiseLike<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof call === "function" ? call() : call);
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, and it succeeded");
}
