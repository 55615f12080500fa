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

export interface TokenSource {
  // The token request is shared and tied to no caller: each bounds its own wait with `signal`. Kept
  // by nothing once settled: a finished attempt's signal serves later attempts.
  get(signal?: AbortSignal): Promise<string>;
  current(): string | undefined;
  /** Forgets a refused `token`; true when a retry can bring a different one. */
  invalidate(token: string): boolean;
  redact(text: string): string;
}

export interface HttpRequest<T> {
  method: string;
  url: string;
  path: string;
  operation?: string;
  headers: Record<string, string>;
  body?: string | undefined;
  auth?: boolean;
  retry?: boolean;
  target?: string;
  /** Either reads the answer, or `parse` makes its whole body, as text, into data. */
  read?(answer: WireAnswer): Promise<T>;
  parse?(text: string): T;
  succeeds?(status: number): boolean;
  redact?: (text: string) => string;
  problem?(text: string, status: number): unknown;
}

export interface HttpConfig {
  wire: Wire;
  /** Undefined in a browser, which sends its own. */
  agent: string | undefined;
  /** Without its trailing slash. */
  base: string;
  tokens: TokenSource | undefined;
  clock: Clock;
  log: Log;
  maxRetries: number;
  retry: RetryPolicy;
  budget: RetryBudget | undefined;
  timeoutMs: number;
  headers: Record<string, string>;
  around?: AttemptWrapper | undefined;
  telemetry?: TelemetrySlot | undefined;
}

export type AttemptWrapper = <T>(
  attempt: () => Promise<T>,
  context: { method: string; path: string; options: CallOptions },
) => Promise<T>;

/** @internal Every request the SDK makes (API, token, MCP) goes through {@link request}. */
export class Http {
  readonly #config: HttpConfig;
  readonly #observers = new Set<(operation: Operation, data: unknown) => void>();
  /** Timeout controllers of finished attempts that nothing listens to any more (16 at most). */
  readonly #spare: AbortController[] = [];

  constructor(config: HttpConfig) {
    this.#config = config;
  }

  get telemetry(): TelemetrySlot | undefined {
    return this.#config.telemetry;
  }

  observe(observer: (operation: Operation, data: unknown) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #tell(operation: Operation, data: unknown): void {
    for (const observer of this.#observers) {
      try {
        observer(operation, data);
      } catch {
        // The call succeeded; an observer's failure is its own.
      }
    }
  }

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
    const url = this.#config.base + path + queryString(operation.params.query);
    const { operationId } = operation;
    const decode = operation.decoder ?? decodeBody;
    const request: HttpRequest<T> = {
      method: methodOf(operation),
      url,
      path,
      operation: operationId,
      headers,
      body,
      auth,
      // As text: JSON.parse would round number-encoded money to a double.
      parse: (text) =>
        (text === "" || operation.decode === false ? undefined : decode(operationId, text)) as T,
    };
    return new APIPromise(
      this.request(request, options).then((answer) => {
        if (this.#observers.size) this.#tell(operation, answer.data);
        return answer;
      }),
    );
  }

  request<T>(request: HttpRequest<T>, options: CallOptions = {}): Promise<WithResponse<T>> {
    const slot = this.#config.telemetry;
    // Only until the @opentelemetry/api look-up ends: then no promise more than untraced.
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
      const given = request.headers["user-agent"];
      request.headers["user-agent"] = given ? `${agent} ${given}` : agent;
    }
    const signal = options.signal;
    // A 401 drops the token the latest attempt sent, not one minted since.
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

  // One timer bounds the attempt, the wait for a token included.
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
    const timeout = this.#spare.pop() ?? new AbortController();
    let linked = timeout.signal;
    let unlink: (() => void) | undefined;
    if (signal) {
      // AbortSignal.any: a body read later (MCP) stays abortable; a shared signal collects no listeners.
      if (AbortSignal.any) linked = AbortSignal.any([signal, timeout.signal]);
      else {
        const onAbort = () => timeout.abort();
        signal.addEventListener("abort", onAbort);
        unlink = () => signal.removeEventListener("abort", onAbort);
      }
    }
    // Before the timer: a token request with the same timeoutMs gives up first, with its own error.
    const work = this.#exchange(request, linked, used);
    let settled = false;
    // Never once settled, even from a clock whose cancel came late: the controller may be kept.
    const cancelTimer = startTimer(clock, timeoutMs, () => settled || timeout.abort());
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
      settled = true;
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
    // Making a controller costs more than the rest of a call's own work: one that nothing holds is kept.
    if (
      signal === undefined &&
      !linked.aborted &&
      answer.released?.() === true &&
      this.#spare.length < 16
    ) {
      this.#spare.push(timeout);
    }
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
      const data = request.parse
        ? request.parse(await answer.text())
        : ((await request.read?.(answer)) as T);
      return { data, answer };
    }
    return { answer, failure: await answer.text().catch(() => "") };
  }
}

interface Exchanged<T> {
  answer: WireAnswer;
  data?: T;
  failure?: string;
}

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

/** `promise`, or a rejection as soon as `signal` aborts, whether or not its source listens. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort);
    // A rejection after the abort is ignored, never unhandled.
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
