/**
 * Memory while syncing many orders: 200,000 orders (1,000 pages of 200) through
 * `for await (const order of client.orders.list())`. Run by run.ts in its own process with
 * `--expose-gc`, so nothing else lives in this heap; prints one JSON line.
 *
 * The client is given an in-process `fetch` that answers the token endpoint and GET /v1/orders from
 * pre-rendered page bodies (the fixture's shape, a new cursor each page). 1,000 pages over loopback
 * would measure the socket more than the client, and the goal is about what the client keeps.
 *
 * Each answer first yields to the event loop, as a socket read does. Without that the whole run is
 * one microtask job, and V8 keeps every WeakRef target touched during a job until the job ends
 * (undici's Request keeps a WeakRef to its AbortController), which would show as ~2 KB "kept" per
 * request: an artefact of the fake, not something a client on a real network sees.
 */
import { type Decimal, PartnerOrders } from "../src/index";
import { convertTotals } from "./contenders";
import { cursorFor, generateOrders, indexOfCursor, PAGE_SIZE } from "./fixture";

const PAGES = Number(process.env.BENCH_HEAP_PAGES ?? 1_000);
/** `sdk`: this SDK's `for await`; `fetch`: the hand-written loop, for comparison. */
const MODE = process.argv[2] === "fetch" ? "fetch" : "sdk";
const DISTINCT = 10;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const orders = generateOrders(PAGE_SIZE * DISTINCT);
const arrays = Array.from({ length: DISTINCT }, (_, k) =>
  JSON.stringify(orders.slice(k * PAGE_SIZE, (k + 1) * PAGE_SIZE)),
);
const json = (body: string) =>
  new Response(body, { headers: { "content-type": "application/json" } });

const fakeFetch = async (input: RequestInfo | URL): Promise<Response> => {
  await new Promise<void>((resolve) => setImmediate(resolve));
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.pathname === "/oauth2/token") {
    return json('{"access_token":"bench-token","token_type":"Bearer","expires_in":3600}');
  }
  const cursor = url.searchParams.get("cursor");
  const page = cursor === null ? 0 : (indexOfCursor(cursor) ?? 0) / PAGE_SIZE;
  const next = page + 1 < PAGES ? JSON.stringify(cursorFor((page + 1) * PAGE_SIZE)) : "null";
  return json(`{"orders":${arrays[page % DISTINCT]},"nextCursor":${next}}`);
};

const client = new PartnerOrders({
  baseUrl: "https://api.bench.test",
  clientId: "bench",
  clientSecret: "bench",
  fetch: fakeFetch as typeof fetch,
});

const heap = () => process.memoryUsage().heapUsed;
gc();
const before = heap();
let peak = before;
let atPage100 = 0;
let atLastPage = 0;
let count = 0;
let sum = 0;
const started = performance.now();
/** The hand-written equivalent: fetch, JSON.parse, new Decimal per money field, in a generator. */
async function* handWritten(): AsyncGenerator<{ totals: { order: Decimal | null } }> {
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const response = await fakeFetch(`https://api.bench.test/v1/orders?limit=${PAGE_SIZE}${query}`);
    const body = JSON.parse(await response.text()) as {
      orders: { totals: { order: Decimal | null } }[];
      nextCursor: string | null;
    };
    for (const order of body.orders) convertTotals(order);
    yield* body.orders;
    cursor = body.nextCursor;
  } while (cursor !== null);
}

const source = MODE === "sdk" ? client.orders.list({ limit: PAGE_SIZE }) : handWritten();
for await (const order of source) {
  count++;
  // Read one money field, as a sync job would, so conversion is not optimised away.
  if (order.totals.order !== null) sum += order.totals.order.isZero() ? 0 : 1;
  if (count % PAGE_SIZE === 0) {
    const page = count / PAGE_SIZE;
    peak = Math.max(peak, heap());
    if (page === 100) {
      gc();
      atPage100 = heap();
    } else if (page === PAGES) {
      gc();
      atLastPage = heap();
    }
  }
}
const ms = performance.now() - started;

process.stdout.write(
  `${JSON.stringify({
    mode: MODE,
    orders: count,
    pages: count / PAGE_SIZE,
    seconds: ms / 1000,
    peakAboveStartMB: (peak - before) / 2 ** 20,
    keptPage100ToLastMB: (atLastPage - atPage100) / 2 ** 20,
    nonZeroTotals: sum,
  })}\n`,
);
