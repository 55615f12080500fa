import type { Violation } from "../errors";
import {
  describe,
  isPositiveSafeInteger,
  PRODUCT_ID_PATTERN,
  positiveIntegerProblem,
} from "./rules";

// Run before a URL is built, so an id like `../x` or `https://evil` never becomes a request.

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const CANONICAL_DIGITS = /^[1-9][0-9]*$/;

function violation(path: string, message: string): Violation[] {
  return [{ path, message }];
}

function positiveInteger(value: unknown, path: string): Violation[] {
  return isPositiveSafeInteger(value) ? [] : violation(path, positiveIntegerProblem(value));
}

/** A number, or its canonical digits (no sign, no leading zero): the same path segment. */
export function checkOrderNumber(value: unknown, path = "orderNumber"): Violation[] {
  if (typeof value === "string") {
    if (!CANONICAL_DIGITS.test(value))
      return violation(path, "must be a positive integer, or a string of its digits");
    // Exact as text, but such an order number read back from a response would already be rounded.
    return Number.isSafeInteger(Number(value))
      ? []
      : violation(
          path,
          `is above ${Number.MAX_SAFE_INTEGER} (2^53 - 1), which the SDK does not carry exactly`,
        );
  }
  return positiveInteger(value, path);
}

export function checkProductId(value: unknown, path = "productId"): Violation[] {
  if (typeof value === "string" && PRODUCT_ID_PATTERN.test(value)) return [];
  return violation(path, "must be SLO_ or SLS_ followed by 1 to 18 digits");
}

export function checkSubmissionId(value: unknown, path = "submissionId"): Violation[] {
  if (typeof value === "string" && UUID_PATTERN.test(value)) return [];
  return violation(path, "must be a UUID (8-4-4-4-12 hexadecimal digits)");
}

export function checkSiteId(value: unknown, path = "siteId"): Violation[] {
  return positiveInteger(value, path);
}

export function checkQuantity(value: unknown, path = "quantity"): Violation[] {
  return positiveInteger(value, path);
}

/** `max` for the lists that reject a large limit rather than cap it (submissions). */
export function checkLimit(
  value: unknown,
  path = "limit",
  max = Number.POSITIVE_INFINITY,
): Violation[] {
  if (!isPositiveSafeInteger(value)) return positiveInteger(value, path);
  if (value > max) return violation(path, `must be at most ${max}, got ${value}`);
  return [];
}

export function checkServiceType(value: unknown, path = "serviceType"): Violation[] {
  if (value === "STOCK" || value === "POD") return [];
  return violation(path, "must be STOCK or POD");
}

export function checkSubmissionStatus(value: unknown, path = "status"): Violation[] {
  if (value === "queued" || value === "processing" || value === "completed" || value === "failed") {
    return [];
  }
  return violation(path, "must be queued, processing, completed or failed");
}

// A cursor is opaque: never parsed or built.
export function checkCursor(value: unknown, path = "cursor"): Violation[] {
  if (typeof value === "string" && value.length > 0) return [];
  return violation(path, `must be a non-empty string, got ${describe(value)}`);
}
