import { PartnerOrdersError } from "../errors";

/** The answers a retry policy has a rule for; 400, 403, 404, 409 and 422 are final. */
export type RetryableAnswer = "401" | "429" | "500" | "503" | "connection" | "timeout";

/** How one retryable answer is retried. */
export interface RetryRule {
  /** Most retries of this answer in one call, within `maxRetries`; at most 1 for 401 and 500. */
  maxRetries?: number;
  /** Least wait before such a retry, in ms (jitter adds up to as much again); 500: 1 s or more. */
  minDelayMs?: number;
  /** Whether the wait follows the exponential backoff (`baseDelayMs`, doubling, `maxDelayMs`). */
  backoff?: boolean;
}

/** A client-wide retry budget: while it is empty, failures throw at once (an outage adds ~35). */
export interface RetryBudgetOptions {
  /** Tokens when the client is made, and the most it can hold. @default 500 */
  capacity?: number;
  /** Tokens a retry after a 500, a 503, a connection error or a timeout spends. @default 14 */
  retryCost?: number;
  /** Tokens a retry after a 429 spends; a 401's retry spends none. @default 5 */
  throttlingRetryCost?: number;
  /** Tokens a first-try success gives back; a success after a retry returns its cost. @default 1 */
  successRefund?: number;
}

/**
 * The `retry` client option; anything not given keeps its {@link defaultRetryPolicy} value.
 * @example
 * new PartnerOrders({ ...credentials, retry: { baseDelayMs: 500, rules: { 500: false } } });
 */
export interface RetryOptions {
  /** A rule per retryable answer, merged over the default one. @default see {@link RetryRules} */
  rules?: RetryRules;
  /** First backoff step, in milliseconds; it doubles with each retry of the call. @default 1000 */
  baseDelayMs?: number;
  /** Cap on a backoff wait, jitter included, in milliseconds. @default 20000 */
  maxDelayMs?: number;
  /** Randomness, 0 to 1: the share of itself a backoff wait may grow by. @default 0.25 */
  jitter?: number;
  /** A longer `Retry-After`, in seconds, throws `RateLimitError` at once. @default 60 */
  maxRetryAfterSeconds?: number;
  /**
   * The client-wide retry budget, or `false`; `withOptions()` can only turn it off.
   * @default { capacity: 500, retryCost: 14, throttlingRetryCost: 5, successRefund: 1 }
   */
  budget?: RetryBudgetOptions | false;
}

/** The rule for each retryable answer in {@link RetryOptions}; `false` never retries it. */
export interface RetryRules {
  /** A 401 to a bearer token: a new one is minted (at most once). */
  401?: RetryRule | false;
  /** A 429: waits at least its `Retry-After`, plus backoff. */
  429?: RetryRule | false;
  /** A 500: at most once, after at least 1 s. */
  500?: RetryRule | false;
  /** A 503: backoff, at least its `Retry-After` when it gives one. */
  503?: RetryRule | false;
  /** The connection failed before an answer came. */
  connection?: RetryRule | false;
  /** The attempt ran past `timeoutMs`. */
  timeout?: RetryRule | false;
}

/** A retry policy with every value filled in (see {@link RetryOptions} for what each means). */
export interface RetryPolicy {
  /** The rule for each retryable answer, or `false` where it is never retried. */
  readonly rules: Readonly<Record<RetryableAnswer, Readonly<Required<RetryRule>> | false>>;
  /** First backoff step, in milliseconds. */
  readonly baseDelayMs: number;
  /** Cap on a backoff wait, in milliseconds. */
  readonly maxDelayMs: number;
  /** Randomness added to waits, 0 to 1. */
  readonly jitter: number;
  /** The longest `Retry-After` waited for, in seconds. */
  readonly maxRetryAfterSeconds: number;
  /** The client-wide retry budget, or `false` when it is off. */
  readonly budget: Readonly<Required<RetryBudgetOptions>> | false;
}

const backoff = { maxRetries: Number.POSITIVE_INFINITY, minDelayMs: 0, backoff: true };

/** The SDK's retry policy (API document, Errors rule 3); the budget is the AWS SDKs' quota. */
export const defaultRetryPolicy: RetryPolicy = deepFreeze({
  rules: {
    401: { maxRetries: 1, minDelayMs: 0, backoff: false },
    429: backoff,
    500: { maxRetries: 1, minDelayMs: 1_000, backoff: false },
    503: backoff,
    connection: backoff,
    timeout: backoff,
  },
  baseDelayMs: 1_000,
  maxDelayMs: 20_000,
  jitter: 0.25,
  maxRetryAfterSeconds: 60,
  budget: { capacity: 500, retryCost: 14, throttlingRetryCost: 5, successRefund: 1 },
});

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (inner && typeof inner === "object") deepFreeze(inner);
  }
  return Object.freeze(value);
}

function given<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

function fail(message: string): never {
  throw new PartnerOrdersError(`retry: ${message}`);
}

function check(name: string, value: unknown, min: number, max = Number.POSITIVE_INFINITY): void {
  if (typeof value !== "number" || Number.isNaN(value) || value < min || value > max) {
    fail(`${name} must be a number from ${min}${max < Infinity ? ` to ${max}` : " up"}.`);
  }
}

const answers = Object.keys(defaultRetryPolicy.rules);

export function resolveRetryPolicy(
  options: RetryOptions | undefined,
  base: RetryPolicy,
): RetryPolicy {
  if (options === undefined) return base;
  if (!options || typeof options !== "object") fail("must be an object.");
  const rules = { ...base.rules };
  for (const [answer, rule] of Object.entries(options.rules ?? {})) {
    if (!answers.includes(answer)) {
      fail(
        `${answer} has no rule: only ${answers.join(", ")} can be retried (400, 403, 404, 409 and 422 are final).`,
      );
    }
    const key = answer as RetryableAnswer;
    if (rule === false) {
      rules[key] = false;
      continue;
    }
    const merged = {
      ...(base.rules[key] || defaultRetryPolicy.rules[key]),
      ...given(rule),
    } as Required<RetryRule>;
    const once = key === "401" || key === "500";
    check(`rules[${key}].maxRetries`, merged.maxRetries, 0, once ? 1 : Number.POSITIVE_INFINITY);
    if (!Number.isInteger(merged.maxRetries) && merged.maxRetries !== Number.POSITIVE_INFINITY) {
      fail(`rules[${key}].maxRetries must be a whole number.`);
    }
    check(`rules[${key}].minDelayMs`, merged.minDelayMs, key === "500" ? 1_000 : 0, 3_600_000);
    if (typeof merged.backoff !== "boolean") fail(`rules[${key}].backoff must be a boolean.`);
    rules[key] = merged;
  }
  const policy = { ...base, ...given(options), rules, budget: resolveBudget(options.budget, base) };
  check("baseDelayMs", policy.baseDelayMs, 0, 3_600_000);
  check("maxDelayMs", policy.maxDelayMs, policy.baseDelayMs, 3_600_000);
  check("jitter", policy.jitter, 0, 1);
  check("maxRetryAfterSeconds", policy.maxRetryAfterSeconds, 0, 3_600);
  return policy;
}

function resolveBudget(options: RetryOptions["budget"], base: RetryPolicy): RetryPolicy["budget"] {
  if (options === undefined) return base.budget;
  if (options === false) return false;
  const budget = {
    ...(base.budget || defaultRetryPolicy.budget),
    ...given(options),
  } as Required<RetryBudgetOptions>;
  check("budget.capacity", budget.capacity, 0);
  check("budget.retryCost", budget.retryCost, 0);
  check("budget.throttlingRetryCost", budget.throttlingRetryCost, 0);
  check("budget.successRefund", budget.successRefund, 0);
  return budget;
}

export class RetryBudget {
  readonly #config: Readonly<Required<RetryBudgetOptions>>;
  #tokens: number;

  constructor(config: Readonly<Required<RetryBudgetOptions>>) {
    this.#config = config;
    this.#tokens = config.capacity;
  }

  get tokens(): number {
    return this.#tokens;
  }

  cost(answer: RetryableAnswer): number {
    if (answer === "401") return 0;
    return answer === "429" ? this.#config.throttlingRetryCost : this.#config.retryCost;
  }

  take(cost: number): boolean {
    if (cost > this.#tokens) return false;
    this.#tokens -= cost;
    return true;
  }

  succeeded(lastCost: number): void {
    const refund = lastCost > 0 ? lastCost : this.#config.successRefund;
    this.#tokens = Math.min(this.#config.capacity, this.#tokens + refund);
  }
}
