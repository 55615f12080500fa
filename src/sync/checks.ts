import { PartnerOrdersError } from "../core/errors";
import { eventParts, isTestEvent, type WebhookEvent } from "../webhooks/events";
import type { Parts } from "./context";
import { MirrorError } from "./errors";
import type { ChangesFrom } from "./types";

/** Checks of what callers hand the mirror: a clear typed error naming what is wrong, never a crash. */

/** Where a consumer may start or be reset to. */
const STARTS: readonly ChangesFrom[] = ["beginning", "now"];

/** `from` as `changes()` and `resetConsumer` take it; anything else is refused, naming it. */
export function checkFrom(value: unknown, what: string): ChangesFrom {
  if (STARTS.includes(value as ChangesFrom)) return value as ChangesFrom;
  throw new MirrorError(
    "invalid_argument",
    `${what} must be "beginning" or "now", not ${JSON.stringify(value)?.slice(0, 40) ?? String(value)}.`,
  );
}

/** A consumer's name: text, not empty. */
export function checkConsumer(value: unknown, what: string): string {
  if (typeof value === "string" && value !== "") return value;
  throw new MirrorError(
    "invalid_argument",
    `${what} needs a consumer name (non-empty text), not ${JSON.stringify(value)?.slice(0, 40) ?? String(value)}.`,
  );
}

/** The order and parts an event names; undefined for test events and types that name nothing. */
export function checkEvent(
  event: WebhookEvent,
): { eventId: string; orderNumber: number; parts: Parts } | undefined {
  const shape = event as unknown as Record<string, unknown> | null;
  if (typeof shape !== "object" || shape === null || Array.isArray(shape)) {
    throw invalidEvent("must be a webhook event (from verifyWebhook or parseWebhook)");
  }
  if (typeof shape.eventId !== "string" || shape.eventId === "")
    throw invalidEvent("its eventId must be a string, not empty");
  if (typeof shape.type !== "string") throw invalidEvent("its type must be a string");
  if (isTestEvent(event)) return undefined;
  const parts = eventParts(shape.type);
  if (!parts) return undefined;
  if (!isOrderNumber(shape.orderNumber)) {
    throw invalidEvent(
      `its orderNumber must be a positive whole number, not ${String(shape.orderNumber).slice(0, 40)}`,
    );
  }
  return { eventId: shape.eventId, orderNumber: shape.orderNumber, parts };
}

function invalidEvent(what: string): MirrorError {
  return new MirrorError("invalid_event", `handleEvent: the event ${what}; nothing was read.`);
}

export function isOrderNumber(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

export function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0))
    throw new PartnerOrdersError(`${name} must be a positive number.`);
  return value;
}
