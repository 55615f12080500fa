import type { MirrorContext } from "./context";
import { fieldOf } from "./invalid";
import { storable } from "./values";

/** A row of the list as the client hands it over, before the mirror looks at it. */
export type Row = Record<string, unknown>;

/** One page of the list, with the rows the client could not decode set apart. */
export interface ListPage {
  data: Row[];
  nextCursor: string | null;
  rejected: { index: number; orderNumber: number | null; path: string; reason: string }[];
}

/** Keeps out, named in logs and `status()`, the rows of a page the client could not decode. */
export async function keepOut(ctx: MirrorContext, page: ListPage): Promise<void> {
  const { clock, report } = ctx;
  for (const bad of page.rejected) {
    report.ordersSeen++;
    const invalid = {
      orderNumber: bad.orderNumber,
      field: fieldOf(bad.path),
      reason: bad.reason,
      at: iso(clock.now()),
    };
    await ctx.invalid.add(invalid, report);
    ctx.log.warn(
      `order ${bad.orderNumber ?? `at row ${bad.index}`} kept out: ${invalid.field} ${invalid.reason}`,
      {
        orderNumber: bad.orderNumber,
        field: invalid.field,
        next: "it is tried again next sweep",
      },
    );
  }
}

/**
 * The usable rows of a page by order number, as stored JSON: a row without a usable number is
 * left out, and a number listed twice on one page is read once (both said in the logs).
 */
export function listedOrders(ctx: MirrorContext, page: ListPage): Map<number, Row> {
  const { report } = ctx;
  const orders = new Map<number, Row>();
  for (const listed of page.data) {
    report.ordersSeen++;
    const order = typeof listed === "object" && listed !== null ? storable(listed) : {};
    const orderNumber = order.orderNumber;
    if (!Number.isSafeInteger(orderNumber) || (orderNumber as number) <= 0) {
      ctx.log.warn("a listed order has no usable orderNumber; it is left out", {
        orderNumber: String(orderNumber).slice(0, 40),
      });
      continue;
    }
    const n = orderNumber as number;
    if (orders.has(n)) {
      ctx.log.warn(`order ${n} is listed twice on one page; read once`, { orderNumber: n });
      continue;
    }
    orders.set(n, order);
  }
  return orders;
}

/** Epoch ms as ISO 8601 text. */
export const iso = (ms: number) => new Date(ms).toISOString();
