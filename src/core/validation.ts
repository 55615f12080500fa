/**
 * Client-side validation: every documented rule the client can check before a network call, so a
 * bad request fails at once with every violation named, and a hostile path argument never becomes
 * a URL (README, "Submitting orders safely": the request is checked first).
 */
import type { Violation } from "./errors";

export {
  MAX_BODY_BYTES,
  MAX_LINES,
  MAX_TEMPLATE_VARIABLES,
  validateOrderRequest,
} from "./validation/order-request";
export {
  checkCursor,
  checkLimit,
  checkOrderNumber,
  checkProductId,
  checkQuantity,
  checkServiceType,
  checkSiteId,
  checkSubmissionId,
  checkSubmissionStatus,
} from "./validation/params";

/** Runs `check` on an optional argument: nothing to report when it was left out. */
export function optional(
  value: unknown,
  check: (value: unknown, path: string) => Violation[],
  path: string,
): Violation[] {
  return value === undefined ? [] : check(value, path);
}
