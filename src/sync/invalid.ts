import { APIError, isPartnerOrdersError } from "../core/errors";
import type { InvalidOrder } from "./types";

/** What the client says when a response field does not decode (a money value that is no amount). */
const NOT_DECODED = /response has a value at (\S+) that is (.+?)\.?$/;

/**
 * The {@link InvalidOrder} an error stands for, when it says the client could not decode what the
 * service sent for this order (a value that is no amount, say); undefined for any other error.
 */
export function decodeFailure(
  error: unknown,
  orderNumber: number | null,
  now: number,
): InvalidOrder | undefined {
  if (!isPartnerOrdersError(error) || error instanceof APIError) return undefined;
  const path = (error as { path?: unknown }).path;
  const match = NOT_DECODED.exec(error.message);
  if (typeof path !== "string" && !match) return undefined;
  return {
    orderNumber,
    field: fieldOf(typeof path === "string" ? path : (match?.[1] as string)),
    reason: match ? `is ${match[2]}` : error.message,
    at: new Date(now).toISOString(),
  };
}

/** `orders[].totals.order` names the field of one order: `totals.order`. */
export function fieldOf(path: string): string {
  return path.replace(/^orders\[\]\./, "");
}
