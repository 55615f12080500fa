// @ts-nocheck
import { ProblemError } from "./problem";

/** Path and query parameter rules shared by the routes (API document, "Endpoints" and "Errors"). */

const POSITIVE = /^[1-9][0-9]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PRODUCT_ID = /^(SLO|SLS)_[0-9]{1,18}$/;

/**
 * A positive integer in decimal without sign or leading zeros, of any size; else null. Positive
 * integers have no other ceiling (API document, Limits), so 9007199254740993 is one: above 2^53 - 1
 * the number returned is rounded, which changes nothing here, because every id the sandbox stores
 * is far below (such a value names no record) and page sizes are capped.
 */
export function positiveInt(raw: string | null): number | null {
  if (raw === null || !POSITIVE.test(raw)) return null;
  return Number(raw);
}

export function orderNumberParam(raw: string): number {
  const n = positiveInt(raw);
  if (n === null)
    throw new ProblemError(
      400,
      "invalid_order_number",
      "The order number must be a positive integer.",
    );
  return n;
}

export function productIdParam(raw: string): string {
  if (!PRODUCT_ID.test(raw)) {
    throw new ProblemError(
      400,
      "invalid_product_id",
      "The product id must be SLO_ or SLS_ followed by 1 to 18 digits.",
    );
  }
  return raw;
}

export function submissionIdParam(raw: string): string {
  if (!UUID.test(raw))
    throw new ProblemError(400, "invalid_submission_id", "The submission id must be a UUID.");
  return raw.toLowerCase();
}

/** `siteId` query filter: a positive integer inside the grant, else 400 invalid_site_id. */
export function siteIdFilter(
  query: URLSearchParams,
  granted: readonly number[],
): number | undefined {
  const raw = query.get("siteId");
  if (raw === null) return undefined;
  const n = positiveInt(raw);
  // One code for both (API document, invalid_site_id); the detail says which.
  if (n === null)
    throw new ProblemError(400, "invalid_site_id", "The siteId is not a positive integer.");
  if (!granted.includes(n))
    throw new ProblemError(400, "invalid_site_id", `The siteId ${raw} is not a granted site.`);
  return n;
}

/**
 * `limit` for lists that cap instead of rejecting (orders, items, shipments, products): a value that
 * is not a positive integer falls back to the default (stated for shipments, and the catalog has no
 * code to reject it elsewhere); above the cap is capped.
 */
export function cappedLimit(query: URLSearchParams, defaultSize: number, cap: number): number {
  const n = positiveInt(query.get("limit"));
  return n === null ? defaultSize : Math.min(n, cap);
}

/** Rule 5 of the API document: there is no change feed, so `updatedSince` is refused, never ignored. */
export function rejectUpdatedSince(query: URLSearchParams): void {
  if (query.has("updatedSince")) {
    throw new ProblemError(
      400,
      "updated_since_not_supported",
      "updatedSince is not supported; page through the list instead.",
    );
  }
}
