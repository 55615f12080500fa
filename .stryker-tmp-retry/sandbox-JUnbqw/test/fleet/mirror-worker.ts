/**
 * One process of a partner's fleet running the mirror, for the multi-process test: `run()` on a
 * shared PostgreSQL store against the sandbox over HTTP, until SIGTERM. Prints one JSON line per
 * HTTP request it sends ({ worker, at, path, search }), then { worker, done: true } after a clean stop.
 */
// @ts-nocheck

import { PartnerOrders } from "../../src/client";
import { OrderMirror, postgresStore } from "../../src/sync/index";

const env = process.env;
const worker = env.WORKER ?? "?";
const print = (line: object) => process.stdout.write(`${JSON.stringify({ worker, ...line })}\n`);
const client = new PartnerOrders({
  baseUrl: env.BASE_URL,
  clientId: env.CLIENT_ID,
  clientSecret: env.CLIENT_SECRET,
  fetch: async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    print({ at: Date.now(), path: url.pathname, search: url.search });
    return fetch(request);
  },
});
const mirror = new OrderMirror({
  client,
  store: postgresStore(env.DATABASE_URL as string),
  sweepIntervalMs: Number(env.SWEEP_MS),
  openOrderIntervalMs: Number(env.OPEN_MS),
  sweepLeaseMs: Number(env.LEASE_MS),
  logger: {
    debug() {},
    info() {},
    warn: (...a) => print({ warn: a }),
    error: (...a) => print({ error: a }),
  },
});
const stop = new AbortController();
process.on("SIGTERM", () => stop.abort());
await mirror.run({ signal: stop.signal });
await mirror.close();
print({ done: true });
