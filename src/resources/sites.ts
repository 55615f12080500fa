import { type APIPromise, mapResult } from "../core/api-promise";
import { operation } from "../core/http/operation";
import type { Http } from "../core/http/request";
import type { Site } from "../core/models";
import type { RequestOptions } from "../core/options";

/** The partner's granted sites: `client.sites`. */
export class Sites {
  /** @internal Made by {@link PartnerOrders}; use `client.sites`. */
  constructor(private readonly http: Http) {}

  /** Every granted site, live or not, in one response (no pagination). */
  list(options?: RequestOptions): APIPromise<Site[]> {
    return mapResult(this.http.call(operation("listSites", {}), options), (body) => body.sites);
  }
}
