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
  /** The client certificate in PEM, optionally followed by its intermediates (at most 4 in all). */
  cert: string | Uint8Array;
  /** The certificate's private key in PEM; it never leaves this process. */
  key: string | Uint8Array;
  /** Extra CA certificates to trust for the server's certificate. */
  ca?: string | Uint8Array | (string | Uint8Array)[];
  /** The passphrase of an encrypted `key`. */
  passphrase?: string;
}

/**
 * How to reach and authenticate with the service. Give exactly one credential: `clientId` with
 * `clientSecret` (from the options or the environment), `accessToken`, or `mtls`.
 * @example
 * const client = new PartnerOrders({
 *   baseUrl: "https://api.example.com",
 *   clientId: process.env.CLIENT_ID,
 *   clientSecret: process.env.CLIENT_SECRET,
 *   scopes: ["orders:read"],
 * });
 */
export interface ClientOptions {
  /** The API base URL (`http:` for loopback only). @default process.env.PARTNER_ORDERS_BASE_URL */
  baseUrl?: string;
  /** The OAuth client id from onboarding. @default process.env.PARTNER_ORDERS_CLIENT_ID */
  clientId?: string;
  /** The OAuth client secret from onboarding. @default process.env.PARTNER_ORDERS_CLIENT_SECRET */
  clientSecret?: string;
  /** Scopes, bare (`"orders:read"`); the SDK adds `partner-api/`. @default [] */
  scopes?: string[];
  /** How the client authenticates at the token endpoint. @default "client_secret_basic" */
  tokenEndpointAuth?: "client_secret_basic" | "client_secret_post";
  /** Your own token, or a function giving a fresh one (called again on 401). @default undefined */
  accessToken?: string | (() => string | Promise<string>);
  /** A client certificate, not a secret; `baseUrl` is then its mTLS host. @default undefined */
  mtls?: MtlsOptions;
  /** Retries per call, across all retryable answers. @default 2 */
  maxRetries?: number;
  /** What is retried and how long each retry waits ({@link RetryOptions}). @default defaultRetryPolicy */
  retry?: RetryOptions;
  /** Bound on each HTTP attempt, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Added to every API and MCP request; `Authorization`, `Content-Type`, `Accept` throw. @default {} */
  defaultHeaders?: Record<string, string>;
  /** A `fetch` to use instead of the global one. @default globalThis.fetch, read at call time */
  fetch?: typeof fetch;
  /** Where log lines go (never a secret). @default `console` if `PARTNER_ORDERS_LOG` is set */
  logger?: Logger;
  /** The least severe level logged. @default process.env.PARTNER_ORDERS_LOG, else "warn" */
  logLevel?: LogLevel;
  /** A fleet's shared bearer token (`createRedisTokenCache`). @default undefined */
  tokenCache?: TokenCache;
  /** A fleet waits out a 429 as one (`createRedisRateLimitGate`). @default undefined */
  rateLimitGate?: RateLimitGate;
  /** OpenTelemetry traces and metrics (needs `@opentelemetry/api`), or `false`. @default {} */
  telemetry?: TelemetryOptions | false;
  /** Time as the SDK sees it; inject one so tests wait instantly. @default the system clock */
  clock?: Clock;
}

/** What `client.withOptions()` can change; `defaultHeaders` are added to the original's. */
export type ClientOverrides = Pick<
  ClientOptions,
  "maxRetries" | "retry" | "timeoutMs" | "logger" | "logLevel" | "defaultHeaders"
>;

/** Options every call takes last. */
export interface RequestOptions {
  /** Aborts the call, its retries and their sleeps; the call then throws `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Bound on each HTTP attempt of this call, in milliseconds. @default the client's `timeoutMs` */
  timeoutMs?: number;
  /** Retries for this call, across all retryable answers. @default the client's `maxRetries` */
  maxRetries?: number;
  /** Added over `defaultHeaders`; `Authorization`, `Content-Type` and `Accept` are refused. */
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
  retryBudget: RetryBudget | undefined;
  timeoutMs: number;
  tokenCache: TokenCache | undefined;
  rateLimitGate: RateLimitGate | undefined;
  defaultHeaders: Record<string, string>;
}

export function env(name: string): string | undefined {
  // `process` may not exist on edge runtimes.
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env?.[name];
  return value === "" ? undefined : value;
}

// URL keeps an IPv6 host in brackets ("http://[::1]" has the hostname "[::1]"), never bare.
const loopbackHosts = new Set(["localhost", "[::1]"]);

function isLoopback(hostname: string): boolean {
  // Stryker disable next-line Regex: equivalent without "^", URL refuses other hosts ending so
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

type Tuning = Pick<ResolvedOptions, "maxRetries" | "retry" | "timeoutMs" | "defaultHeaders">;

const defaultTuning: Tuning = {
  maxRetries: 2,
  retry: defaultRetryPolicy,
  timeoutMs: 30_000,
  defaultHeaders: {},
};

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

// For callers without types.
export function checkOverrides(overrides: object): void {
  const fixed = Object.keys(overrides).filter(
    (key) => !(overridable as readonly string[]).includes(key),
  );
  if (fixed.length) {
    fail(`withOptions() cannot change ${fixed.join(", ")}: create a new PartnerOrders for that.`);
  }
}
