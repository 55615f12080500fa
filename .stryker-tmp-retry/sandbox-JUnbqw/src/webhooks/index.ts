/**
 * `partner-orders/webhooks`: verify, parse and receive the service's webhook deliveries (API
 * document, "Events"). Web Crypto only, so it runs on Node, Deno, Bun and edge workers.
 */
// @ts-nocheck

export type { WebhookVerificationReason } from "../core/errors";
export { WebhookVerificationError } from "../core/errors";
export type { WebhookBody } from "./body";
export type {
  DedupeStore,
  IoRedisClientLike,
  MemoryDedupeStoreOptions,
  NodeRedisClientLike,
  RedisDedupeStoreOptions,
} from "./dedupe";
export { createMemoryDedupeStore, createRedisDedupeStore } from "./dedupe";
export type {
  KnownWebhookEvent,
  KnownWebhookEventType,
  OrderLineCancelledEvent,
  OrderStatusChangedEvent,
  ShipmentCancelledEvent,
  ShipmentShippedEvent,
  UnknownWebhookEvent,
  WebhookEvent,
  WebhookEventBase,
  WebhookPayloadReason,
} from "./events";
export { isKnownWebhookEvent, isTestEvent, parseWebhook, WebhookPayloadError } from "./events";
export type {
  NodeWebhookRequest,
  NodeWebhookResponse,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookLogger,
} from "./handler";
export { createWebhookHandler } from "./handler";
export type { SignWebhookOptions } from "./signature";
export { computeSignature, signWebhook } from "./signature";
export type { VerifyWebhookOptions, WebhookHeaders } from "./verify";
export { verifyWebhook } from "./verify";
