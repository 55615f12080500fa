import type { Transport } from "../core/transport";

/**
 * How `partner-orders/sync` sends through a client's own request path (its credential, token cache,
 * retries, retry budget and rate-limit gate) without a public field: a non-enumerable, symbol-keyed
 * property. `Symbol.for` because the root and the `sync` entry may each load their own copy of this
 * module (an ESM import beside a CommonJS require).
 */
const key = Symbol.for("partner-orders.transport");

export function attachTransport(client: object, transport: Transport): void {
  Object.defineProperty(client, key, { value: () => transport, enumerable: false });
}

/** The request path of a `PartnerOrders` client (from any copy of the package); undefined for anything else. */
export function transportOf(client: unknown): Transport | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const get = (client as { [key]?: unknown })[key];
  return typeof get === "function" ? (get() as Transport) : undefined;
}
