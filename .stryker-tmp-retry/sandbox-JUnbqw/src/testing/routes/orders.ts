// @ts-nocheck
import type { OrderRecord } from "../model";
import { cappedLimit, orderNumberParam, rejectUpdatedSince, siteIdFilter } from "../params";
import { json, ProblemError } from "../problem";
import { renderItem, renderOrder, renderShipment } from "../render";
import type { Principal, RouteContext, RouteDefinition } from "../router";
import { sortedOrders } from "../state";
import { keysetPage } from "./page";

const ORDERS_READ = "partner-api/orders:read";

/** The order if it resolves for the caller; outside the grant is the same 404 as missing (rule 3). */
export function visibleOrder(ctx: RouteContext): OrderRecord {
  const orderNumber = orderNumberParam(ctx.params.orderNumber ?? "");
  const order = ctx.state.orders.get(orderNumber);
  const principal = ctx.principal as Principal;
  if (!order || order.hidden || !principal.partner.grantedSiteIds.includes(order.siteId)) {
    throw new ProblemError(404, "order_not_found", `Order ${orderNumber} was not found.`);
  }
  return order;
}

const listOrders: RouteDefinition = {
  method: "GET",
  path: "/v1/orders",
  scope: ORDERS_READ,
  handle(ctx) {
    const { query } = ctx;
    rejectUpdatedSince(query);
    const granted = (ctx.principal as Principal).partner.grantedSiteIds;
    const siteId = siteIdFilter(query, granted);
    const status = query.get("status");
    const rows = sortedOrders(ctx.state).filter(
      (o) =>
        !o.hidden &&
        granted.includes(o.siteId) &&
        (siteId === undefined || o.siteId === siteId) &&
        (status === null || o.status === status),
    );
    const page = keysetPage(
      "orders",
      rows,
      query.get("cursor"),
      cappedLimit(query, 50, 200),
      (o) => ({ p: o.placedOn, n: o.orderNumber }),
      (o, k) => o.placedOn > String(k.p) || (o.placedOn === k.p && o.orderNumber > Number(k.n)),
    );
    return json(
      200,
      { orders: page.data.map(renderOrder), nextCursor: page.nextCursor },
      ctx.requestId,
    );
  },
};

const getOrder: RouteDefinition = {
  method: "GET",
  path: "/v1/orders/{orderNumber}",
  scope: ORDERS_READ,
  handle: (ctx) => json(200, renderOrder(visibleOrder(ctx)), ctx.requestId),
};

const listItems: RouteDefinition = {
  method: "GET",
  path: "/v1/orders/{orderNumber}/items",
  handle(ctx) {
    const order = visibleOrder(ctx);
    rejectUpdatedSince(ctx.query);
    // Hidden lines and lines whose site disagrees with the order's are shown to nobody (items rules).
    const rows = order.items.filter((i) => i.visible && i.siteId === order.siteId);
    const page = keysetPage(
      "items",
      rows,
      ctx.query.get("cursor"),
      cappedLimit(ctx.query, 50, 200),
      (i) => ({ i: i.itemNumber }),
      (i, k) => i.itemNumber > Number(k.i),
      { o: order.orderNumber },
    );
    return json(
      200,
      { items: page.data.map(renderItem), nextCursor: page.nextCursor },
      ctx.requestId,
    );
  },
};

const listShipments: RouteDefinition = {
  method: "GET",
  path: "/v1/orders/{orderNumber}/shipments",
  handle(ctx) {
    const order = visibleOrder(ctx);
    rejectUpdatedSince(ctx.query);
    const page = keysetPage(
      "shipments",
      order.shipments,
      ctx.query.get("cursor"),
      cappedLimit(ctx.query, 25, 50),
      (s) => ({ s: s.shipmentNumber }),
      (s, k) => s.shipmentNumber > Number(k.s),
      { o: order.orderNumber },
    );
    // The per-response package ceiling: past it, packages (and so trackingNumbers) are cut and
    // packagesComplete is false; the client re-requests with a smaller limit (API document, shipments).
    let budget = ctx.state.config.packagesPerResponse;
    let packagesComplete = true;
    const shipments = page.data.map((s) => {
      const kept = s.packages.slice(0, Math.max(0, budget));
      budget -= kept.length;
      if (kept.length < s.packages.length) packagesComplete = false;
      return renderShipment(s, order, kept);
    });
    return json(200, { shipments, nextCursor: page.nextCursor, packagesComplete }, ctx.requestId);
  },
};

export const orderRoutes: RouteDefinition[] = [listOrders, getOrder, listItems, listShipments];
