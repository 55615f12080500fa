// @ts-nocheck
import { PartnerOrders } from "partner-orders";
import { OrderMirror, type OrderMirrorOptions, sqliteStore } from "partner-orders/sync";
import { createSandbox, type Sandbox } from "partner-orders/testing";

export interface Setup {
  sandbox: Sandbox;
  client: PartnerOrders;
  mirror: OrderMirror;
  /** A new mirror on the same store path (a restarted process). */
  restart(options?: Partial<OrderMirrorOptions>): OrderMirror;
}

/** A sandbox on a manual clock, a client on the same clock, a mirror on a SQLite store. */
export function setup(path = ":memory:", options: Partial<OrderMirrorOptions> = {}): Setup {
  const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
  const client = new PartnerOrders({
    baseUrl: sandbox.baseUrl,
    ...sandbox.credentials,
    fetch: sandbox.fetch,
    clock: sandbox.clock,
  });
  const make = (extra: Partial<OrderMirrorOptions> = {}) =>
    new OrderMirror({
      client,
      store: sqliteStore(path),
      clock: sandbox.clock,
      ...options,
      ...extra,
    });
  return { sandbox, client, mirror: make(), restart: make };
}

/** What the service says now about one order, read straight through the client. */
export async function truth(client: PartnerOrders, orderNumber: number) {
  const order = await client.orders.get(orderNumber);
  const items = await collect(client.orders.items(orderNumber));
  const shipments = await collect(client.orders.shipments(orderNumber));
  return { ...order, items, shipments };
}

async function collect<T>(list: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of list) out.push(x);
  return out;
}

/** Every order number the partner can list now. */
export async function listed(client: PartnerOrders): Promise<number[]> {
  const numbers: number[] = [];
  for await (const order of client.orders.list({ limit: 200 })) numbers.push(order.orderNumber);
  return numbers;
}
