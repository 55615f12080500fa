/**
 * Synthetic orders for the benchmarks, in the exact shape the API document gives for GET /v1/orders
 * (Resources, "Order"): ten fields per order, `totals` as decimal strings with 10 fractional digits,
 * or null when not computed (Null is not zero).
 *
 * Why synthetic: the sandbox seeds 320 orders and re-sorts them all on every list request, and has
 * no admin call to add orders; 20,000 orders there would measure the sandbox's sorting, not the
 * clients. The bench server keeps the sandbox's real HTTP server, token endpoint, authentication and
 * scope check, and replaces only GET /v1/orders with pages cut from this fixture.
 */

export const PAGE_SIZE = 200;
export const FIRST_ORDER_NUMBER = 500_001;

const STATUSES = ["Submitted", "In Production", "Shipped", "Delivered", "Cancelled", "On Hold"];
const BASE = Date.parse("2025-01-01T00:00:00.000Z");

/** mulberry32, so every run and every process sees the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A count of 1e-10 units as the service writes money: `"1234.5600000000"`. */
function money(units: bigint): string {
  const scale = 10_000_000_000n;
  return `${units / scale}.${(units % scale).toString().padStart(10, "0")}`;
}

export interface WireOrder {
  orderNumber: number;
  status: string;
  placedOn: string;
  updatedOn: string;
  shippedOn: string | null;
  purchaseOrder: string | null;
  projectName: string;
  siteId: number;
  totals: {
    item: string | null;
    shipping: string | null;
    tax: string | null;
    order: string | null;
  };
  closed: boolean;
}

/** `count` orders, sorted as the list endpoint pages them (placedOn, orderNumber). */
export function generateOrders(count: number, seed = 7): WireOrder[] {
  const rand = prng(seed);
  const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
  const orders: WireOrder[] = [];
  let placed = BASE;
  for (let i = 0; i < count; i++) {
    placed += int(1, 30) * 60_000;
    const status = STATUSES[int(0, STATUSES.length - 1)] as string;
    const shipped = status === "Shipped" || status === "Delivered";
    const item = BigInt(int(500, 5_000_000)) * 100_000_000n;
    const shipping = BigInt(int(0, 2_500)) * 100_000_000n;
    // 7.25 % truncated at the 10th digit: all ten fractional digits carry information.
    const tax = ((item + shipping) * 72_500n) / 1_000_000n;
    // About 1 order in 17 has no totals computed, and 1 in 11 no tax: nulls the clients must keep.
    const uncomputed = i % 17 === 16;
    const noTax = i % 11 === 3;
    orders.push({
      orderNumber: FIRST_ORDER_NUMBER + i,
      status,
      placedOn: new Date(placed).toISOString(),
      updatedOn: new Date(placed + int(1, 48) * 3_600_000).toISOString(),
      shippedOn: shipped ? new Date(placed + 72 * 3_600_000).toISOString() : null,
      purchaseOrder: i % 4 === 0 ? null : `PO-${100_000 + i}`,
      projectName: `Project ${i + 1}`,
      siteId: 101,
      totals: uncomputed
        ? { item: null, shipping: null, tax: null, order: null }
        : {
            item: money(item),
            shipping: money(shipping),
            tax: noTax ? null : money(tax),
            order: money(item + shipping + (noTax ? 0n : tax)),
          },
      closed: status === "Delivered" || status === "Cancelled",
    });
  }
  return orders;
}

/** An opaque keyset cursor (base64url JSON), as the sandbox writes them; clients never parse it. */
export function cursorFor(index: number): string {
  return Buffer.from(JSON.stringify({ e: "orders", i: index }), "utf8").toString("base64url");
}

/** The index a cursor resumes from, or null when it is not one of ours. */
export function indexOfCursor(cursor: string): number | null {
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as {
      e?: unknown;
      i?: unknown;
    };
    return key.e === "orders" && Number.isSafeInteger(key.i) && (key.i as number) >= 0
      ? (key.i as number)
      : null;
  } catch {
    return null;
  }
}

/** The body of GET /v1/orders for rows `from .. from + limit` of `orders`. */
export function pageBody(orders: readonly WireOrder[], from: number, limit: number): string {
  const rows = orders.slice(from, from + limit);
  const next = from + limit < orders.length ? cursorFor(from + limit) : null;
  return JSON.stringify({ orders: rows, nextCursor: next });
}

/** Every money field of an order list body: the fields the clients convert. */
export const ORDER_MONEY_FIELDS = ["item", "shipping", "tax", "order"] as const;
