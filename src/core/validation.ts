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

export function optional(
  value: unknown,
  check: (value: unknown, path: string) => Violation[],
  path: string,
): Violation[] {
  return value === undefined ? [] : check(value, path);
}
