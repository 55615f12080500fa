import type { APIPromise } from "../core/api-promise";
import { operation } from "../core/http/operation";
import type { Http } from "../core/http/request";
import type { Product, ProductDetail, Quote } from "../core/models";
import type { RequestOptions } from "../core/options";
import type { Paginated } from "../core/pagination";
import {
  checkCursor,
  checkLimit,
  checkProductId,
  checkQuantity,
  checkServiceType,
  checkSiteId,
  optional,
} from "../core/validation";
import { paginate } from "./list";

/** Filters and paging of `client.products.list()` (API document, GET /v1/products). */
export interface ProductListParams {
  /** Only products of this granted site. */
  siteId?: number;
  /** Only warehoused (`STOCK`) or print-on-demand (`POD`) products. */
  serviceType?: "STOCK" | "POD";
  /** Page size; the service caps it at 500. @default 100 */
  limit?: number;
  /** Resume from a stored `nextCursor`. */
  cursor?: string;
}

/** The orderable catalog and price quotes: `client.products`. */
export class Products {
  /** @internal Made by {@link PartnerOrders}; use `client.products`. */
  constructor(private readonly http: Http) {}

  /** The orderable catalog, one entry per variant, by (productId, variantId). No prices. */
  list(params: ProductListParams = {}, options?: RequestOptions): Paginated<Product> {
    const { siteId, serviceType, limit, cursor } = params;
    const list = operation(
      "listProducts",
      { params: { query: { siteId, serviceType, limit } } },
      {
        violations: [
          ...optional(siteId, checkSiteId, "siteId"),
          ...optional(serviceType, checkServiceType, "serviceType"),
          ...optional(limit, checkLimit, "limit"),
          ...optional(cursor, checkCursor, "cursor"),
        ],
        what: "product list parameters",
      },
    );
    return paginate<Product>(this.http, list, "products", cursor, options);
  }

  /** One product with all its variants; `productId` is `SLO_` or `SLS_` plus 1 to 18 digits. */
  get(productId: string, options?: RequestOptions): APIPromise<ProductDetail> {
    return this.http.call(
      operation(
        "getProduct",
        { params: { path: { productId } } },
        { violations: checkProductId(productId), what: "productId" },
      ),
      options,
    );
  }

  /** The site price for `quantity` (after site markup and offering discount). No side effect. */
  quote(productId: string, quantity: number, options?: RequestOptions): APIPromise<Quote> {
    return this.http.call(
      operation(
        "quoteProduct",
        { params: { path: { productId } }, body: { quantity } },
        {
          violations: [...checkProductId(productId), ...checkQuantity(quantity)],
          what: "quote request",
        },
      ),
      options,
    );
  }
}
