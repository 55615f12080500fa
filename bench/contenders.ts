/**
 * The three ways a partner could read orders, each doing the same work: the same requests, the same
 * answers, and every money field turned into a Decimal (null kept null), because that is what the
 * API document asks of a careful client ("Parse with a decimal type, never a binary float").
 */
import { Decimal as DecimalJs } from "decimal.js";
import createClient from "openapi-fetch";
import type { paths } from "../src/generated/openapi";
import { PartnerOrders } from "../src/index";
import { ORDER_MONEY_FIELDS, PAGE_SIZE } from "./fixture";

export interface Contender {
  name: string;
  /** GET /v1/orders/{orderNumber}, money converted. */
  getOrder(orderNumber: number): Promise<unknown>;
  /** The first 200-order page of GET /v1/orders, money converted. */
  getPage(): Promise<unknown>;
  /** Every order of GET /v1/orders, 200 a page, money converted; returns how many. */
  iterate(): Promise<number>;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/**
 * What a careful partner writes by hand: `new Decimal(text)` for each money field, null kept.
 * decimal.js's own constructor, as a partner would import it.
 */
export function convertTotals(order: { totals?: unknown }): void {
  const totals = order.totals as Record<string, unknown> | null | undefined;
  if (!totals) return;
  for (const key of ORDER_MONEY_FIELDS) {
    const value = totals[key];
    if (value !== null && value !== undefined) totals[key] = new DecimalJs(value as string);
  }
}

/** One client_credentials token, fetched before any timing starts. */
export async function fetchToken(baseUrl: string, credentials: Credentials): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope: "partner-api/orders:read",
    }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

/** Node's `fetch` and `JSON.parse`, written the way the API document describes the calls. */
export function handWritten(baseUrl: string, token: string): Contender {
  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
  const getJson = async (url: string): Promise<Record<string, unknown>> => {
    const response = await fetch(url, { headers });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const page = async (cursor: string | null) => {
    const query = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const body = await getJson(`${baseUrl}/v1/orders?limit=${PAGE_SIZE}${query}`);
    const orders = body.orders as { totals?: unknown }[];
    for (const order of orders) convertTotals(order);
    return { orders, nextCursor: body.nextCursor as string | null };
  };
  return {
    name: "fetch + JSON.parse",
    async getOrder(orderNumber) {
      const order = await getJson(`${baseUrl}/v1/orders/${orderNumber}`);
      convertTotals(order);
      return order;
    },
    getPage: () => page(null),
    async iterate() {
      let count = 0;
      let cursor: string | null = null;
      do {
        const result: { orders: unknown[]; nextCursor: string | null } = await page(cursor);
        count += result.orders.length;
        cursor = result.nextCursor;
      } while (cursor !== null);
      return count;
    },
  };
}

/** Bare openapi-fetch on the generated types, with the same conversion. */
export function openapiFetch(baseUrl: string, token: string): Contender {
  const client = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  const page = async (cursor: string | undefined) => {
    const { data, error, response } = await client.GET("/v1/orders", {
      params: { query: { limit: PAGE_SIZE, cursor } },
    });
    if (error || !data) throw new Error(`GET /v1/orders answered ${response.status}`);
    for (const order of data.orders) convertTotals(order);
    return data;
  };
  return {
    name: "openapi-fetch",
    async getOrder(orderNumber) {
      const { data, error, response } = await client.GET("/v1/orders/{orderNumber}", {
        params: { path: { orderNumber } },
      });
      if (error || !data)
        throw new Error(`GET /v1/orders/${orderNumber} answered ${response.status}`);
      convertTotals(data);
      return data;
    },
    getPage: () => page(undefined),
    async iterate() {
      let count = 0;
      let cursor: string | undefined;
      do {
        const data = await page(cursor);
        count += data.orders.length;
        cursor = data.nextCursor ?? undefined;
      } while (cursor !== undefined);
      return count;
    },
  };
}

/**
 * This SDK, as its README shows it; the token is fetched by `warmUp` before timing. `otel`: with
 * `@opentelemetry/api` loaded and no provider registered (the API's no-op tracer and meter), as a
 * partner has it when a dependency brought the API in; otherwise `telemetry: false`, which is what
 * a partner without the API gets.
 */
export function sdk(
  baseUrl: string,
  credentials: Credentials,
  fetchFn?: typeof fetch,
  otel = false,
): Contender {
  const client = new PartnerOrders({
    baseUrl,
    ...credentials,
    scopes: ["orders:read"],
    ...(fetchFn ? { fetch: fetchFn } : {}),
    ...(otel ? {} : { telemetry: false }),
  });
  return {
    name: otel ? "partner-orders + otel api" : "partner-orders",
    getOrder: (orderNumber) => client.orders.get(orderNumber),
    getPage: async () => {
      const page = await client.orders.list({ limit: PAGE_SIZE });
      return page.data;
    },
    async iterate() {
      let count = 0;
      for await (const _order of client.orders.list({ limit: PAGE_SIZE })) count++;
      return count;
    },
  };
}
