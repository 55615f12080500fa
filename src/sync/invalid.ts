import { ResponseDecodeError } from "../core/errors";
import type { InvalidOrder } from "./types";

/**
 * The {@link InvalidOrder} an error stands for, when it says the client could not decode what the
 * service sent for this order (a value that is no amount, say); undefined for any other error.
 */
export function decodeFailure(
  error: unknown,
  orderNumber: number | null,
  now: number,
): InvalidOrder | undefined {
  if (!(error instanceof ResponseDecodeError)) return undefined;
  return {
    orderNumber,
    field: fieldOf(error.path),
    reason: error.reason,
    at: new Date(now).toISOString(),
  };
}

/** `orders[].totals.order` names the field of one order: `totals.order`. */
export function fieldOf(path: string): string {
  return path.replace(/^orders\[\]\./, "");
}
