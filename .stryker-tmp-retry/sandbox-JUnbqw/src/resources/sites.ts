// @ts-nocheck
import { type APIPromise, mapResult } from "../core/api-promise";
import type { Site } from "../core/models";
import type { RequestOptions } from "../core/options";
import { operation, type Transport } from "../core/transport";

/** The partner's granted sites: `client.sites`. */
export class Sites {
  /** @internal Made by {@link PartnerOrders}; use `client.sites`. */
  constructor(private readonly transport: Transport) {}

  /** Every granted site, live or not, in one response (no pagination). */
  list(options?: RequestOptions): APIPromise<Site[]> {
    return mapResult(
      this.transport.request(operation("listSites", {}), options),
      (body) => body.sites,
    );
  }
}
