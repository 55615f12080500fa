import { type Clock, startTimer } from "../../internal/clock";
import { APIPromise, type WithResponse } from "../api-promise";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  PartnerOrdersError,
  RequestValidationError,
} from "../errors";
import { headerViolations, mergeHeaders } from "../headers";
import type { Log } from "../logger";
import type { ResponseModels } from "../models";
import { decodeBody } from "../money";
import { boundText } from "../redact";
import type { AttemptObserver, Sent, TelemetrySlot } from "./hooks";
import {
  type ApiOperationId,
  type CallOptions,
  displayPath,
  methodOf,
  type Operation,
  queryString,
} from "./operation";
import type { RetryBudget, RetryPolicy } from "./policy";
import { errorFromResponse } from "./problem";
import { withRetries } from "./retry";
import type { Wire, WireAnswer } from "./wire";

/** Where a call's bearer token comes from. */
export interface TokenSource {
  /**
   * A token to send now. Each caller bounds its wait with its own `signal` (`untilAborted`): the
   * token request itself is shared and tied to no caller.
   */
  get(signal?: AbortSignal): Promise<string>;
  /** The token to send now when one is at hand without waiting; undefined otherwise. */
  current(): string | undefined;
  /** The service refused `token` (401): forget it. True when a retry can bring a different token. */
  invalidate(token: string): boolean;
  /** `text` with every secret this source knows (credential, tokens) replaced by `[redacted]`. */
  redact(text: string): string;
}

/** One request as the layer takes it: the API's operations, the token request and MCP's. */
export interface HttpRequest<T> {
  method: string;
  /** Absolute, built once: every attempt sends it as it is. */
  url: string;
  /** The path for messages and log lines (no query string). */
  path: string;
  /** The spec's operationId (`getOrder`, `createToken`, `mcp`): names the call's trace span. */
  operation?: string;
  /** Lower-case names; the User-Agent and the bearer token are added here. */
  headers: Record<string, string>;
  /** Serialised once, so every retry sends identical bytes. */
  body?: string | undefined;
  /** False when no bearer token is sent (the token request, GET /v1/ping). @default true */
  auth?: boolean;
  /** False for the token request, which the call that waits on it retries. @default true */
  retry?: boolean;
  /** What a connection error could not reach. @default "the service" */
  target?: string;
  /** Reads an answer `succeeds` accepts, within the attempt's time. */
  read(answer: WireAnswer): Promise<T>;
  /** Which statuses `read` gets; any other becomes the typed error. @default 2xx */
  succeeds?(status: number): boolean;
  /** Blanks secrets out of server text; the token source's own when not given. */
  redact?: (text: string) => string;
  /** The error body as the error factory reads it (the token endpoint's RFC 6749 answer). */
  problem?(text: string, status: number): unknown;
}

/** What a client's requests share. */
export interface HttpConfig {
  wire: Wire;
  /** The SDK's User-Agent; undefined in a browser, which sends its own. */
  agent: string | undefined;
  /** The API base URL, without its trailing slash. */
  base: string;
  tokens: TokenSource | undefined;
  clock: Clock;
  log: Log;
  maxRetries: number;
  retry: RetryPolicy;
  /** The client's retry budget; undefined when it has none or it is off for this client. */
  budget: RetryBudget | undefined;
  timeoutMs: number;
  /** The client's `defaultHeaders`, checked, with lower-case names. */
  headers: Record<string, string>;
  /** Runs around each attempt of an API call; the fleet's rate-limit gate. */
  around?: AttemptWrapper | undefined;
  /** Traces and metrics, when `@opentelemetry/api` is installed (core/telemetry.ts). */
  telemetry?: TelemetrySlot | undefined;
}

/** Wraps one attempt of an API call (core/http/gate.ts). */
export type AttemptWrapper = <T>(
  attempt: () => Promise<T>,
  context: { method: string; path: string; options: CallOptions },
) => Promise<T>;

/**
 * The HTTP layer: every request the SDK makes, API, token and MCP, goes through {@link request},
 * which makes attempts under the retry policy and budget on the injected clock, bounds each by
 * `timeoutMs`, attaches the bearer token and turns the answer into data or a typed error.
 *
 * @internal Kept out of the published declarations (`stripInternal`), with the operations.
 */
export class Http {
  readonly #config: HttpConfig;
  readonly #observers = new Set<(operation: Operation, data: unknown) => void>();

  constructor(config: HttpConfig) {
    this.#config = config;
  }

  /** The client's telemetry (the submission wait and partner-orders/sync add their spans). */
  get telemetry(): TelemetrySlot | undefined {
    return this.#config.telemetry;
  }

  /**
   * Calls `observer` with the operation and the data of every API call that succeeds here
   * (partner-orders/sync learns the partnerOrderId of submissions so); returns the function that
   * stops it. An observer that throws is ignored.
   */
  observe(observer: (operation: Operation, data: unknown) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #tell(operation: Operation, data: unknown): void {
    for (const observer of this.#observers) {
      try {
        observer(operation, data);
      } catch {
        // An observer's failure is its own: the call succeeded.
      }
    }
  }

  /** An API operation: rejected before sending when its arguments or headers break a rule. */
  call<K extends ApiOperationId>(
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
    const path = displayPath(operation);
    const body: string | undefined = JSON.stringify(operation.body);
    const headers = { ...mergeHeaders(this.#config.headers, options.headers) };
    if (body !== undefined) headers["content-type"] = "application/json";
    const auth = operation.auth !== false;
    if (auth) headers.accept = "application/json";
    const decode = operation.decoder ?? decodeBody;
    const read = async (answer: WireAnswer): Promise<T> => {
      // Read as text: number-encoded money is converted from its digits as written, which
      // JSON.parse would already have rounded to a double.
      const text = await answer.text();
      if (text === "" || operation.decode === false) return undefined as T;
      return decode(operation.operationId, text) as T;
    };
    const url = this.#config.base + path + queryString(operation.params.query);
    const method = methodOf(operation);
    const { operationId } = operation;
    const request = { method, url, path, operation: operationId, headers, body, auth, read };
    return new APIPromise(
      this.request(request, options).then((answer) => {
        if (this.#observers.size) this.#tell(operation, answer.data);
        return answer;
      }),
    );
  }

  /** The one request function. */
  request<T>(request: HttpRequest<T>, options: CallOptions = {}): Promise<WithResponse<T>> {
    const slot = this.#config.telemetry;
    // Until the look-up for @opentelemetry/api ends; then no promise more than untraced.
    if (slot?.ready) return slot.ready.then(() => this.request(request, options));
    const hooks = slot?.hooks;
    if (hooks && !hooks.idle()) {
      return hooks.request(request, (observe) => this.#request(request, options, observe));
    }
    return this.#request(request, options, undefined);
  }

  async #request<T>(
    request: HttpRequest<T>,
    options: CallOptions,
    observe: AttemptObserver | undefined,
  ): Promise<WithResponse<T>> {
    const { clock, log, tokens, around, agent } = this.#config;
    const { method, path } = request;
    if (agent !== undefined) {
      // A User-Agent the partner gave follows the SDK's.
      const given = request.headers["user-agent"];
      request.headers["user-agent"] = given ? `${agent} ${given}` : agent;
    }
    const signal = options.signal;
    // The token the latest attempt sent: a 401 drops that token only, not one minted since.
    const used: Sent = {};
    const once = observe
      ? (n: number) => observe(n, request, used, () => this.#attempt(request, options, used, n))
      : (n: number) => this.#attempt(request, options, used, n);
    const attempt =
      around && request.auth !== false
        ? (n: number) => around(() => once(n), { method, path, options })
        : once;
    try {
      if (request.retry === false) return await attempt(1);
      return await withRetries(attempt, {
        maxRetries: options.maxRetries ?? this.#config.maxRetries,
        policy: this.#config.retry,
        budget: this.#config.budget,
        clock,
        signal,
        deadline: options.deadline,
        // Stryker disable next-line OptionalChaining: a token was sent only when there is a token source
        onUnauthorized: () => used.token !== undefined && tokens?.invalidate(used.token) === true,
        onRetry: ({ error, attempt: n, delayMs }) =>
          log.info(`retrying ${method} ${path}`, {
            status: error instanceof APIError ? error.status : undefined,
            // Server text: bounded, so a hostile code cannot make a megabyte log line.
            code: error instanceof APIError && error.code ? boundText(error.code, 100) : undefined,
            attempt: n,
            delayMs: Math.round(delayMs),
          }),
      });
    } catch (error) {
      if (signal?.aborted && !(error instanceof PartnerOrdersError)) throw new APIUserAbortError();
      if (error instanceof PartnerOrdersError) throw error;
      throw new APIConnectionError(`${method} ${path} failed.`, { cause: error });
    }
  }

  /**
   * One attempt, bounded by one timer on the client's clock: the wait for a token included, so a
   * slow token endpoint cannot carry a call past its `timeoutMs`, nor a wait past its deadline.
   */
  async #attempt<T>(
    request: HttpRequest<T>,
    options: CallOptions,
    used: Sent,
    attempt: number,
  ): Promise<WithResponse<T>> {
    const { clock, log } = this.#config;
    const { method, path } = request;
    const signal = options.signal;
    if (signal?.aborted) throw new APIUserAbortError();
    let timeoutMs = options.timeoutMs ?? this.#config.timeoutMs;
    if (options.deadline !== undefined) {
      timeoutMs = Math.min(timeoutMs, options.deadline - clock.monotonic());
      if (timeoutMs <= 0)
        // Stryker disable next-line StringLiteral: a wait (the only caller with a deadline) reports SubmissionTimeoutError instead
        throw new APITimeoutError(`${method} ${path}: the deadline has passed.`);
    }
    const started = log.enabled("debug") ? clock.monotonic() : 0;
    const timeout = new AbortController();
    let linked = timeout.signal;
    let unlink: (() => void) | undefined;
    if (signal) {
      // Linked without a listener where the runtime can (Node 20.3+): a body read after the answer
      // (an MCP event stream) stays abortable by the caller, and a long-lived signal shared by many
      // requests collects no listeners.
      if (AbortSignal.any) linked = AbortSignal.any([signal, timeout.signal]);
      else {
        const onAbort = () => timeout.abort();
        // An abort event fires once; `unlink` removes the listener after the attempt either way.
        signal.addEventListener("abort", onAbort);
        unlink = () => signal.removeEventListener("abort", onAbort);
      }
    }
    // Started before the timer: a token request bounded by the same timeoutMs gives up first,
    // with its own error, and a retry mints afresh instead of joining it.
    const work = this.#exchange(request, linked, used);
    const cancelTimer = startTimer(clock, timeoutMs, () => timeout.abort());
    // A test clock (the sandbox's runAll) waits for the answer before it moves time on.
    clock.track?.(work);
    let result: Exchanged<T>;
    try {
      result = await work;
    } catch (cause) {
      if (signal?.aborted) throw new APIUserAbortError();
      if (timeout.signal.aborted) {
        throw new APITimeoutError(`${method} ${path} timed out after ${Math.round(timeoutMs)} ms.`);
      }
      if (cause instanceof PartnerOrdersError) throw cause;
      throw new APIConnectionError(
        `${method} ${path} failed: could not reach ${request.target ?? "the service"}.`,
        { cause },
      );
    } finally {
      cancelTimer();
      unlink?.();
    }
    // Stryker disable next-line ConditionalExpression: log.debug writes nothing when debug is off; the check only skips building the line
    if (log.enabled("debug")) {
      log.debug(`${method} ${path}`, {
        status: result.answer.status,
        attempt,
        ms: Math.round(clock.monotonic() - started),
      });
    }
    const { answer, failure } = result;
    if (failure === undefined) return withResponse(result.data as T, answer);
    const { tokens } = this.#config;
    throw errorFromResponse(
      method,
      path,
      { status: answer.status, headers: answer.headers() },
      request.problem ? request.problem(failure, answer.status) : failure,
      clock.now(),
      request.redact ?? (tokens && ((t) => tokens.redact(t))),
    );
  }

  async #exchange<T>(
    request: HttpRequest<T>,
    signal: AbortSignal,
    used: Sent,
  ): Promise<Exchanged<T>> {
    const { tokens } = this.#config;
    const { method, path } = request;
    const headers = request.headers;
    used.token = undefined;
    used.status = undefined;
    if (request.auth !== false && tokens) {
      const token = tokens.current() ?? (await untilAborted(tokens.get(signal), signal));
      used.token = token;
      if (token) headers.authorization = `Bearer ${token}`;
    }
    const answer = await this.#config.wire({
      method,
      url: request.url,
      headers,
      body: request.body,
      signal,
    });
    const { status } = answer;
    used.status = status;
    if (status >= 300 && status < 400) {
      answer.discard();
      throw new APIError({
        status,
        method,
        path,
        headers: answer.headers(),
        message: `${method} ${path} answered with a redirect (${status}), which is not followed.`,
      });
    }
    if (request.succeeds ? request.succeeds(status) : status >= 200 && status < 300) {
      return { data: await request.read(answer), answer };
    }
    return { answer, failure: await answer.text().catch(() => "") };
  }
}

/** An answer and what was read of it: the data of a success, the body text of a failure. */
interface Exchanged<T> {
  answer: WireAnswer;
  data?: T;
  failure?: string;
}

/** The data with the answer it came from; the `Response` is only made when asked for. */
function withResponse<T>(data: T, answer: WireAnswer): WithResponse<T> {
  let response: Response | undefined;
  return {
    data,
    get response() {
      response ??= answer.response();
      return response;
    },
  };
}

/** `promise`, or a rejection as soon as `signal` aborts, whether or not its source listens to it. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    // An abort event fires once; the listener is removed when the promise settles.
    else signal.addEventListener("abort", onAbort);
    // Settling after an abort is ignored, a rejection included (never an unhandled one).
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
