import { type APIPromise, mapResult } from "../core/api-promise";
import { PartnerOrdersError, type Violation } from "../core/errors";
import { type Operation, operation } from "../core/http/operation";
import type { Http } from "../core/http/request";
import { parseRetryAfter } from "../core/http/retry";
import type { Log } from "../core/logger";
import type { Order, OrderItem, OrderRequest, Shipment, Submission } from "../core/models";
import type { RequestOptions } from "../core/options";
import { Paginated } from "../core/pagination";
import {
  checkCursor,
  checkLimit,
  checkOrderNumber,
  checkSiteId,
  optional,
  validateOrderRequest,
} from "../core/validation";
import type { Clock } from "../internal/clock";
import { fetchPage, paginate, withCursor } from "./list";

/** Filters and paging of `client.orders.list()` (API document, GET /v1/orders). */
export interface OrderListParams {
  /** Only orders of this granted site. */
  siteId?: number;
  /** Exact-match order status. */
  status?: string;
  /** Page size; the service caps it at 200. @default 50 */
  limit?: number;
  /** Resume from a stored `nextCursor`. */
  cursor?: string;
}

/** Paging of an order's items and shipments. */
export interface PageParams {
  /**
   * Page size. Items: the service caps it at 200. Shipments: capped at 50, and lowered further
   * while a page's packages are incomplete.
   * @default 50 for items, 25 for shipments (the service's defaults)
   */
  limit?: number;
  /** Resume from a stored `nextCursor`. */
  cursor?: string;
}

/** What `orders.submit` tells: the submission, and whether this call created it (201) or found it (200). */
export interface SubmitResult {
  /** The submission at whatever state the service answered with; read its `status`. */
  submission: Submission;
  /**
   * True on 201 (the record was created by this request); false on 200 (the partnerOrderId already
   * existed). A call whose first answer was lost and whose retry found the record reports false
   * even though its own first attempt created it: branch on `submission.status`, not on `created`.
   */
  created: boolean;
  /** The `Location` to poll while the submission is not terminal, or null. */
  location: string | null;
  /** The `Retry-After` poll hint in seconds while not terminal, or null. */
  retryAfterSeconds: number | null;
}

/** The shipments page size the service uses when none is given (API document, Limits). */
const defaultShipmentLimit = 25;
const maxShipmentLimit = 50;

/**
 * Orders, their lines and shipments, and order submission: `client.orders`.
 *
 * @example
 * for await (const order of client.orders.list({ siteId: 12 })) console.log(order.orderNumber);
 */
export class Orders {
  /** @internal Made by {@link PartnerOrders}; use `client.orders`. */
  constructor(
    private readonly http: Http,
    private readonly log: Log,
    private readonly clock: Clock,
  ) {}

  /** Orders across the granted sites, by (placedOn, orderNumber). */
  list(params: OrderListParams = {}, options?: RequestOptions): Paginated<Order> {
    return paginate<Order>(this.http, listOperation(params), "orders", params.cursor, options);
  }

  /**
   * One order. A 404 (`NotFoundError`, `order_not_found`) also answers for an order outside
   * the granted sites, and is no proof that it never existed (API document, Errors rule 4).
   */
  get(orderNumber: number, options?: RequestOptions): APIPromise<Order> {
    return this.http.call(
      operation(
        "getOrder",
        { params: { path: { orderNumber } } },
        { violations: checkOrderNumber(orderNumber), what: "orderNumber" },
      ),
      options,
    );
  }

  /** The order's lines, cancelled ones included (`cancelled: true`). */
  items(
    orderNumber: number,
    params: PageParams = {},
    options?: RequestOptions,
  ): Paginated<OrderItem> {
    const list = operation(
      "listOrderItems",
      { params: { path: { orderNumber }, query: { limit: params.limit } } },
      { violations: pageViolations(orderNumber, params), what: "order items parameters" },
    );
    return paginate<OrderItem>(this.http, list, "items", params.cursor, options);
  }

  /**
   * The order's shipments with tracking. When a page says `packagesComplete: false` it is asked for
   * again with a smaller `limit` until its packages are complete, so no caller sees truncated
   * tracking (API document, GET /v1/orders/{orderNumber}/shipments).
   */
  shipments(
    orderNumber: number,
    params: PageParams = {},
    options?: RequestOptions,
  ): Paginated<Shipment> {
    const extras = {
      violations: pageViolations(orderNumber, params),
      what: "shipments parameters",
    };
    return new Paginated<Shipment>(async (cursor) => {
      let limit = params.limit;
      for (;;) {
        const list = operation(
          "listOrderShipments",
          { params: { path: { orderNumber }, query: { limit } } },
          extras,
        );
        const page = await fetchPage<Shipment>(
          this.http,
          withCursor(list, cursor),
          "shipments",
          options,
        );
        if (page.body.packagesComplete !== false) return page;
        const current = Math.min(limit ?? defaultShipmentLimit, maxShipmentLimit);
        if (current <= 1) {
          throw new PartnerOrdersError(
            `Order ${orderNumber} has a shipment with more packages than one response can carry; ` +
              "its tracking cannot be read complete.",
          );
        }
        limit = Math.floor(current / 2);
        this.log.info("shipments page had incomplete packages; asking again with a smaller limit", {
          orderNumber,
          limit,
        });
      }
    }, params.cursor);
  }

  /**
   * Submits an order. The request is checked against every documented rule first; nothing is sent
   * when it breaks one. Safe to call again with the identical request: the service answers 200 with
   * the original submission (API document, POST /v1/orders rule 6).
   */
  submit(request: OrderRequest, options?: RequestOptions): APIPromise<SubmitResult> {
    return mapResult(this.http.call(submitOperation(request), options), (submission, response) => ({
      submission,
      created: response.status === 201,
      location: response.headers.get("location"),
      retryAfterSeconds: parseRetryAfter(response.headers, this.clock.now()),
    }));
  }
}

/**
 * @internal GET /v1/orders with its parameters checked, the cursor left for each page to add: the
 * one description of the list, for `orders.list()` and the order mirror's page alike.
 */
export function listOperation(params: OrderListParams): Operation<"listOrders"> {
  const { siteId, status, limit, cursor } = params;
  return operation(
    "listOrders",
    { params: { query: { siteId, status, limit } } },
    {
      violations: [
        ...optional(siteId, checkSiteId, "siteId"),
        ...optional(limit, checkLimit, "limit"),
        ...optional(cursor, checkCursor, "cursor"),
        ...(status !== undefined && (typeof status !== "string" || status === "")
          ? [{ path: "status", message: "must be a non-empty string" }]
          : []),
      ],
      what: "order list parameters",
    },
  );
}

/** @internal The POST of an order, checked against every documented rule. */
export function submitOperation(request: OrderRequest): Operation<"submitOrder"> {
  return operation(
    "submitOrder",
    { body: request },
    { violations: validateOrderRequest(request), what: "order request" },
  );
}

function pageViolations(orderNumber: number, params: PageParams): Violation[] {
  return [
    ...checkOrderNumber(orderNumber),
    ...optional(params.limit, checkLimit, "limit"),
    ...optional(params.cursor, checkCursor, "cursor"),
  ];
}
