import type { Clock } from "../../internal/clock";
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  InternalServerError,
  type PartnerOrdersError,
  RateLimitError,
  ServiceUnavailableError,
} from "../errors";
import {
  defaultRetryPolicy,
  type RetryableAnswer,
  type RetryBudget,
  type RetryPolicy,
} from "./policy";

export function answerOf(error: unknown): RetryableAnswer | undefined {
  if (error instanceof AuthenticationError) return "401";
  if (error instanceof RateLimitError) return "429";
  if (error instanceof InternalServerError) return "500";
  if (error instanceof ServiceUnavailableError) return "503";
  if (error instanceof APITimeoutError) return "timeout";
  if (error instanceof APIConnectionError) return "connection";
  return undefined;
}

export interface RetryState {
  retriesMade: number;
  byAnswer?: Partial<Record<RetryableAnswer, number>>;
}

export function retryDelay(
  error: unknown,
  state: RetryState,
  random = Math.random,
  nowMs = Date.now(),
  policy: RetryPolicy = defaultRetryPolicy,
): number | null {
  const answer = answerOf(error);
  const rule = answer && policy.rules[answer];
  if (!answer || !rule || (state.byAnswer?.[answer] ?? 0) >= rule.maxRetries) return null;
  const { maxDelayMs, jitter } = policy;
  const step = Math.min(maxDelayMs, policy.baseDelayMs * 2 ** state.retriesMade);
  let wait = rule.backoff ? Math.min(maxDelayMs, step * (1 + random() * jitter)) : 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a least wait of 0 never raises a wait (the guard only spares a random draw)
  if (rule.minDelayMs > 0) {
    wait = Math.max(wait, rule.minDelayMs * (1 + (jitter > 0 ? random() : 0)));
  }
  if (error instanceof RateLimitError && error.retryAfterSeconds !== null) {
    const hint = error.retryAfterSeconds;
    if (hint > policy.maxRetryAfterSeconds) return null;
    // The server's hint is authoritative, so it is a floor; jitter only adds to it.
    return Math.max(wait, hint * 1000 + (jitter > 0 ? random() * step : 0));
  }
  if (error instanceof ServiceUnavailableError) {
    const hinted = (parseRetryAfter(error.headers, nowMs) ?? 0) * 1000;
    return Math.min(Math.max(hinted, wait), policy.maxRetryAfterSeconds * 1000);
  }
  return wait;
}

export interface RetryLoopOptions {
  maxRetries: number;
  clock: Clock;
  policy?: RetryPolicy;
  budget?: RetryBudget | undefined;
  signal?: AbortSignal | undefined;
  deadline?: number | undefined;
  /** False when no fresh credential can be had. */
  onUnauthorized?: (error: AuthenticationError) => boolean;
  onRetry?: (info: { error: unknown; attempt: number; delayMs: number }) => void;
}

export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryLoopOptions,
): Promise<T> {
  const { clock, budget, signal } = options;
  const policy = options.policy ?? defaultRetryPolicy;
  const state: Required<RetryState> = { retriesMade: 0, byAnswer: {} };
  let lastCost = 0;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw new APIUserAbortError();
    try {
      const value = await attempt(n);
      budget?.succeeded(lastCost);
      return value;
    } catch (error) {
      if (n > options.maxRetries || error instanceof APIUserAbortError) throw error;
      const answer = answerOf(error);
      const delayMs = retryDelay(error, state, Math.random, clock.now(), policy);
      if (!answer || delayMs === null) throw error;
      const failure = error as PartnerOrdersError;
      if (failure instanceof AuthenticationError && !options.onUnauthorized?.(failure)) throw error;
      if (options.deadline !== undefined && clock.monotonic() + delayMs > options.deadline) {
        throw new APITimeoutError(
          `The deadline comes before the next retry could be made (last error: ${failure.message}).`,
        );
      }
      if (budget) {
        const cost = budget.cost(answer);
        if (!budget.take(cost)) {
          failure.message += " (Not retried: the client's retry budget is spent.)";
          throw error;
        }
        lastCost = cost;
      }
      options.onRetry?.({ error, attempt: n, delayMs });
      state.retriesMade++;
      state.byAnswer[answer] = (state.byAnswer[answer] ?? 0) + 1;
      if (delayMs > 0) await clock.sleep(delayMs, signal);
    }
  }
}

/** `Retry-After` in seconds (RFC 9110 10.2.3); null when absent or malformed (`-5`, `2, 3`). */
export function parseRetryAfter(headers: Headers, nowMs: number = Date.now()): number | null {
  // Stryker disable next-line MethodExpression: equivalent, Headers strip surrounding spaces
  const raw = headers.get("retry-after")?.trim();
  // Stryker disable next-line ConditionalExpression: equivalent, an empty value matches no form below
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  const date = parseHttpDate(raw, nowMs);
  if (date === null) return null;
  return Math.max(0, (date - nowMs) / 1000);
}

// IMF-fixdate, RFC 850 and asctime; literals, so a bundle that never reads `Retry-After` drops them.
const imfFixdate =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const rfc850 =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const asctime =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function dateParts(
  text: string,
  nowMs: number,
): [day: string, mon: string, year: number, h: string, m: string, s: string] | null {
  const fixdate = imfFixdate.exec(text);
  if (fixdate) {
    // Stryker disable next-line StringLiteral: every group always matches; the defaults are for types
    const [, day = "", mon = "", year, h = "", m = "", s = ""] = fixdate;
    return [day, mon, Number(year), h, m, s];
  }
  const obsolete = rfc850.exec(text);
  if (obsolete) {
    // Stryker disable next-line StringLiteral: every group always matches; the defaults are for types
    const [, day = "", mon = "", yy, h = "", m = "", s = ""] = obsolete;
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 5.6.7).
    let year = 2000 + Number(yy);
    if (year > new Date(nowMs).getUTCFullYear() + 50) year -= 100;
    return [day, mon, year, h, m, s];
  }
  const ansi = asctime.exec(text);
  if (ansi) {
    // Stryker disable next-line StringLiteral: every group always matches; the defaults are for types
    const [, mon = "", day = "", h = "", m = "", s = "", year] = ansi;
    // Stryker disable next-line MethodExpression: Number() ignores the leading space too
    return [day.trim(), mon, Number(year), h, m, s];
  }
  return null;
}

function parseHttpDate(text: string, nowMs: number): number | null {
  const parts = dateParts(text, nowMs);
  if (!parts) return null;
  const [day, mon, year, h, m, s] = parts;
  const monthIndex = "JanFebMarAprMayJunJulAugSepOctNovDec".indexOf(mon) / 3;
  const ms = Date.UTC(year, monthIndex, Number(day), Number(h), Number(m), Number(s));
  const date = new Date(ms);
  // Date.UTC rolls 30 Feb over to March: such a date is malformed.
  // Stryker disable ConditionalExpression,LogicalOperator: equivalent, an out-of-range field also carries into the next
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== monthIndex ||
    date.getUTCDate() !== Number(day) ||
    date.getUTCHours() !== Number(h) ||
    date.getUTCMinutes() !== Number(m) ||
    date.getUTCSeconds() !== Number(s)
  ) {
    // Stryker restore ConditionalExpression,LogicalOperator
    return null;
  }
  return ms;
}
