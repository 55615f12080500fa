/**
 * `partner-orders/testing`: an in-memory Partner Order Service for tests and demos. Never imported
 * by the root entry, so production bundles never carry it.
 */
// @ts-nocheck


export type { SignWebhookOptions } from "../webhooks/signature";
export { signWebhook } from "../webhooks/signature";
export type { SandboxAdmin, ShipOptions } from "./admin";
export type { ClockMode, RunAllOptions, SandboxClock } from "./clock";
export type { ActiveFault, FaultSpec } from "./faults";
export type { RequestLogEntry } from "./handler";
export type { Principal, RouteContext, RouteDefinition } from "./router";
export type { MswHandler, Sandbox, SandboxCredentials, SandboxOptions } from "./sandbox";
export { createSandbox, SANDBOX_BASE_URL } from "./sandbox";
export { DEFAULT_CREDENTIALS, FIXTURES } from "./seed";
export type { Listener, ListenOptions } from "./server";
export type { SandboxCounters, SandboxTimings } from "./state";
export type {
  WebhookBehaviour,
  WebhookDelivery,
  WebhookRegistration,
  WebhookRegistrationInput,
} from "./webhooks";
export type { ChaosOptions, WorldHistory, WorldOptions } from "./world";
export { chaoticWebhooks, createWorld } from "./world";
