import type { Violation } from "../errors";
import {
  describe,
  isPositiveSafeInteger,
  PRODUCT_ID_PATTERN,
  positiveIntegerProblem,
} from "./rules";

/**
 * Checks of path and query arguments, run before a URL is built, so an id like `../x` or
 * `https://evil` never becomes a request. Each returns the violations, empty when
 * the value is fine; a call with any is rejected with a `RequestValidationError`.
 */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Decimal digits without a leading zero: the one spelling of a positive integer. */
const CANONICAL_DIGITS = /^[1-9][0-9]*$/;

function violation(path: string, message: string): Violation[] {
  return [{ path, message }];
}

function positiveInteger(value: unknown, path: string): Violation[] {
  return isPositiveSafeInteger(value) ? [] : violation(path, positiveIntegerProblem(value));
}

/**
 * An order number, "positive integer" in the path (API document, GET /v1/orders/{orderNumber}). A
 * number, or for convenience a string of digits (order numbers often arrive as text, from a URL or
 * a spreadsheet). The string must be the canonical spelling, no sign, no leading zero, no spaces,
 * so it is the same path segment as the number it names.
 */
export function checkOrderNumber(value: unknown, path = "orderNumber"): Violation[] {
  if (typeof value === "string") {
    if (!CANONICAL_DIGITS.test(value))
      return violation(path, "must be a positive integer, or a string of its digits");
    // Digits are exact as text, but the SDK's numbers are not above 2^53 - 1: an order number
    // read back from such a response would already be rounded, so none is addressed at all.
    return Number.isSafeInteger(Number(value))
      ? []
      : violation(
          path,
          `is above ${Number.MAX_SAFE_INTEGER} (2^53 - 1), which the SDK does not carry exactly`,
        );
  }
  return positiveInteger(value, path);
}

/** `SLO_` or `SLS_` plus 1 to 18 digits (API document, GET /v1/products/{productId}). */
export function checkProductId(value: unknown, path = "productId"): Violation[] {
  if (typeof value === "string" && PRODUCT_ID_PATTERN.test(value)) return [];
  return violation(path, "must be SLO_ or SLS_ followed by 1 to 18 digits");
}

/** A well-formed UUID, 8-4-4-4-12 hex digits in either case (API document, invalid_submission_id). */
export function checkSubmissionId(value: unknown, path = "submissionId"): Violation[] {
  if (typeof value === "string" && UUID_PATTERN.test(value)) return [];
  return violation(path, "must be a UUID (8-4-4-4-12 hexadecimal digits)");
}

/** A positive integer (API document, invalid_site_id). */
export function checkSiteId(value: unknown, path = "siteId"): Violation[] {
  return positiveInteger(value, path);
}

/** A quote quantity: a positive integer, at least 1 (API document, Limits). */
export function checkQuantity(value: unknown, path = "quantity"): Violation[] {
  return positiveInteger(value, path);
}

/**
 * A page size: a positive integer. Most lists cap a large limit, but the submissions list rejects
 * one above 100 (API document, Limits); pass `max` for lists that reject rather than cap.
 */
export function checkLimit(
  value: unknown,
  path = "limit",
  max = Number.POSITIVE_INFINITY,
): Violation[] {
  if (!isPositiveSafeInteger(value)) return positiveInteger(value, path);
  if (value > max) return violation(path, `must be at most ${max}, got ${value}`);
  return [];
}

/** `STOCK` or `POD`, as written (API document, invalid_service_type). */
export function checkServiceType(value: unknown, path = "serviceType"): Violation[] {
  if (value === "STOCK" || value === "POD") return [];
  return violation(path, "must be STOCK or POD");
}

/** A submission state filter (API document, GET /v1/orders/submissions). */
export function checkSubmissionStatus(value: unknown, path = "status"): Violation[] {
  if (value === "queued" || value === "processing" || value === "completed" || value === "failed") {
    return [];
  }
  return violation(path, "must be queued, processing, completed or failed");
}

/**
 * A cursor is opaque and never parsed or built (API document, Pagination), so the only client-side
 * rule is that it is a non-empty string; it travels in the query string, encoded.
 */
export function checkCursor(value: unknown, path = "cursor"): Violation[] {
  if (typeof value === "string" && value.length > 0) return [];
  return violation(path, `must be a non-empty string, got ${describe(value)}`);
}
