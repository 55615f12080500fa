/**
 * A mirror process that dies mid-sweep, for the stale-lease test: syncs a SQLite file against the
 * sandbox over HTTP and, once its sweep asks for the list's second page, prints `{"stuck":true}`
 * and waits there for ever (the test then SIGKILLs it, lease and writer claim still held).
 */
import { PartnerOrders } from "../../src/client";
import { OrderMirror, sqliteStore } from "../../src/sync/index";

const env = process.env;
const mirror = new OrderMirror({
  client: new PartnerOrders({
    baseUrl: env.BASE_URL,
    clientId: env.CLIENT_ID,
    clientSecret: env.CLIENT_SECRET,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (url.pathname === "/v1/orders" && url.searchParams.has("cursor")) {
        process.stdout.write(`${JSON.stringify({ stuck: true, pid: process.pid })}\n`);
        return new Promise<Response>(() => undefined);
      }
      return fetch(request);
    },
  }),
  store: sqliteStore(env.DB_PATH as string),
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
await mirror.sync();
