/**
 * Where the time of one call goes, in-process (no sockets, no server): parsing, money conversion,
 * and the rest of each client's request path. Same page text for everyone.
 */
import { decodeBody } from "../src/core/money";
import { PartnerOrders } from "../src/index";
import { convertTotals, handWritten } from "./contenders";
import { generateOrders, PAGE_SIZE, pageBody } from "./fixture";
import { median } from "./stats";

export interface BreakdownRow {
  label: string;
  /** Median µs per operation over batches. */
  us: number;
}

/** Median over `batches` of the mean time per operation in a batch of `perBatch`, in µs. */
async function timeIt(
  fn: () => unknown | Promise<unknown>,
  perBatch: number,
  batches = 15,
): Promise<number> {
  for (let i = 0; i < perBatch; i++) await fn();
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < perBatch; i++) await fn();
    samples.push(((performance.now() - started) * 1000) / perBatch);
  }
  return median(samples);
}

export async function breakdown(): Promise<{
  rows: BreakdownRow[];
  pageBytes: number;
  moneyFields: number;
}> {
  const orders = generateOrders(PAGE_SIZE);
  const text = pageBody(orders, 0, PAGE_SIZE);
  const single = JSON.stringify(orders[0]);
  const moneyFields = orders.reduce(
    (n, o) => n + Object.values(o.totals).filter((v) => v !== null).length,
    0,
  );

  const answer = (body: string) => async () =>
    new Response(body, { headers: { "content-type": "application/json" } });
  const inProcess = (body: string) => {
    const respond = answer(body);
    return async (input: RequestInfo | URL): Promise<Response> => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith("/oauth2/token")) {
        return new Response('{"access_token":"bench-token","expires_in":3600}');
      }
      return respond();
    };
  };
  const sdkFor = (body: string) =>
    new PartnerOrders({
      baseUrl: "https://api.bench.test",
      clientId: "bench",
      clientSecret: "bench",
      fetch: inProcess(body) as typeof fetch,
    });
  const original = globalThis.fetch;
  const handFor = (body: string) => {
    const contender = handWritten("https://api.bench.test", "bench-token");
    return {
      contender,
      run: async <T>(fn: () => Promise<T>) => {
        globalThis.fetch = inProcess(body) as typeof fetch;
        try {
          return await fn();
        } finally {
          globalThis.fetch = original;
        }
      },
    };
  };

  const pageSdk = sdkFor(text);
  const orderSdk = sdkFor(single);
  await orderSdk.orders.get(1);
  const pageHand = handFor(text);
  const orderHand = handFor(single);

  const rows: BreakdownRow[] = [
    { label: "JSON.parse of the page", us: await timeIt(() => JSON.parse(text), 100) },
    {
      label: "JSON.parse + new Decimal per money field (hand-written)",
      us: await timeIt(() => {
        const body = JSON.parse(text) as { orders: { totals: unknown }[] };
        for (const order of body.orders) convertTotals(order);
      }, 50),
    },
    {
      label: "SDK decodeBody (parse + convert)",
      us: await timeIt(() => decodeBody("listOrders", text), 50),
    },
    {
      label: "whole page call, hand-written fetch (in-process Response)",
      us: await pageHand.run(() => timeIt(() => pageHand.contender.getPage(), 50)),
    },
    {
      label: "whole page call, SDK (in-process fetch)",
      us: await timeIt(() => pageSdk.orders.list({ limit: PAGE_SIZE }), 50),
    },
    {
      label: "one order call, hand-written fetch (in-process Response)",
      us: await orderHand.run(() => timeIt(() => orderHand.contender.getOrder(1), 200)),
    },
    {
      label: "one order call, SDK (in-process fetch)",
      us: await timeIt(() => orderSdk.orders.get(1), 200),
    },
  ];
  return { rows, pageBytes: Buffer.byteLength(text), moneyFields };
}
