import createClient, { type FetchOptions } from "openapi-fetch";
import type { operations, paths } from "../generated/openapi";
import { routes } from "../generated/routes";
import type { Clock } from "../internal/clock";
import { APIPromise, type WithResponse } from "./api-promise";
import type { TokenSource } from "./auth";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  errorFromResponse,
  PartnerOrdersError,
  RateLimitError,
  RequestValidationError,
  type Violation,
} from "./errors";
import { headerViolations, mergeHeaders } from "./headers";
import type { Log } from "./logger";
import type { ResponseModels } from "./models";
import { decodeBody } from "./money";
import type { RequestOptions } from "./options";
import type { RateLimitGate } from "./rate-limit-gate";
import { boundText } from "./redact";
import { type RetryBudget, type RetryPolicy, withRetries } from "./retry";
import { type Channel, send, untilAborted } from "./send";

/** @internal The operations sent on this path; the token and MCP requests are built by their own modules. */
export type ApiOperationId = Exclude<keyof typeof routes, "createToken" | "mcp">;

/**
 * @internal What the generated types say a call of `K` takes: its path and query parameters and its
 * JSON body. A wrong name, type or missing required value is a compile error where the call is made.
 */
export type CallInit<K extends ApiOperationId> = Pick<
  FetchOptions<operations[K]>,
  "params" | "body"
>;

/** @internal One call as a resource describes it: made by {@link operation}, which checks its types. */
export interface Operation<K extends ApiOperationId = ApiOperationId> {
  /** The spec's operationId: it selects the method, the path and which response fields are money. */
  operationId: K;
  /** Path and query parameters, path ones already checked against their documented formats. */
  params: { path?: Record<string, string | number>; query?: Record<string, unknown> };
  /** JSON body; serialised once, so every retry sends identical bytes. */
  body?: unknown;
  /** False for the calls that need no application credential (GET /v1/ping). @default true */
  auth?: boolean;
  /**
   * False when the success body is not read as data: GET /v1/ping, whose response shape the API
   * document does not show, succeeds on any 2xx whatever its body. @default true
   */
  decode?: boolean;
  /**
   * Reads a success body into data; {@link decodeBody} when not given. The order mirror's page gives
   * `decodeRows`, which keeps a row it cannot read out of the page instead of refusing the page.
   */
  decoder?: (operationId: string, text: string) => unknown;
  /**
   * Broken rules found in the call's arguments. When there is any, the call is rejected with a
   * {@link RequestValidationError} and nothing is sent (rejected, not thrown, so
   * `Promise.allSettled` and `.catch()` see it like any other failure).
   */
  violations?: readonly Violation[];
  /** Names the arguments in that error's message, e.g. "order request". */
  what?: string;
}

/** @internal How an operation is sent, beside what the spec types. */
export type OperationExtras = Pick<Operation, "auth" | "decode" | "violations" | "what">;

/**
 * @internal Describes a call of `operationId`: `init` is checked against the generated types of
 * that operation (its path and query parameters and its body), so a resource cannot send a
 * parameter the spec does not have, or leave out one it requires.
 */
export function operation<K extends ApiOperationId>(
  operationId: K,
  init: CallInit<K>,
  extras: OperationExtras = {},
): Operation<K> {
  const { params, body } = init as { params?: Operation["params"]; body?: unknown };
  return { operationId, params: params ?? {}, body, ...extras };
}

/** @internal */
export interface CallOptions extends RequestOptions {
  /** Monotonic ms past which no attempt, retry or sleep is started (submitOrderAndWait). */
  deadline?: number;
}

/** @internal */
export interface TransportConfig {
  baseUrl: URL;
  fetch: Channel;
  tokens: TokenSource | undefined;
  maxRetries: number;
  retry: RetryPolicy;
  /** The client's retry budget; undefined when it has none or it is off for this client. */
  retryBudget: RetryBudget | undefined;
  timeoutMs: number;
  clock: Clock;
  log: Log;
  rateLimitGate?: RateLimitGate | undefined;
  /** The client's `defaultHeaders`, checked, with lower-case names. */
  headers?: Record<string, string>;
}

/**
 * The one request path: builds the request, attaches auth, runs the retry loop and turns the
 * answer into data or an error. Resources only describe operations.
 *
 * @internal Kept out of the published declarations (`stripInternal`), with {@link Operation}: the
 * resources' constructors that take it are `@internal` too.
 */
export class Transport {
  readonly #config: TransportConfig;
  readonly #http: ReturnType<typeof createClient<paths>>;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#http = createClient<paths>({
      // openapi-fetch drops the trailing slash of the href itself.
      baseUrl: config.baseUrl.href,
      // Bodies arrive already serialised, once per call (`#run`), so every retry sends identical bytes.
      bodySerializer: (body: unknown) => body as string,
    });
  }

  request<K extends ApiOperationId>(
    operation: Operation<K>,
    options: CallOptions = {},
  ): APIPromise<ResponseModels[K]> {
    type T = ResponseModels[K];
    const violations = [
      ...(operation.violations ?? []),
      ...headerViolations(options.headers, "headers"),
    ];
    if (violations.length) {
      const error = new RequestValidationError(violations, operation.what);
      return new APIPromise<T>(Promise.reject(error));
    }
    return new APIPromise(this.#run<T>(operation, options));
  }

  async #run<T>(operation: Operation, options: CallOptions): Promise<WithResponse<T>> {
    const { clock, log, tokens } = this.#config;
    // JSON.stringify(undefined) is undefined: a call without a body sends none.
    const body: string | undefined = JSON.stringify(operation.body);
    const signal = options.signal;
    const method = methodOf(operation);
    // What the latest attempt sent: a 401 drops that token only, not one another call minted since.
    const used: Used = {};
    try {
      return await withRetries(
        (attempt) => this.#attempt<T>(operation, body, options, attempt, used),
        {
          maxRetries: options.maxRetries ?? this.#config.maxRetries,
          policy: this.#config.retry,
          budget: this.#config.retryBudget,
          clock,
          signal,
          deadline: options.deadline,
          // Stryker disable next-line OptionalChaining: a token was sent only when there is a token source
          onUnauthorized: () => used.token !== undefined && tokens?.invalidate(used.token) === true,
          onRetry: ({ error, attempt, delayMs }) =>
            log.info(`retrying ${method} ${displayPath(operation)}`, {
              status: error instanceof APIError ? error.status : undefined,
              // Server text: bounded, so a hostile code cannot make a megabyte log line.
              code:
                error instanceof APIError && error.code ? boundText(error.code, 100) : undefined,
              attempt,
              delayMs: Math.round(delayMs),
            }),
        },
      );
    } catch (error) {
      if (signal?.aborted && !(error instanceof PartnerOrdersError)) throw new APIUserAbortError();
      if (error instanceof PartnerOrdersError) throw error;
      throw new APIConnectionError(`${method} ${displayPath(operation)} failed.`, {
        cause: error,
      });
    }
  }

  async #attempt<T>(
    operation: Operation,
    body: string | undefined,
    options: CallOptions,
    attempt: number,
    used: Used,
  ): Promise<WithResponse<T>> {
    const { clock, log, tokens } = this.#config;
    const method = methodOf(operation);
    // The filled-in path is only needed for messages and log lines; most calls never build it.
    const path = () => displayPath(operation);
    // p-retry checks the caller's signal before each attempt; send checks it again.
    const signal = options.signal;

    const gate = this.#config.rateLimitGate;
    if (gate) await this.#waitForFleet(gate, operation, options);

    // After the fleet's wait: the time it took counts against the deadline too.
    let timeoutMs = options.timeoutMs ?? this.#config.timeoutMs;
    if (options.deadline !== undefined) {
      timeoutMs = Math.min(timeoutMs, options.deadline - clock.monotonic());
      if (timeoutMs <= 0)
        // Stryker disable next-line StringLiteral: a wait (the only caller with a deadline) reports SubmissionTimeoutError instead
        throw new APITimeoutError(`${method} ${path()}: the deadline has passed.`);
    }

    const started = log.enabled("debug") ? clock.monotonic() : 0;
    used.token = undefined;
    // One bound for the whole attempt, the wait for a token included: a slow token endpoint cannot
    // carry a call past its timeoutMs, nor a wait past its deadline, which bounds the POST, its
    // retries and every poll (README, "Submitting orders safely").
    const result = await send(
      { channel: this.#config.fetch, clock, timeoutMs, signal, method, path },
      async (timeout, fetch) => {
        // Asked for before this attempt's timer starts (send runs this first): a token request
        // bounded by the same timeoutMs then gives up first, with its own error, and a retry mints
        // afresh instead of joining it.
        const token =
          operation.auth !== false && tokens
            ? await untilAborted(tokens.get(timeout), timeout)
            : undefined;
        used.token = token;
        const { method, path } = routes[operation.operationId];
        // Typed where the operation was made (`operation()` checks its init against `operations[K]`);
        // here K is any operation, which openapi-fetch's per-path types cannot narrow.
        const request = this.#http.request as unknown as UntypedRequest;
        return request(method, path, {
          params: operation.params,
          body,
          // Read as text: the money table converts number-encoded money from its digits as written,
          // which JSON.parse would already have rounded to a double.
          parseAs: "text",
          headers: {
            // The partner's first: the headers the SDK owns are refused there (core/headers.ts).
            ...mergeHeaders(this.#config.headers ?? {}, options.headers),
            ...(token ? { authorization: `Bearer ${token}`, accept: "application/json" } : {}),
          },
          signal: timeout,
          fetch,
          // Never follow a redirect: credentials must not leave the configured origin.
          redirect: "manual",
        });
      },
    );

    const { response } = result;
    // Stryker disable next-line ConditionalExpression: log.debug writes nothing when debug is off; the check only skips building the line
    if (log.enabled("debug")) {
      log.debug(`${method} ${path()}`, {
        status: response.status,
        attempt,
        ms: Math.round(clock.monotonic() - started),
      });
    }
    if (response.ok) {
      const text = typeof result.data === "string" && operation.decode !== false ? result.data : "";
      const decode = operation.decoder ?? decodeBody;
      const data = (text === "" ? undefined : decode(operation.operationId, text)) as T;
      return { data, response };
    }
    const error = errorFromResponse(
      method,
      path(),
      response,
      result.error,
      clock.now(),
      tokens && ((text) => tokens.redact(text)),
    );
    if (error instanceof RateLimitError && error.retryAfterSeconds && this.#config.rateLimitGate) {
      // The limit is the partner's, not this process's: the whole fleet waits it out.
      await this.#config.rateLimitGate
        .close(error.retryAfterSeconds * 1000)
        .catch((cause: unknown) => this.#gateUnavailable(cause));
    }
    throw error;
  }

  /**
   * Waits while another process of the fleet has closed the rate-limit gate after a 429. Bounded like
   * a local `Retry-After`: past the 60 s ceiling the call throws `RateLimitError` at once, and a wait
   * that would pass the deadline is not started.
   */
  async #waitForFleet(
    gate: RateLimitGate,
    operation: Operation,
    options: CallOptions,
  ): Promise<void> {
    const { clock, log } = this.#config;
    let waitMs: number;
    try {
      // A gate that answers no number (undefined, NaN) is open: the test below returns.
      waitMs = await gate.waitMs();
    } catch (cause) {
      this.#gateUnavailable(cause);
      return;
    }
    if (!(waitMs > 0)) return;
    const method = methodOf(operation);
    const path = displayPath(operation);
    const seconds = Math.ceil(waitMs / 1000);
    const ceiling = this.#config.retry.maxRetryAfterSeconds;
    if (seconds > ceiling) {
      throw new RateLimitError({
        status: 429,
        method,
        path,
        headers: new Headers({ "retry-after": String(seconds) }),
        retryAfterSeconds: seconds,
        message: `${method} ${path} not sent: the fleet waits ${seconds} s for the rate limit (Retry-After met by another process), longer than the ${ceiling} s ceiling.`,
      });
    }
    if (clock.monotonic() + waitMs > (options.deadline ?? Number.POSITIVE_INFINITY)) {
      throw new APITimeoutError(
        // Stryker disable next-line StringLiteral: a wait (the only caller with a deadline) reports SubmissionTimeoutError instead
        `${method} ${path} not sent: the fleet's wait for the rate limit ends after the deadline.`,
      );
    }
    log.info(`waiting for the fleet's rate limit before ${method} ${path}`, { delayMs: waitMs });
    await clock.sleep(waitMs, options.signal);
  }

  #gateUnavailable(cause: unknown): void {
    // The error's name only: a Redis client's message can carry its URL and password.
    this.#config.log.warn("rate-limit gate unavailable; sending without it", {
      error: cause instanceof Error ? cause.name : typeof cause,
    });
  }
}

/** The request path with its parameters filled in and no query string: safe for messages and logs. */
export function displayPath(operation: Operation): string {
  return routes[operation.operationId].path.replace(/\{(\w+)\}/g, (_, name: string) =>
    // Stryker disable next-line OptionalChaining,StringLiteral: operation() requires every path parameter its path names
    encodeURIComponent(String(operation.params.path?.[name] ?? "")),
  );
}

/** The operation's HTTP method, upper-case as messages and log lines show it. */
export function methodOf(operation: Operation): "GET" | "POST" {
  return routes[operation.operationId].method === "post" ? "POST" : "GET";
}

/** The token an attempt sent, if any. */
interface Used {
  token?: string | undefined;
}

/** openapi-fetch's `request` with its per-path types erased (see the one call above). */
type UntypedRequest = (
  method: string,
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
