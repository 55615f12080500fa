import type { PartnerOrders } from "../client";
import { PartnerOrdersError } from "../core/errors";
import type { Order } from "../core/models";
import { type DecodedRows, decodeRows } from "../core/money";
import type { RequestOptions } from "../core/options";
import { Paginated } from "../core/pagination";
import { httpOf } from "../internal/http-access";
import { lazyResponse, readPage, withCursor } from "./list";
import { listOperation, type OrderListParams } from "./orders";

/** A row of a list page left out because one of its decimal fields did not decode. */
export interface RejectedRow {
  /** Its position in the page as the service sent it. */
  index: number;
  /** Its `orderNumber`; null when the row has none that is a safe integer. */
  orderNumber: number | null;
  /** The field at fault, as a path into the list's body: `orders[].totals.order`. */
  path: string;
  /** Why its value was refused, e.g. `text that is not a plain decimal`. */
  reason: string;
}

/** One page of `GET /v1/orders` read leniently: the orders that decoded, and the rows that did not. */
export interface LenientOrdersPage {
  /** The orders of the page that decoded, in the service's order, exactly as `orders.list()` gives them. */
  data: Order[];
  /** The page's cursor to the next one, exactly as received; null on the last page. */
  nextCursor: string | null;
  /** The rows left out of `data`, in page order. */
  rejected: RejectedRow[];
}

/**
 * @internal One page of `client.orders.list(params)` for the order mirror, where one malformed order
 * must not block every sweep at its page: a row whose money does not decode is left out of `data`
 * and listed in `rejected` (index, order number, field, reason), and the other orders are stored.
 * Everything else is `orders.list()`'s: the client's own request path (auth, retries, rate limits,
 * errors), its parameter checks, and its cursor checks (a page handing back the cursor that fetched
 * it is refused). A body that is not JSON, or not a list, still throws.
 */
export async function listOrdersPage(
  client: PartnerOrders,
  params: OrderListParams = {},
  options?: RequestOptions,
): Promise<LenientOrdersPage> {
  const http = httpOf(client);
  if (!http) throw new PartnerOrdersError("listOrdersPage() needs a PartnerOrders client.");
  const list = { ...listOperation(params), decoder: decodeRows };
  let rejected: RejectedRow[] = [];
  // Through Paginated for its first page only: the page then meets the same cursor checks as one
  // of orders.list().
  const page = await new Paginated<Order>(async (cursor) => {
    const answer = await http.call(withCursor(list, cursor), options).withResponse();
    // An empty success body is decoded by no one: it is refused below like a body without orders.
    const decoded = answer.data as unknown as DecodedRows | undefined;
    rejected = (decoded?.rejected ?? []).map((error) => ({
      // decodeRows names the row of every error it reports; -1 only satisfies the type.
      index: error.index ?? -1,
      orderNumber: error.orderNumber ?? null,
      path: error.path,
      reason: error.reason,
    }));
    return lazyResponse(readPage<Order>(list.operationId, decoded?.body, "orders"), answer);
  }, params.cursor);
  return { data: page.data, nextCursor: page.nextCursor, rejected };
}
