/**
 * What the HTTP layer lets telemetry see, as types only: the instrumentation itself
 * (core/telemetry.ts) is loaded after `@opentelemetry/api` was found, so a partner without it
 * carries none of it.
 */
import type { Meter } from "@opentelemetry/api";
import type { Clock } from "../../internal/clock";
import type { WithResponse } from "../api-promise";
import type { TelemetryOptions } from "../telemetry-options";
import type { RetryBudget } from "./policy";

/** A request as telemetry sees it: the HTTP layer's `HttpRequest` (core/http/request.ts). */
export interface Outgoing {
  method: string;
  /** Absolute; may carry a query string. */
  url: string;
  /** The spec's operationId (`getOrder`, `createToken`, `mcp`). */
  operation?: string | undefined;
  /** Lower-case names; telemetry adds `traceparent` here. */
  headers: Record<string, string>;
}

/**
 * Where a client's telemetry hooks arrive: `ready` while `@opentelemetry/api` is being looked for
 * (a call made meanwhile waits for it), then `hooks`, or nothing when it is not installed.
 */
export interface TelemetrySlot {
  hooks: HttpHooks | undefined;
  ready: Promise<void> | undefined;
}

/** What the hooks of one client are made from. */
export interface TelemetrySetup {
  options: TelemetryOptions;
  /** Request durations are measured on the client's clock, as its timeouts are. */
  clock: Clock;
  /** `server.address` and `server.port` of every request. */
  baseUrl: URL;
  /** Its tokens are observed as a gauge. */
  budget: RetryBudget | undefined;
}

/** The instrumentation of one client: each call, each of its attempts, each submission wait. */
export interface HttpHooks {
  /**
   * True when a call now would record nothing and carry no trace (no provider, no meter, no valid
   * span context active): the caller then runs it untraced, at no cost.
   */
  idle(): boolean;
  /**
   * Runs `run` (the call's retry loop) under the call's span; `run` reports each attempt to
   * `attempt`, which is undefined when the call is {@link HttpHooks.idle}.
   */
  request<T>(
    request: Outgoing,
    run: (attempt: AttemptObserver | undefined) => Promise<WithResponse<T>>,
  ): Promise<WithResponse<T>>;
  /**
   * Runs a submission wait under its span: `run` gets `options` with an `onPoll` that adds an event
   * per state seen, then calls the caller's own.
   */
  wait<T, S extends { status: string; submissionId: string }>(
    name: string,
    options: { onPoll?: ((submission: S) => void) | undefined },
    run: (options: { onPoll?: ((submission: S) => void) | undefined }) => Promise<T>,
  ): Promise<T>;
  /**
   * Runs `run` under a span `partner-orders <name>` (a child of the active span), then sets what
   * `after` returns on it; a failure sets `error.type`.
   */
  span<T>(
    name: string,
    attributes: Record<string, string | number>,
    run: () => Promise<T>,
    after?: (result: T) => Record<string, string | number>,
  ): Promise<T>;
  /** The client's meter (partner-orders/sync adds the mirror's instruments to it). */
  readonly meter: Meter;
  /** False when the meter is the API's no-op one: nothing is measured. */
  readonly metered: boolean;
}

/**
 * Runs attempt `n` of `request` (`send`) under its span; `seen.status` is the status of the answer
 * the attempt got, when it got one.
 */
export type AttemptObserver = <T>(
  n: number,
  request: Outgoing,
  seen: Sent,
  send: () => Promise<T>,
) => Promise<T>;

/** What one attempt sent and got: the token (a 401 drops that one only) and the answer's status. */
export interface Sent {
  token?: string | undefined;
  status?: number | undefined;
}
