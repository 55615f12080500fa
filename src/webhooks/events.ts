import { PartnerOrdersError } from "../core/errors";
import { rawBodyBytes, type WebhookBody } from "./body";

/**
 * Fields every event carries (API document, Events, "Payload fields"). An event is a notification
 * only: it names what to re-read and never carries order contents (Events rule 1).
 */
export interface WebhookEventBase {
  /** Unique per event; also sent as the `Platform-Event-Id` header. Dedupe on it (Events rule 4). */
  eventId: string;
  /**
   * Publish time as sent (ISO date-time). Not the commit time: do not order events by it
   * (Events rule 3).
   */
  occurredAt: string;
  /** The granted site the order belongs to; `0` on the synthetic test event. */
  siteId: number;
  /**
   * The platform order number to re-read (`GET /v1/orders/{orderNumber}` and its items or
   * shipments); `0` on the synthetic test event.
   */
  orderNumber: number;
  /** Present only for orders submitted through the API (Events rule 7). */
  partnerOrderId?: string;
}

/** An order's status changed: re-read `GET /v1/orders/{orderNumber}`. */
export interface OrderStatusChangedEvent extends WebhookEventBase {
  /** Narrows `WebhookEvent` to this event. The new status is not in it: re-read the order. */
  type: "order.status_changed";
}

/** A shipment shipped: re-read `GET /v1/orders/{orderNumber}/shipments`. */
export interface ShipmentShippedEvent extends WebhookEventBase {
  /** Narrows `WebhookEvent` to this event. */
  type: "shipment.shipped";
  /** The shipment within the order, as `Shipment.shipmentNumber` in the re-read list. */
  shipmentNumber: number;
}

/** A shipment was cancelled: re-read `GET /v1/orders/{orderNumber}/shipments`. */
export interface ShipmentCancelledEvent extends WebhookEventBase {
  /** Narrows `WebhookEvent` to this event. */
  type: "shipment.cancelled";
  /** The shipment within the order, as `Shipment.shipmentNumber` in the re-read list. */
  shipmentNumber: number;
}

/** A line was cancelled: re-read `GET /v1/orders/{orderNumber}/items` (it shows `cancelled: true`). */
export interface OrderLineCancelledEvent extends WebhookEventBase {
  /** Narrows `WebhookEvent` to this event. Which line is not in it: look for `cancelled: true`. */
  type: "order_line.cancelled";
}

/** The four types of the API document; `event.type === "..."` narrows among them. */
export type KnownWebhookEvent =
  | OrderStatusChangedEvent
  | ShipmentShippedEvent
  | ShipmentCancelledEvent
  | OrderLineCancelledEvent;

/** The `type` values this version knows. */
export type KnownWebhookEventType = KnownWebhookEvent["type"];

/**
 * An event of a type added after this version of the SDK (types are additive, Versioning rule 2).
 * Ignore it, or log it (Events rule 5). Its fields pass through as sent.
 *
 * TypeScript cannot exclude a `type: string` member when comparing `type` with a literal
 * (microsoft/TypeScript#26277), so on a `WebhookEvent` first narrow with
 * {@link isKnownWebhookEvent}; `createWebhookHandler` does that for you (`onEvent` only receives
 * known events).
 */
export interface UnknownWebhookEvent extends WebhookEventBase {
  /** A type this SDK version does not know, as sent. */
  type: string;
  [field: string]: unknown;
}

/** Whatever a delivery carries: one of the four known events, or an unknown one. */
export type WebhookEvent = KnownWebhookEvent | UnknownWebhookEvent;

/** Which parts of an order an event names for re-reading. */
export interface EventParts {
  /** `GET /v1/orders/{orderNumber}` */
  order: boolean;
  /** `GET /v1/orders/{orderNumber}/items` */
  items: boolean;
  /** `GET /v1/orders/{orderNumber}/shipments` */
  shipments: boolean;
}

/**
 * What each known type names for re-reading (API document, Event types): the one table of what to
 * re-read. Each names one part; kept this small because every webhook receiver bundles it.
 */
const partByType: Readonly<Record<KnownWebhookEventType, keyof EventParts>> = {
  "order.status_changed": "order",
  "shipment.shipped": "shipments",
  "shipment.cancelled": "shipments",
  "order_line.cancelled": "items",
};

const knownTypes: ReadonlySet<string> = new Set(Object.keys(partByType));

/**
 * The parts of an order an event of `type` names for re-reading; undefined for a type this version
 * does not know (including names every object inherits, such as `constructor`). A fresh object each
 * time, so a caller may change it.
 */
export function eventParts(type: string): EventParts | undefined {
  if (!knownTypes.has(type)) return undefined;
  const part = partByType[type as KnownWebhookEventType];
  return { order: part === "order", items: part === "items", shipments: part === "shipments" };
}

/** True when `event` is one of the four known types; narrows so `event.type === "..."` is exact. */
export function isKnownWebhookEvent(event: WebhookEvent): event is KnownWebhookEvent {
  return knownTypes.has(event.type);
}

/**
 * True for the synthetic test event staff can send: `eventId` begins with `test_` and `siteId` and
 * `orderNumber` are both 0 (API document, "Synthetic test event"). Verify it, then discard it.
 */
export function isTestEvent(event: WebhookEvent): boolean {
  return event.eventId.startsWith("test_") && event.siteId === 0 && event.orderNumber === 0;
}

/** Why a body could not be read as an event. */
export type WebhookPayloadReason = "invalid_utf8" | "invalid_json" | "invalid_event";

/**
 * The body is not a webhook event: not UTF-8, not JSON, or missing a field every event carries.
 * Thrown after the signature held (verification is on bytes), or by `parseWebhook`.
 */
export class WebhookPayloadError extends PartnerOrdersError {
  override name = "WebhookPayloadError";
  /**
   * What was wrong: `invalid_utf8`, `invalid_json`, or `invalid_event` (a field every event carries
   * is missing or mistyped). `createWebhookHandler` answers 400 with it as `error`.
   */
  readonly reason: WebhookPayloadReason;
  constructor(reason: WebhookPayloadReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

// Made on first use: the root entry imports this module, and its cold import should not pay for it.
let strictUtf8: TextDecoder | undefined;

/**
 * Reads a delivery's body as a typed event, without any signature check: for endpoints registered
 * without a signing secret (API document, "Signing": such endpoints receive no signature header).
 * Anyone can post to such an endpoint, which is acceptable only because an event carries no data
 * and only names what to re-read through the authenticated API (Events rule 1).
 *
 * `body` is the raw body (string, Buffer/Uint8Array, ArrayBuffer) or, since nothing needs the exact
 * bytes here, the JSON value already parsed by a framework.
 *
 * @throws {WebhookPayloadError} when the body is not UTF-8 JSON describing an event.
 */
export function parseWebhook(body: WebhookBody | object): WebhookEvent {
  const bytes = rawBodyBytes(body);
  // Anything else that is not an object (undefined, a number) fails toEvent's field checks.
  return bytes ? decodeEvent(bytes) : toEvent(body);
}

/** UTF-8 JSON bytes to a typed event. */
export function decodeEvent(bytes: Uint8Array): WebhookEvent {
  let text: string;
  try {
    strictUtf8 ??= new TextDecoder("utf-8", { fatal: true });
    text = strictUtf8.decode(bytes);
  } catch {
    throw new WebhookPayloadError("invalid_utf8", "The webhook body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WebhookPayloadError(
      "invalid_json",
      `The webhook body is not valid JSON: ${(error as Error).message}`,
    );
  }
  return toEvent(value);
}

/**
 * Checks the fields the API document says are always present, so handlers can rely on them
 * (`eventId` above all, which dedupe keys on). Other fields pass through untouched; a null
 * `partnerOrderId` is left out, as for orders not submitted through the API (Events rule 7).
 */
function toEvent(value: unknown): WebhookEvent {
  const event = ((typeof value === "object" && !Array.isArray(value) && value) || {}) as Record<
    string,
    unknown
  >;
  if (event.partnerOrderId === null) delete event.partnerOrderId;
  const { type } = event;
  const checks: [string, boolean][] = [
    ["eventId", isText(event.eventId)],
    ["type", isText(type)],
    ["occurredAt", typeof event.occurredAt === "string"],
    // Test events carry 0 for both (API document, "Synthetic test event"), so 0 is allowed.
    ["siteId", isWholeNumber(event.siteId)],
    ["orderNumber", isWholeNumber(event.orderNumber)],
    [
      "partnerOrderId",
      event.partnerOrderId === undefined || typeof event.partnerOrderId === "string",
    ],
    [
      "shipmentNumber",
      (type !== "shipment.shipped" && type !== "shipment.cancelled") ||
        isWholeNumber(event.shipmentNumber),
    ],
  ];
  const wrong = checks.find(([, ok]) => !ok);
  if (wrong) {
    throw new WebhookPayloadError(
      "invalid_event",
      `The webhook body is not an event object: "${wrong[0]}" is missing or has the wrong type.`,
    );
  }
  return event as unknown as WebhookEvent;
}

function isText(value: unknown): boolean {
  return typeof value === "string" && value !== "";
}

function isWholeNumber(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
