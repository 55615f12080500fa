import type { Clock } from "../internal/clock";
import { PartnerOrdersError } from "./errors";
import { resolveHeaders } from "./headers";
import {
  defaultRetryPolicy,
  RetryBudget,
  type RetryOptions,
  type RetryPolicy,
  resolveRetryPolicy,
} from "./http/policy";
import type { Logger, LogLevel } from "./logger";
import type { RateLimitGate } from "./rate-limit-gate";
import type { TelemetryOptions } from "./telemetry-options";
import type { TokenCache } from "./token-cache";

/** A client certificate for the mutual-TLS host (PEM strings or buffers). */
export interface MtlsOptions {
  /**
   * The client certificate in PEM, optionally followed by its intermediates up towards the root
   * (API document, Mutual TLS: at most 4 in the chain). Only this is registered with the service.
   */
  cert: string | Uint8Array;
  /** The certificate's private key in PEM. It never leaves this process and is never logged. */
  key: string | Uint8Array;
  /** Extra CA certificates to trust for the server's certificate. */
  ca?: string | Uint8Array | (string | Uint8Array)[];
  /** The passphrase of an encrypted `key`. Never logged, never placed in an error. */
  passphrase?: string;
}

/**
 * How to reach and authenticate with the service. Give exactly one credential: `clientId` with
 * `clientSecret` (from the options or the environment), `accessToken`, or `mtls`.
 *
 * @example
 * const client = new PartnerOrders({
 *   baseUrl: "https://api.example.com",
 *   clientId: process.env.CLIENT_ID,
 *   clientSecret: process.env.CLIENT_SECRET,
 *   scopes: ["orders:read"],
 * });
 */
export interface ClientOptions {
  /**
   * The API base URL. `https:` only; `http:` is accepted for loopback hosts (the sandbox).
   * @default process.env.PARTNER_ORDERS_BASE_URL
   * @example "https://api.example.com"
   */
  baseUrl?: string;
  /**
   * The OAuth client id from onboarding, for the client-credentials grant.
   * @default process.env.PARTNER_ORDERS_CLIENT_ID
   */
  clientId?: string;
  /**
   * The OAuth client secret from onboarding. Never logged, never placed in an error.
   * @default process.env.PARTNER_ORDERS_CLIENT_SECRET
   */
  clientSecret?: string;
  /**
   * Scopes to request, bare (`"orders:read"`); the SDK adds the `partner-api/` prefix.
   * @default [] (the token then carries what the partner record grants by default)
   * @example ["orders:read"]
   */
  scopes?: string[];
  /**
   * How the client authenticates at the token endpoint (RFC 6749 section 2.3.1).
   * @default "client_secret_basic"
   */
  tokenEndpointAuth?: "client_secret_basic" | "client_secret_post";
  /**
   * A token you manage yourself, or a function that returns a fresh one when called (it is called
   * again after a 401). No token endpoint is used then.
   * @default undefined (tokens are minted from `clientId` and `clientSecret`)
   */
  accessToken?: string | (() => string | Promise<string>);
  /**
   * A client certificate for the mutual-TLS host, instead of a client secret; `baseUrl` is then the
   * mutual-TLS host. Cannot be combined with `fetch`.
   * @default undefined (bearer tokens)
   */
  mtls?: MtlsOptions;
  /**
   * Retries per call, across all retryable answers (429, 500 once, 503, connection errors, timeouts,
   * one 401 token refresh).
   * @default 2
   */
  maxRetries?: number;
  /**
   * What is retried and how long each retry waits: a rule per retryable answer, the backoff's base
   * and cap, jitter, the `Retry-After` ceiling and a client-wide retry budget. Values not given keep
   * their defaults; 400, 403, 404, 409 and 422 are final and cannot be made retryable.
   * @default defaultRetryPolicy (README, "Errors and retries")
   * @example { baseDelayMs: 500, rules: { 500: false }, budget: { capacity: 100 } }
   */
  retry?: RetryOptions;
  /**
   * Bound on each HTTP attempt, in milliseconds.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Headers added to every API and MCP request of this client (not to the token request, which
   * clients made by `withOptions` share). They cannot set `Authorization`, `Content-Type` or
   * `Accept`, which the SDK owns: giving one throws `RequestValidationError` here. A
   * `User-Agent` given follows the SDK's own.
   * @default {}
   * @example { "X-Correlation-Id": "checkout-7" }
   */
  defaultHeaders?: Record<string, string>;
  /**
   * A `fetch` to use instead of the global one.
   * @default globalThis.fetch, looked up at call time (so interceptors installed later still apply)
   */
  fetch?: typeof fetch;
  /**
   * Where log lines go. They carry method, path, status, attempt and delay only: never a header,
   * body, token or secret.
   * @default undefined (nothing is logged), or `console` when `PARTNER_ORDERS_LOG` is set
   * @example console
   */
  logger?: Logger;
  /**
   * The least severe level written to `logger`. When not given, the `PARTNER_ORDERS_LOG`
   * environment variable (`debug`, `info`, `warn`, `error`, `off`) sets it, and its lines go to
   * `console` if no `logger` is given; an unknown value is ignored with a warning.
   * @default process.env.PARTNER_ORDERS_LOG, else "warn"
   */
  logLevel?: LogLevel;
  /**
   * Where the processes of a fleet share their bearer token, so the fleet makes one token request
   * per credential per expiry (the token endpoint has its own rate limit). When the cache is
   * unreachable, this process mints its own token.
   * @default undefined (each client keeps its own token)
   * @example createRedisTokenCache(redis) // from "partner-orders/fleet"
   */
  tokenCache?: TokenCache;
  /**
   * Shared by the processes of a fleet: when one meets a 429 with `Retry-After`, every process
   * waits it out before its next request, instead of each meeting the 429 on its own. A wait
   * longer than 60 s throws `RateLimitError` at once, like a local 429 would.
   * @default undefined (each client learns of the rate limit on its own)
   * @example createRedisRateLimitGate(redis) // from "partner-orders/fleet"
   */
  rateLimitGate?: RateLimitGate;
  /**
   * Traces and metrics through OpenTelemetry, when `@opentelemetry/api` (an optional peer) is
   * installed: spans per call and per HTTP attempt, `http.client.request.duration`, retries, the
   * retry budget and token requests (README, "Observability"). `false` turns them off.
   * @default {} (the global tracer and meter providers)
   */
  telemetry?: TelemetryOptions | false;
  /**
   * Time as the SDK sees it; inject one in tests so backoff and polling are instant.
   * @default the system clock
   */
  clock?: Clock;
}

/**
 * What `client.withOptions()` can change. The new client shares the original's connection, credential
 * and token cache; `defaultHeaders` given are added to the original's, the others replace its values.
 *
 * @example
 * const patient = client.withOptions({ maxRetries: 5, timeoutMs: 60_000 });
 */
export type ClientOverrides = Pick<
  ClientOptions,
  "maxRetries" | "retry" | "timeoutMs" | "logger" | "logLevel" | "defaultHeaders"
>;

/** Options every call takes last. */
export interface RequestOptions {
  /** Aborts the call, its retries and their sleeps; the call then throws `APIUserAbortError`. */
  signal?: AbortSignal;
  /**
   * Bound on each HTTP attempt of this call, in milliseconds.
   * @default the client's `timeoutMs` (30000)
   */
  timeoutMs?: number;
  /**
   * Retries for this call, across all retryable answers.
   * @default the client's `maxRetries` (2)
   */
  maxRetries?: number;
  /**
   * Headers added to this call's requests, over the client's `defaultHeaders`. `Authorization`,
   * `Content-Type` and `Accept` cannot be set: the call is then rejected with
   * `RequestValidationError` and nothing is sent.
   * @example { "X-Correlation-Id": "checkout-7" }
   */
  headers?: Record<string, string>;
}

export interface ResolvedOptions {
  baseUrl: URL;
  clientId: string | undefined;
  clientSecret: string | undefined;
  scopes: string[];
  tokenEndpointAuth: "client_secret_basic" | "client_secret_post";
  accessToken: ClientOptions["accessToken"];
  mtls: MtlsOptions | undefined;
  maxRetries: number;
  retry: RetryPolicy;
  /** The retry budget's tokens, shared with the clients made by `withOptions`. */
  retryBudget: RetryBudget | undefined;
  timeoutMs: number;
  tokenCache: TokenCache | undefined;
  rateLimitGate: RateLimitGate | undefined;
  /** Checked, with lower-case names. */
  defaultHeaders: Record<string, string>;
}

export function env(name: string): string | undefined {
  // `process` may not exist on edge runtimes; read it defensively.
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env?.[name];
  return value === "" ? undefined : value;
}

// URL keeps an IPv6 host in brackets ("http://[::1]" has the hostname "[::1]"), never bare.
const loopbackHosts = new Set(["localhost", "[::1]"]);

function isLoopback(hostname: string): boolean {
  // A URL host ending in four numeric labels is an IPv4 address (or refused by URL): no "^" needed.
  // Stryker disable next-line Regex: equivalent without "^", see above
  return loopbackHosts.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

function fail(message: string): never {
  throw new PartnerOrdersError(message);
}

export function resolveOptions(options: ClientOptions): ResolvedOptions {
  const rawBase = options.baseUrl ?? env("PARTNER_ORDERS_BASE_URL");
  if (!rawBase) {
    fail("No baseUrl: pass { baseUrl } or set PARTNER_ORDERS_BASE_URL.");
  }
  let baseUrl: URL;
  try {
    baseUrl = new URL(rawBase);
  } catch {
    fail("baseUrl is not a valid absolute URL.");
  }
  if (baseUrl.protocol === "http:" && !isLoopback(baseUrl.hostname)) {
    fail(`baseUrl must use https: (http: is accepted only for loopback hosts such as 127.0.0.1).`);
  }
  if (baseUrl.protocol !== "https:" && baseUrl.protocol !== "http:") {
    fail("baseUrl must use https:.");
  }
  if (baseUrl.username || baseUrl.password) {
    fail("baseUrl must not carry credentials; pass clientId and clientSecret instead.");
  }
  baseUrl.search = "";
  baseUrl.hash = "";

  const clientId = options.clientId ?? env("PARTNER_ORDERS_CLIENT_ID");
  const clientSecret = options.clientSecret ?? env("PARTNER_ORDERS_CLIENT_SECRET");
  const credentials = [
    options.accessToken !== undefined,
    options.mtls !== undefined,
    clientId !== undefined || clientSecret !== undefined,
  ].filter(Boolean).length;
  if (credentials === 0) {
    fail(
      "No credential: pass { clientId, clientSecret } (or set PARTNER_ORDERS_CLIENT_ID and " +
        "PARTNER_ORDERS_CLIENT_SECRET), { accessToken }, or { mtls }.",
    );
  }
  if (options.accessToken === undefined && !options.mtls && (!clientId || !clientSecret)) {
    fail(clientId ? "clientSecret is missing." : "clientId is missing.");
  }
  if (options.mtls && (options.accessToken !== undefined || options.clientSecret !== undefined)) {
    fail("mtls is a credential of its own: do not combine it with accessToken or clientSecret.");
  }

  const tuning = resolveTuning(options, defaultTuning);

  return {
    baseUrl,
    clientId,
    clientSecret,
    scopes: (options.scopes ?? []).map((s) =>
      s.startsWith("partner-api/") ? s : `partner-api/${s}`,
    ),
    tokenEndpointAuth: options.tokenEndpointAuth ?? "client_secret_basic",
    accessToken: options.accessToken,
    mtls: options.mtls,
    ...tuning,
    retryBudget: tuning.retry.budget ? new RetryBudget(tuning.retry.budget) : undefined,
    tokenCache: options.tokenCache,
    rateLimitGate: options.rateLimitGate,
  };
}

/** What a client made by `withOptions` may set differently from the one it came from. */
type Tuning = Pick<ResolvedOptions, "maxRetries" | "retry" | "timeoutMs" | "defaultHeaders">;

const defaultTuning: Tuning = {
  maxRetries: 2,
  retry: defaultRetryPolicy,
  timeoutMs: 30_000,
  defaultHeaders: {},
};

/** `options` over `base`, checked: `defaultHeaders` are added to the base's, the rest replace. */
export function resolveTuning(options: ClientOverrides, base: Tuning): Tuning {
  const maxRetries = options.maxRetries ?? base.maxRetries;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    fail("maxRetries must be a whole number >= 0.");
  const retry = resolveRetryPolicy(options.retry, base.retry);
  const budget = options.retry?.budget;
  if (
    base !== defaultTuning &&
    budget &&
    JSON.stringify(retry.budget) !== JSON.stringify(base.retry.budget)
  ) {
    fail(
      "withOptions() shares the retry budget: it can turn it off (budget: false), not change it.",
    );
  }
  const timeoutMs = options.timeoutMs ?? base.timeoutMs;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) fail("timeoutMs must be a positive number.");
  const added = resolveHeaders(options.defaultHeaders);
  const defaultHeaders = options.defaultHeaders
    ? { ...base.defaultHeaders, ...added }
    : base.defaultHeaders;
  return { maxRetries, retry, timeoutMs, defaultHeaders };
}

const overridable = [
  "maxRetries",
  "retry",
  "timeoutMs",
  "logger",
  "logLevel",
  "defaultHeaders",
] as const;

/** Refuses, for callers without types, an option `withOptions` cannot change. */
export function checkOverrides(overrides: object): void {
  const fixed = Object.keys(overrides).filter(
    (key) => !(overridable as readonly string[]).includes(key),
  );
  if (fixed.length) {
    fail(`withOptions() cannot change ${fixed.join(", ")}: create a new PartnerOrders for that.`);
  }
}
