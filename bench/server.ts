/**
 * The bench server: the sandbox's real HTTP server on loopback, run in its own process so the
 * clients' CPU and memory are measured without the server's. Prints one JSON line
 * `{"url": ..., "orders": ..., "firstOrderNumber": ...}` on stdout once it listens, and exits when
 * stdin closes or on SIGTERM.
 *
 * Everything the sandbox does stays: the token endpoint, authentication on every request, the scope
 * check, request counting. GET /v1/orders is replaced by pages cut from a generated fixture of ORDERS
 * orders (see fixture.ts for why), and GET /v1/orders/{orderNumber} reads the same fixture, so every
 * scenario sees the same data. Two bench-only routes read and reset the sandbox's counters, so the
 * token goal is counted at the server.
 */
import { createSandbox } from "../src/testing";
import { generateOrders, indexOfCursor, PAGE_SIZE, pageBody } from "./fixture";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);

const sandbox = createSandbox({ seed: 1 });
const orders = generateOrders(ORDERS);
const index = new Map(orders.map((o, i) => [o.orderNumber, i]));
/** Bodies cut once per (offset, limit): the server's own cost stays small and equal for every client. */
const bodies = new Map<string, string>();

function page(from: number, limit: number): string {
  const key = `${from}:${limit}`;
  let body = bodies.get(key);
  if (body === undefined) {
    body = pageBody(orders, from, limit);
    bodies.set(key, body);
  }
  return body;
}

const jsonHeaders = (requestId: string) => ({
  "content-type": "application/json",
  "x-request-id": requestId,
});

const problem = (status: number, code: string, detail: string, requestId: string) =>
  new Response(
    JSON.stringify({ type: "about:blank", title: "Bad Request", status, code, detail, requestId }),
    { status, headers: { "content-type": "application/problem+json", "x-request-id": requestId } },
  );

sandbox.route({
  method: "GET",
  path: "/v1/orders",
  scope: "partner-api/orders:read",
  handle(ctx) {
    const rawLimit = ctx.query.get("limit");
    // Default 50, capped at 200 (API document, GET /v1/orders).
    const limit = Math.min(
      PAGE_SIZE,
      rawLimit && /^[1-9]\d*$/.test(rawLimit) ? Number(rawLimit) : 50,
    );
    const cursor = ctx.query.get("cursor");
    const from = cursor === null ? 0 : indexOfCursor(cursor);
    if (from === null) {
      return problem(400, "invalid_cursor", "The cursor cannot be used here.", ctx.requestId);
    }
    return new Response(page(from, limit), { status: 200, headers: jsonHeaders(ctx.requestId) });
  },
});

// The single-order scenario reads fixture orders too, so all three scenarios see the same data.
sandbox.route({
  method: "GET",
  path: "/v1/orders/{orderNumber}",
  scope: "partner-api/orders:read",
  handle(ctx) {
    const i = index.get(Number(ctx.params.orderNumber));
    if (i === undefined) {
      return problem(404, "order_not_found", "Order not found.", ctx.requestId);
    }
    return new Response(JSON.stringify(orders[i]), {
      status: 200,
      headers: jsonHeaders(ctx.requestId),
    });
  },
});

sandbox.route({
  method: "GET",
  path: "/bench/counters",
  auth: "none",
  handle: (ctx) =>
    new Response(JSON.stringify(sandbox.counters), { headers: jsonHeaders(ctx.requestId) }),
});

sandbox.route({
  method: "POST",
  path: "/bench/reset",
  auth: "none",
  handle(ctx) {
    sandbox.resetCounters();
    return new Response("{}", { headers: jsonHeaders(ctx.requestId) });
  },
});

const listener = await sandbox.listen();
process.stdout.write(
  `${JSON.stringify({ url: listener.url, orders: ORDERS, firstOrderNumber: orders[0]?.orderNumber })}\n`,
);

let closing = false;
const shutdown = async () => {
  if (closing) return;
  closing = true;
  await sandbox.close();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
process.stdin.on("end", shutdown);
process.stdin.on("close", shutdown);
process.stdin.resume();
