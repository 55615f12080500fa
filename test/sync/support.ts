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

/**
 * Like {@link setup}, with every request of the client passed to `onRequest` first (to move the
 * sandbox's clock as a slow service would, or to answer in its place: return a Response).
 */
export function setupWith(
  options: Partial<OrderMirrorOptions>,
  onRequest: (
    request: Request,
    sandbox: Sandbox,
  ) => Response | undefined | Promise<Response | undefined>,
): Setup {
  const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
  const client = new PartnerOrders({
    baseUrl: sandbox.baseUrl,
    ...sandbox.credentials,
    clock: sandbox.clock,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      return (await onRequest(request, sandbox)) ?? sandbox.fetch(request);
    },
  });
  const make = (extra: Partial<OrderMirrorOptions> = {}) =>
    new OrderMirror({
      client,
      store: sqliteStore(":memory:"),
      clock: sandbox.clock,
      ...options,
      ...extra,
    });
  return { sandbox, client, mirror: make(), restart: make };
}

/** Lets promises and the mirror's loop run (it runs on the sandbox's manual clock). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves the manual clock `stepMs` at a time until `promise` settles (at most `maxSteps` steps). */
export async function drive<T>(
  sandbox: Sandbox,
  promise: Promise<T>,
  stepMs = 1_000,
  maxSteps = 10_000,
): Promise<T> {
  let done = false;
  const watched = promise.finally(() => {
    done = true;
  });
  watched.catch(() => undefined);
  for (let i = 0; i < maxSteps && !done; i++) {
    await settle();
    if (!done) sandbox.clock.advance(stepMs);
  }
  return watched;
}
