import { PartnerOrders } from "../../src/client";
import type { ClientOptions } from "../../src/core/options";
import { FakeClock } from "./fake-clock";
import { baseUrl, FakeServer } from "./fake-server";
import { bridge } from "./wire";

export interface Harness {
  client: PartnerOrders;
  server: FakeServer;
  clock: FakeClock;
}

/**
 * A client wired to a fresh fake server and fake clock; `options` override the defaults. Over
 * undici (test/support/wire.ts) the fake server answers on a loopback socket instead of as `fetch`.
 */
export function harness(options: ClientOptions = {}): Harness {
  const server = new FakeServer();
  const clock = new FakeClock();
  if (bridge) bridge.use(server.fetch as (request: Request) => Promise<Response>);
  const client = new PartnerOrders({
    baseUrl: bridge ? bridge.url : baseUrl,
    clientId: "client-id",
    clientSecret: "client-secret",
    ...(bridge ? {} : { fetch: server.fetch }),
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
