/**
 * Client CPU per request for the requests of a first sync of every order: the list walked in pages
 * of 200, then each order read once, 16 in flight, against the bench server in its own process.
 * Two clients make the same requests: the SDK (money converted, as partners get it) and a bare
 * `undici.request` loop that only parses the JSON, the floor a Node client can reach.
 */
import { PartnerOrders } from "../src/index";
import type { Credentials } from "./contenders";
import { median } from "./stats";

export interface FirstSyncFigures {
  requests: number;
  /** CPU per request, µs, one figure per round. */
  sdkUs: number[];
  bareUs: number[];
}

const CONCURRENCY = 16;

async function inParallel<T>(items: T[], run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++] as T);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** user + system CPU of this process while `run` runs, µs. */
async function cpu(run: () => Promise<number>): Promise<{ requests: number; us: number }> {
  const before = process.cpuUsage();
  const requests = await run();
  const used = process.cpuUsage(before);
  return { requests, us: used.user + used.system };
}

export async function firstSyncCpu(
  baseUrl: string,
  credentials: Credentials,
  token: string,
  rounds = 3,
): Promise<FirstSyncFigures> {
  const undici = await import("undici");
  const dispatcher = new undici.Agent();
  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
  const getJson = async (path: string) => {
    const { statusCode, body } = await undici.request(`${baseUrl}${path}`, { headers, dispatcher });
    const data = (await body.json()) as Record<string, unknown>;
    if (statusCode !== 200) throw new Error(`GET ${path} answered ${statusCode}`);
    return data;
  };
  const bare = async () => {
    const numbers: number[] = [];
    let cursor: string | null = null;
    let requests = 0;
    do {
      const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await getJson(`/v1/orders?limit=200${query}`);
      requests++;
      for (const order of page.orders as { orderNumber: number }[]) numbers.push(order.orderNumber);
      cursor = (page.nextCursor as string | null) ?? null;
    } while (cursor !== null);
    await inParallel(numbers, (n) => getJson(`/v1/orders/${n}`));
    return requests + numbers.length;
  };

  const client = new PartnerOrders({ baseUrl, ...credentials, scopes: ["orders:read"] });
  const sdk = async () => {
    const numbers: number[] = [];
    let requests = 0;
    for await (const page of client.orders.list({ limit: 200 }).pages()) {
      requests++;
      for (const order of page.data) numbers.push(order.orderNumber);
    }
    await inParallel(numbers, (n) => client.orders.get(n));
    return requests + numbers.length;
  };

  // Warm both (the SDK's token, undici's sockets) before timing.
  await client.orders.list({ limit: 1 }).pages().next();
  await getJson("/v1/orders?limit=1");
  const figures: FirstSyncFigures = { requests: 0, sdkUs: [], bareUs: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ([sdk, bare] as const) : ([bare, sdk] as const);
    for (const run of order) {
      const { requests, us } = await cpu(run);
      figures.requests = requests;
      (run === sdk ? figures.sdkUs : figures.bareUs).push(us / requests);
    }
  }
  await dispatcher.close();
  return figures;
}

/** SDK / bare, per round, median. */
export function firstSyncRatio(f: FirstSyncFigures): number {
  return median(f.sdkUs.map((us, i) => us / (f.bareUs[i] ?? Number.NaN)));
}
