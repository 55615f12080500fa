export { PartnerOrders } from "./client";
export type { APIPromise, WithResponse } from "./core/api-promise";
export { Decimal } from "./core/decimal";
export type { Problem, ProblemCode, Violation, WebhookVerificationReason } from "./core/errors";
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EdgeFirewallError,
  InternalServerError,
  isPartnerOrdersError,
  isProblem,
  NotFoundError,
  PartnerOrdersError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  ResponseDecodeError,
  ServiceUnavailableError,
  SubmissionLocationError,
  SubmissionTimeoutError,
  UnprocessableEntityError,
  WebhookVerificationError,
} from "./core/errors";
export type {
  RetryableAnswer,
  RetryBudgetOptions,
  RetryOptions,
  RetryPolicy,
  RetryRule,
  RetryRules,
} from "./core/http/policy";
// The default retry policy (README, "Errors and retries"); the `retry` client option changes it.
export { defaultRetryPolicy } from "./core/http/policy";
export type { Logger, LogLevel } from "./core/logger";
export type {
  McpClient,
  McpContent,
  McpRequestOptions,
  McpTool,
  McpToolList,
  McpToolResult,
} from "./core/mcp-client";
export type {
  CompletedSubmission,
  FailedSubmission,
  LineShipTo,
  Order,
  OrderItem,
  OrderLineRequest,
  OrderRequest,
  OrderTotals,
  Package,
  PendingSubmission,
  Principal,
  Product,
  ProductDetail,
  ProductVariant,
  Quote,
  Shipment,
  ShipTo,
  Site,
  Submission,
  SubmissionError,
  SubmissionStatus,
  SubmittedOrder,
  SubmittedOrderLine,
} from "./core/models";
export type { MtlsCertificateInfo, MtlsCertificateReason } from "./core/mtls";
// Mutual TLS: the certificate checks a client runs before first use.
export { checkMtlsCertificate, MtlsCertificateError, mtlsPolicy } from "./core/mtls";
export type { ClientOptions, ClientOverrides, MtlsOptions, RequestOptions } from "./core/options";
export type { Page, Paginated, ToArrayOptions } from "./core/pagination";
export type { WaitOptions } from "./core/polling";
export type { TelemetryOptions } from "./core/telemetry-options";
export type { Clock } from "./internal/clock";
export type { OrderListParams, Orders, PageParams, SubmitResult } from "./resources/orders";
export type { ProductListParams, Products } from "./resources/products";
export type { Sites } from "./resources/sites";
export type { SubmissionListParams, Submissions } from "./resources/submissions";
// Webhooks: the `partner-orders/webhooks` subpath, also here (README, "Webhooks").
export type {
  DedupeStore,
  IoRedisClientLike,
  KnownWebhookEvent,
  KnownWebhookEventType,
  MemoryDedupeStoreOptions,
  NodeRedisClientLike,
  NodeWebhookRequest,
  NodeWebhookResponse,
  OrderLineCancelledEvent,
  OrderStatusChangedEvent,
  RedisDedupeStoreOptions,
  ShipmentCancelledEvent,
  ShipmentShippedEvent,
  SignWebhookOptions,
  UnknownWebhookEvent,
  VerifyWebhookOptions,
  WebhookBody,
  WebhookEvent,
  WebhookEventBase,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookHeaders,
  WebhookLogger,
  WebhookPayloadReason,
} from "./webhooks/index";
export {
  computeSignature,
  createMemoryDedupeStore,
  createRedisDedupeStore,
  createWebhookHandler,
  isKnownWebhookEvent,
  isTestEvent,
  parseWebhook,
  signWebhook,
  verifyWebhook,
  WebhookPayloadError,
} from "./webhooks/index";
