import type { Http } from "../core/http/request";

/**
 * How `partner-orders/sync` sends through a client's own request path (its credential, token cache,
 * retries, retry budget and rate-limit gate) without a public field: a non-enumerable, symbol-keyed
 * property. `Symbol.for` because the root and the `sync` entry may each load their own copy of this
 * module (an ESM import beside a CommonJS require).
 */
const key = Symbol.for("partner-orders.http");

export function attachHttp(client: object, http: Http): void {
  Object.defineProperty(client, key, { value: () => http, enumerable: false });
}

/** The request path of a `PartnerOrders` client (from any copy of the package); undefined for anything else. */
export function httpOf(client: unknown): Http | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const get = (client as { [key]?: unknown })[key];
  return typeof get === "function" ? (get() as Http) : undefined;
}
