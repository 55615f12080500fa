import pRetry from "p-retry";
import type { Clock } from "../internal/clock";
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  InternalServerError,
  parseRetryAfter,
  RateLimitError,
  ServiceUnavailableError,
} from "./errors";

/**
 * When and how long to wait before a retry: API.md "Retries" and the API document's Errors rule 3,
 * in one table. 400, 403, 404, 409 and 422 are never retried; an edge-firewall 403 neither.
 */
export const retryPolicy = {
  /** First backoff step for 503, connection errors and timeouts; doubles each retry. */
  baseDelayMs: 1_000,
  /** Cap on one backoff step. */
  maxDelayMs: 20_000,
  /** A 500 is retried at most once, after at least this long. */
  internalErrorDelayMs: 1_000,
  /** A `Retry-After` longer than this is not waited for: the call throws `RateLimitError` at once. */
  maxRetryAfterSeconds: 60,
} as const;

/** What the retry loop is told about one failed attempt. */
export interface RetryState {
  /** Retries already made in this call (0 before the first retry). */
  retriesMade: number;
  /** 500s already retried in this call. */
  internalErrorRetries: number;
  /** Whether a 401 was already answered with a fresh token in this call. */
  refreshedToken: boolean;
}

/** Milliseconds to wait before retrying after `error`, or null when it must not be retried. */
export function retryDelay(
  error: unknown,
  state: RetryState,
  random = Math.random,
  nowMs = Date.now(),
): number | null {
  const step = Math.min(retryPolicy.maxDelayMs, retryPolicy.baseDelayMs * 2 ** state.retriesMade);
  // Jitter spreads a fleet of clients so they do not all come back in the same second; the cap
  // holds after it.
  const jittered = Math.min(retryPolicy.maxDelayMs, step * (1 + random() * 0.25));
  if (error instanceof RateLimitError) {
    const hint = error.retryAfterSeconds;
    if (hint === null) return jittered;
    if (hint > retryPolicy.maxRetryAfterSeconds) return null;
    // The server's hint is a floor (STYLE.md: server hints win); jitter only adds to it.
    return hint * 1000 + random() * step;
  }
  if (error instanceof AuthenticationError) {
    // One fresh token, at once; a second 401 is final (API document, Errors rule 3).
    return state.refreshedToken ? null : 0;
  }
  if (error instanceof InternalServerError) {
    return state.internalErrorRetries > 0
      ? null
      : retryPolicy.internalErrorDelayMs + random() * retryPolicy.internalErrorDelayMs;
  }
  if (error instanceof ServiceUnavailableError) {
    const hinted = (parseRetryAfter(error.headers, nowMs) ?? 0) * 1000;
    return Math.min(Math.max(hinted, jittered), retryPolicy.maxRetryAfterSeconds * 1000);
  }
  if (error instanceof APIConnectionError) return jittered;
  return null;
}

export interface RetryLoopOptions {
  maxRetries: number;
  clock: Clock;
  signal?: AbortSignal;
  /** Monotonic ms past which no retry or sleep is started. */
  deadline?: number;
  /** Called before a 401 retry; false when no fresh credential can be had. */
  onUnauthorized?: (error: AuthenticationError) => boolean;
  onRetry?: (info: { error: unknown; attempt: number; delayMs: number }) => void;
}

/**
 * Runs `attempt` under p-retry with the policy above. p-retry counts retries and stops on abort; the
 * policy computes each wait, slept on the injected clock so tests need no real time.
 */
export function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryLoopOptions,
): Promise<T> {
  const state: RetryState = { retriesMade: 0, internalErrorRetries: 0, refreshedToken: false };
  const shouldRetry = async ({
    error,
    attemptNumber,
  }: {
    error: unknown;
    attemptNumber: number;
  }) => {
    if (error instanceof APIUserAbortError) return false;
    let delayMs = retryDelay(error, state, Math.random, options.clock.now());
    if (delayMs === null) return false;
    if (error instanceof AuthenticationError) {
      if (!options.onUnauthorized?.(error)) return false;
      state.refreshedToken = true;
      delayMs = 0;
    }
    if (error instanceof InternalServerError) state.internalErrorRetries++;
    if (options.deadline !== undefined && options.clock.monotonic() + delayMs > options.deadline) {
      throw new APITimeoutError(
        `The deadline comes before the next retry could be made (last error: ${
          error instanceof Error ? error.message : String(error)
        }).`,
      );
    }
    options.onRetry?.({ error, attempt: attemptNumber, delayMs });
    state.retriesMade++;
    if (delayMs > 0) await options.clock.sleep(delayMs, options.signal);
    return true;
  };
  // Most calls succeed at once: make the first attempt directly and hand over to p-retry only
  // when a retry is wanted, so a successful call pays nothing for the retry machinery.
  return attempt(1).catch(async (error: unknown) => {
    if (options.maxRetries === 0 || !(await shouldRetry({ error, attemptNumber: 1 }))) throw error;
    return pRetry((n) => attempt(n + 1), {
      retries: options.maxRetries - 1,
      minTimeout: 0,
      maxTimeout: 0,
      signal: options.signal,
      shouldRetry: ({ error, attemptNumber }) =>
        shouldRetry({ error, attemptNumber: attemptNumber + 1 }),
    });
  });
}
