// @ts-nocheck
import { centsToNumber } from "../money";
import { cappedLimit, productIdParam, rejectUpdatedSince, siteIdFilter } from "../params";
import { priceLine, quantityProblem } from "../pricing";
import { json, ProblemError } from "../problem";
import { renderProduct, renderProductDetail } from "../render";
import type { Principal, RouteContext, RouteDefinition } from "../router";
import { keysetPage } from "./page";

/** A listed product on a granted site; anything else is the same 404 (general rule 3). */
function visibleProduct(ctx: RouteContext) {
  const productId = productIdParam(ctx.params.productId ?? "");
  const granted = (ctx.principal as Principal).partner.grantedSiteIds;
  const product = ctx.state.products.find(
    (p) => p.productId === productId && p.listed && granted.includes(p.siteId),
  );
  if (!product)
    throw new ProblemError(404, "product_not_found", `Product ${productId} was not found.`);
  return product;
}

const listProducts: RouteDefinition = {
  method: "GET",
  path: "/v1/products",
  handle(ctx) {
    const { query } = ctx;
    rejectUpdatedSince(query);
    const granted = (ctx.principal as Principal).partner.grantedSiteIds;
    const siteId = siteIdFilter(query, granted);
    const serviceType = query.get("serviceType");
    if (serviceType !== null && serviceType !== "STOCK" && serviceType !== "POD") {
      throw new ProblemError(400, "invalid_service_type", "serviceType must be STOCK or POD.");
    }
    // One entry per variant, ordered by (productId, variantId); POD's null variant sorts first.
    const rows = ctx.state.products
      .filter(
        (p) =>
          p.listed &&
          granted.includes(p.siteId) &&
          (siteId === undefined || p.siteId === siteId) &&
          (serviceType === null || p.serviceType === serviceType),
      )
      .flatMap((p) => p.variants.map((v) => ({ p, v, vk: v.variantId ?? 0 })));
    const page = keysetPage(
      "products",
      rows,
      query.get("cursor"),
      cappedLimit(query, 100, 500),
      (r) => ({ p: r.p.productId, v: r.vk }),
      (r, k) => r.p.productId > String(k.p) || (r.p.productId === k.p && r.vk > Number(k.v)),
    );
    const products = page.data.map((r) => renderProduct(r.p, r.v));
    return json(200, { products, nextCursor: page.nextCursor }, ctx.requestId);
  },
};

const getProduct: RouteDefinition = {
  method: "GET",
  path: "/v1/products/{productId}",
  handle: (ctx) => json(200, renderProductDetail(visibleProduct(ctx)), ctx.requestId),
};

const quote: RouteDefinition = {
  method: "POST",
  path: "/v1/products/{productId}/quote",
  async handle(ctx) {
    const product = visibleProduct(ctx);
    let body: unknown;
    try {
      body = JSON.parse(await ctx.request.text());
    } catch {
      body = undefined;
    }
    const quantity = (body as { quantity?: unknown } | undefined)?.quantity;
    // Any positive integer, however large (API document, Limits); the business rules judge it.
    if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity <= 0) {
      throw new ProblemError(400, "invalid_quantity", "quantity must be a positive integer.");
    }
    const variant = product.variants[0];
    const site = ctx.state.sites.get(product.siteId);
    if (!product.priceable || !variant || !site) {
      throw new ProblemError(
        404,
        "quote_product_not_found",
        `Product ${product.productId} cannot be priced.`,
      );
    }
    const rejection = quantityProblem(variant, quantity);
    if (rejection) throw new ProblemError(422, "quote_invalid", rejection);
    const price = priceLine(site, product, variant, quantity);
    return json(
      200,
      {
        productId: product.productId,
        quantity,
        totalPrice: centsToNumber(price.beforeAdjustmentsCents),
        createdOn: new Date(ctx.state.clock.now()).toISOString(),
      },
      ctx.requestId,
    );
  },
};

export const productRoutes: RouteDefinition[] = [listProducts, getProduct, quote];
