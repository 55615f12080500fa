// @ts-nocheck
function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import pRetry from "p-retry";
import type { Clock } from "../internal/clock";
import { APIConnectionError, APITimeoutError, APIUserAbortError, AuthenticationError, InternalServerError, PartnerOrdersError, parseRetryAfter, RateLimitError, ServiceUnavailableError } from "./errors";

/**
 * The answers a retry policy has a rule for. 400, 403, 404, 409 and 422 have none: they are final
 * (a 409 is the service saying the `partnerOrderId` is taken, a retry cannot change that), so no
 * option can make them retried.
 */
export type RetryableAnswer = "401" | "429" | "500" | "503" | "connection" | "timeout";

/** How one retryable answer is retried. */
export interface RetryRule {
  /**
   * Most retries of this answer within one call; all retries of a call stay within `maxRetries`.
   * A 401 and a 500 are retried at most once (the API document's Errors rule 3).
   */
  maxRetries?: number;
  /**
   * Least wait before such a retry, in milliseconds; with jitter on, up to as much again is added at
   * random. A 500 waits at least 1 s.
   */
  minDelayMs?: number;
  /** Whether the wait follows the exponential backoff (`baseDelayMs`, doubling, `maxDelayMs`). */
  backoff?: boolean;
}

/**
 * A retry budget shared by every call of a client and of the clients made from it by
 * `withOptions()`, like the AWS SDKs' retry quota: each retry spends from it, each success gives a
 * little back, and while it is empty a retryable failure is thrown at once. A storm of failures
 * therefore adds a bounded number of retries (about 35 with the defaults) instead of `maxRetries`
 * per call.
 */
export interface RetryBudgetOptions {
  /**
   * Tokens when the client is made, and the most it can hold.
   * @default 500
   */
  capacity?: number;
  /**
   * Tokens a retry after a 500, a 503, a connection error or a timeout spends.
   * @default 14
   */
  retryCost?: number;
  /**
   * Tokens a retry after a 429 spends (the service asked for the wait; it is cheaper). A retry with
   * a fresh token after a 401 spends nothing.
   * @default 5
   */
  throttlingRetryCost?: number;
  /**
   * Tokens a call that succeeds at once gives back; a call that succeeds after a retry gives back
   * what that retry spent.
   * @default 1
   */
  successRefund?: number;
}

/**
 * The `retry` client option: what the SDK retries and how long it waits (API.md, "Retries").
 * Anything not given keeps its default ({@link defaultRetryPolicy}); `maxRetries` stays the budget
 * of each call.
 *
 * @example
 * new PartnerOrders({ ...credentials, retry: { baseDelayMs: 500, rules: { 500: false } } });
 */
export interface RetryOptions {
  /**
   * A rule per retryable answer, merged over the default one; `false` never retries that answer.
   * @default 401 once at once with a fresh token; 429 after `Retry-After` plus backoff; 500 once
   * after 1 to 2 s; 503, connection errors and timeouts with backoff
   */
  rules?: RetryRules;
  /**
   * First backoff step, in milliseconds; it doubles with each retry of the call.
   * @default 1000
   */
  baseDelayMs?: number;
  /**
   * Cap on a backoff wait, jitter included, in milliseconds.
   * @default 20000
   */
  maxDelayMs?: number;
  /**
   * Randomness, 0 to 1: a backoff wait is lengthened by up to this fraction of itself, and a wait
   * for `Retry-After` by up to one backoff step. 0 turns jitter off.
   * @default 0.25
   */
  jitter?: number;
  /**
   * A `Retry-After` longer than this is not waited for: the call throws `RateLimitError` at once
   * (a 503's hint is waited for up to this long).
   * @default 60
   */
  maxRetryAfterSeconds?: number;
  /**
   * The client-wide retry budget; `false` turns it off. Its numbers are fixed when the client is
   * made: a client made by `withOptions()` shares it and can only turn it off for itself.
   * @default { capacity: 500, retryCost: 14, throttlingRetryCost: 5, successRefund: 1 }
   */
  budget?: RetryBudgetOptions | false;
}

/** The rule for each retryable answer in {@link RetryOptions}; `false` never retries it. */
export interface RetryRules {
  /** A 401 to a bearer token: the token is dropped and a new one minted (at most once). */
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
const backoff = stryMutAct_9fa48("0") ? {} : (stryCov_9fa48("0"), {
  maxRetries: Number.POSITIVE_INFINITY,
  minDelayMs: 0,
  backoff: stryMutAct_9fa48("1") ? false : (stryCov_9fa48("1"), true)
});

/**
 * The SDK's retry policy: API.md "Retries" and the API document's Errors rule 3, in one table.
 * The budget follows the AWS SDKs' retry quota (500 tokens, 14 a retry, 5 a throttled retry).
 */
export const defaultRetryPolicy: RetryPolicy = deepFreeze(stryMutAct_9fa48("2") ? {} : (stryCov_9fa48("2"), {
  rules: stryMutAct_9fa48("3") ? {} : (stryCov_9fa48("3"), {
    401: stryMutAct_9fa48("4") ? {} : (stryCov_9fa48("4"), {
      maxRetries: 1,
      minDelayMs: 0,
      backoff: stryMutAct_9fa48("5") ? true : (stryCov_9fa48("5"), false)
    }),
    429: backoff,
    500: stryMutAct_9fa48("6") ? {} : (stryCov_9fa48("6"), {
      maxRetries: 1,
      minDelayMs: 1_000,
      backoff: stryMutAct_9fa48("7") ? true : (stryCov_9fa48("7"), false)
    }),
    503: backoff,
    connection: backoff,
    timeout: backoff
  }),
  baseDelayMs: 1_000,
  maxDelayMs: 20_000,
  jitter: 0.25,
  maxRetryAfterSeconds: 60,
  budget: stryMutAct_9fa48("8") ? {} : (stryCov_9fa48("8"), {
    capacity: 500,
    retryCost: 14,
    throttlingRetryCost: 5,
    successRefund: 1
  })
}));
function deepFreeze<T extends object>(value: T): T {
  if (stryMutAct_9fa48("9")) {
    {}
  } else {
    stryCov_9fa48("9");
    for (const inner of Object.values(value)) {
      if (stryMutAct_9fa48("10")) {
        {}
      } else {
        stryCov_9fa48("10");
        if (stryMutAct_9fa48("13") ? inner || typeof inner === "object" : stryMutAct_9fa48("12") ? false : stryMutAct_9fa48("11") ? true : (stryCov_9fa48("11", "12", "13"), inner && (stryMutAct_9fa48("15") ? typeof inner !== "object" : stryMutAct_9fa48("14") ? true : (stryCov_9fa48("14", "15"), typeof inner === (stryMutAct_9fa48("16") ? "" : (stryCov_9fa48("16"), "object")))))) deepFreeze(inner);
      }
    }
    return Object.freeze(value);
  }
}

/** `options` without the entries given as undefined, which keep their defaults. */
function given<T extends object>(options: T): Partial<T> {
  if (stryMutAct_9fa48("17")) {
    {}
  } else {
    stryCov_9fa48("17");
    return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
  }
}
function fail(message: string): never {
  if (stryMutAct_9fa48("18")) {
    {}
  } else {
    stryCov_9fa48("18");
    throw new PartnerOrdersError(stryMutAct_9fa48("19") ? `` : (stryCov_9fa48("19"), `retry: ${message}`));
  }
}
function check(name: string, value: unknown, min: number, max = Number.POSITIVE_INFINITY): void {
  if (stryMutAct_9fa48("20")) {
    {}
  } else {
    stryCov_9fa48("20");
    if (stryMutAct_9fa48("23") ? (typeof value !== "number" || Number.isNaN(value) || value < min) && value > max : stryMutAct_9fa48("22") ? false : stryMutAct_9fa48("21") ? true : (stryCov_9fa48("21", "22", "23"), (stryMutAct_9fa48("25") ? (typeof value !== "number" || Number.isNaN(value)) && value < min : stryMutAct_9fa48("24") ? false : (stryCov_9fa48("24", "25"), (stryMutAct_9fa48("27") ? typeof value !== "number" && Number.isNaN(value) : stryMutAct_9fa48("26") ? false : (stryCov_9fa48("26", "27"), (stryMutAct_9fa48("29") ? typeof value === "number" : stryMutAct_9fa48("28") ? false : (stryCov_9fa48("28", "29"), typeof value !== (stryMutAct_9fa48("30") ? "" : (stryCov_9fa48("30"), "number")))) || Number.isNaN(value))) || (stryMutAct_9fa48("33") ? value >= min : stryMutAct_9fa48("32") ? value <= min : stryMutAct_9fa48("31") ? false : (stryCov_9fa48("31", "32", "33"), value < min)))) || (stryMutAct_9fa48("36") ? value <= max : stryMutAct_9fa48("35") ? value >= max : stryMutAct_9fa48("34") ? false : (stryCov_9fa48("34", "35", "36"), value > max)))) {
      if (stryMutAct_9fa48("37")) {
        {}
      } else {
        stryCov_9fa48("37");
        fail(stryMutAct_9fa48("38") ? `` : (stryCov_9fa48("38"), `${name} must be a number from ${min}${(stryMutAct_9fa48("42") ? max >= Infinity : stryMutAct_9fa48("41") ? max <= Infinity : stryMutAct_9fa48("40") ? false : stryMutAct_9fa48("39") ? true : (stryCov_9fa48("39", "40", "41", "42"), max < Infinity)) ? stryMutAct_9fa48("43") ? `` : (stryCov_9fa48("43"), ` to ${max}`) : stryMutAct_9fa48("44") ? "" : (stryCov_9fa48("44"), " up")}.`));
      }
    }
  }
}
const answers = Object.keys(defaultRetryPolicy.rules);

/** `options` over `base`, checked: nonsense (a negative delay, a rule for a 409) throws here. */
export function resolveRetryPolicy(options: RetryOptions | undefined, base: RetryPolicy): RetryPolicy {
  if (stryMutAct_9fa48("45")) {
    {}
  } else {
    stryCov_9fa48("45");
    if (stryMutAct_9fa48("48") ? options !== undefined : stryMutAct_9fa48("47") ? false : stryMutAct_9fa48("46") ? true : (stryCov_9fa48("46", "47", "48"), options === undefined)) return base;
    if (stryMutAct_9fa48("51") ? !options && typeof options !== "object" : stryMutAct_9fa48("50") ? false : stryMutAct_9fa48("49") ? true : (stryCov_9fa48("49", "50", "51"), (stryMutAct_9fa48("52") ? options : (stryCov_9fa48("52"), !options)) || (stryMutAct_9fa48("54") ? typeof options === "object" : stryMutAct_9fa48("53") ? false : (stryCov_9fa48("53", "54"), typeof options !== (stryMutAct_9fa48("55") ? "" : (stryCov_9fa48("55"), "object")))))) fail(stryMutAct_9fa48("56") ? "" : (stryCov_9fa48("56"), "must be an object."));
    const rules = stryMutAct_9fa48("57") ? {} : (stryCov_9fa48("57"), {
      ...base.rules
    });
    for (const [answer, rule] of Object.entries(stryMutAct_9fa48("58") ? options.rules && {} : (stryCov_9fa48("58"), options.rules ?? {}))) {
      if (stryMutAct_9fa48("59")) {
        {}
      } else {
        stryCov_9fa48("59");
        if (stryMutAct_9fa48("62") ? false : stryMutAct_9fa48("61") ? true : stryMutAct_9fa48("60") ? answers.includes(answer) : (stryCov_9fa48("60", "61", "62"), !answers.includes(answer))) {
          if (stryMutAct_9fa48("63")) {
            {}
          } else {
            stryCov_9fa48("63");
            fail(stryMutAct_9fa48("64") ? `` : (stryCov_9fa48("64"), `${answer} has no rule: only ${answers.join(stryMutAct_9fa48("65") ? "" : (stryCov_9fa48("65"), ", "))} can be retried (400, 403, 404, 409 and 422 are final).`));
          }
        }
        const key = answer as RetryableAnswer;
        if (stryMutAct_9fa48("68") ? rule !== false : stryMutAct_9fa48("67") ? false : stryMutAct_9fa48("66") ? true : (stryCov_9fa48("66", "67", "68"), rule === (stryMutAct_9fa48("69") ? true : (stryCov_9fa48("69"), false)))) {
          if (stryMutAct_9fa48("70")) {
            {}
          } else {
            stryCov_9fa48("70");
            rules[key] = stryMutAct_9fa48("71") ? true : (stryCov_9fa48("71"), false);
            continue;
          }
        }
        const merged = {
          ...(base.rules[key] || defaultRetryPolicy.rules[key]),
          ...given(rule)
        } as Required<RetryRule>;
        const once = stryMutAct_9fa48("74") ? key === "401" && key === "500" : stryMutAct_9fa48("73") ? false : stryMutAct_9fa48("72") ? true : (stryCov_9fa48("72", "73", "74"), (stryMutAct_9fa48("76") ? key !== "401" : stryMutAct_9fa48("75") ? false : (stryCov_9fa48("75", "76"), key === (stryMutAct_9fa48("77") ? "" : (stryCov_9fa48("77"), "401")))) || (stryMutAct_9fa48("79") ? key !== "500" : stryMutAct_9fa48("78") ? false : (stryCov_9fa48("78", "79"), key === (stryMutAct_9fa48("80") ? "" : (stryCov_9fa48("80"), "500")))));
        check(stryMutAct_9fa48("81") ? `` : (stryCov_9fa48("81"), `rules[${key}].maxRetries`), merged.maxRetries, 0, once ? 1 : Number.POSITIVE_INFINITY);
        if (stryMutAct_9fa48("84") ? !Number.isInteger(merged.maxRetries) || merged.maxRetries !== Number.POSITIVE_INFINITY : stryMutAct_9fa48("83") ? false : stryMutAct_9fa48("82") ? true : (stryCov_9fa48("82", "83", "84"), (stryMutAct_9fa48("85") ? Number.isInteger(merged.maxRetries) : (stryCov_9fa48("85"), !Number.isInteger(merged.maxRetries))) && (stryMutAct_9fa48("87") ? merged.maxRetries === Number.POSITIVE_INFINITY : stryMutAct_9fa48("86") ? true : (stryCov_9fa48("86", "87"), merged.maxRetries !== Number.POSITIVE_INFINITY)))) {
          if (stryMutAct_9fa48("88")) {
            {}
          } else {
            stryCov_9fa48("88");
            fail(stryMutAct_9fa48("89") ? `` : (stryCov_9fa48("89"), `rules[${key}].maxRetries must be a whole number.`));
          }
        }
        check(stryMutAct_9fa48("90") ? `` : (stryCov_9fa48("90"), `rules[${key}].minDelayMs`), merged.minDelayMs, (stryMutAct_9fa48("93") ? key !== "500" : stryMutAct_9fa48("92") ? false : stryMutAct_9fa48("91") ? true : (stryCov_9fa48("91", "92", "93"), key === (stryMutAct_9fa48("94") ? "" : (stryCov_9fa48("94"), "500")))) ? 1_000 : 0, 3_600_000);
        if (stryMutAct_9fa48("97") ? typeof merged.backoff === "boolean" : stryMutAct_9fa48("96") ? false : stryMutAct_9fa48("95") ? true : (stryCov_9fa48("95", "96", "97"), typeof merged.backoff !== (stryMutAct_9fa48("98") ? "" : (stryCov_9fa48("98"), "boolean")))) fail(stryMutAct_9fa48("99") ? `` : (stryCov_9fa48("99"), `rules[${key}].backoff must be a boolean.`));
        rules[key] = merged;
      }
    }
    const policy = stryMutAct_9fa48("100") ? {} : (stryCov_9fa48("100"), {
      ...base,
      ...given(options),
      rules,
      budget: resolveBudget(options.budget, base)
    });
    check(stryMutAct_9fa48("101") ? "" : (stryCov_9fa48("101"), "baseDelayMs"), policy.baseDelayMs, 0, 3_600_000);
    check(stryMutAct_9fa48("102") ? "" : (stryCov_9fa48("102"), "maxDelayMs"), policy.maxDelayMs, policy.baseDelayMs, 3_600_000);
    check(stryMutAct_9fa48("103") ? "" : (stryCov_9fa48("103"), "jitter"), policy.jitter, 0, 1);
    check(stryMutAct_9fa48("104") ? "" : (stryCov_9fa48("104"), "maxRetryAfterSeconds"), policy.maxRetryAfterSeconds, 0, 3_600);
    return policy;
  }
}
function resolveBudget(options: RetryOptions["budget"], base: RetryPolicy): RetryPolicy["budget"] {
  if (stryMutAct_9fa48("105")) {
    {}
  } else {
    stryCov_9fa48("105");
    if (stryMutAct_9fa48("108") ? options !== undefined : stryMutAct_9fa48("107") ? false : stryMutAct_9fa48("106") ? true : (stryCov_9fa48("106", "107", "108"), options === undefined)) return base.budget;
    if (stryMutAct_9fa48("111") ? options !== false : stryMutAct_9fa48("110") ? false : stryMutAct_9fa48("109") ? true : (stryCov_9fa48("109", "110", "111"), options === (stryMutAct_9fa48("112") ? true : (stryCov_9fa48("112"), false)))) return stryMutAct_9fa48("113") ? true : (stryCov_9fa48("113"), false);
    const budget = {
      ...(base.budget || defaultRetryPolicy.budget),
      ...given(options)
    } as Required<RetryBudgetOptions>;
    check(stryMutAct_9fa48("114") ? "" : (stryCov_9fa48("114"), "budget.capacity"), budget.capacity, 0);
    check(stryMutAct_9fa48("115") ? "" : (stryCov_9fa48("115"), "budget.retryCost"), budget.retryCost, 0);
    check(stryMutAct_9fa48("116") ? "" : (stryCov_9fa48("116"), "budget.throttlingRetryCost"), budget.throttlingRetryCost, 0);
    check(stryMutAct_9fa48("117") ? "" : (stryCov_9fa48("117"), "budget.successRefund"), budget.successRefund, 0);
    return budget;
  }
}

/**
 * The tokens of a client's retry budget (see {@link RetryBudgetOptions}), shared by the clients
 * made from it by `withOptions()`.
 */
export class RetryBudget {
  readonly #config: Readonly<Required<RetryBudgetOptions>>;
  #tokens: number;
  constructor(config: Readonly<Required<RetryBudgetOptions>>) {
    if (stryMutAct_9fa48("118")) {
      {}
    } else {
      stryCov_9fa48("118");
      this.#config = config;
      this.#tokens = config.capacity;
    }
  }

  /** Tokens left. */
  get tokens(): number {
    if (stryMutAct_9fa48("119")) {
      {}
    } else {
      stryCov_9fa48("119");
      return this.#tokens;
    }
  }

  /** What a retry after `answer` costs. */
  cost(answer: RetryableAnswer): number {
    if (stryMutAct_9fa48("120")) {
      {}
    } else {
      stryCov_9fa48("120");
      if (stryMutAct_9fa48("123") ? answer !== "401" : stryMutAct_9fa48("122") ? false : stryMutAct_9fa48("121") ? true : (stryCov_9fa48("121", "122", "123"), answer === (stryMutAct_9fa48("124") ? "" : (stryCov_9fa48("124"), "401")))) return 0;
      return (stryMutAct_9fa48("127") ? answer !== "429" : stryMutAct_9fa48("126") ? false : stryMutAct_9fa48("125") ? true : (stryCov_9fa48("125", "126", "127"), answer === (stryMutAct_9fa48("128") ? "" : (stryCov_9fa48("128"), "429")))) ? this.#config.throttlingRetryCost : this.#config.retryCost;
    }
  }

  /** Spends `cost`; false, spending nothing, when fewer tokens are left. */
  take(cost: number): boolean {
    if (stryMutAct_9fa48("129")) {
      {}
    } else {
      stryCov_9fa48("129");
      if (stryMutAct_9fa48("133") ? cost <= this.#tokens : stryMutAct_9fa48("132") ? cost >= this.#tokens : stryMutAct_9fa48("131") ? false : stryMutAct_9fa48("130") ? true : (stryCov_9fa48("130", "131", "132", "133"), cost > this.#tokens)) return stryMutAct_9fa48("134") ? true : (stryCov_9fa48("134"), false);
      stryMutAct_9fa48("135") ? this.#tokens += cost : (stryCov_9fa48("135"), this.#tokens -= cost);
      return stryMutAct_9fa48("136") ? false : (stryCov_9fa48("136"), true);
    }
  }

  /** A call succeeded; `lastCost` is what its last retry spent (0 when it made none). */
  succeeded(lastCost: number): void {
    if (stryMutAct_9fa48("137")) {
      {}
    } else {
      stryCov_9fa48("137");
      const refund = (stryMutAct_9fa48("141") ? lastCost <= 0 : stryMutAct_9fa48("140") ? lastCost >= 0 : stryMutAct_9fa48("139") ? false : stryMutAct_9fa48("138") ? true : (stryCov_9fa48("138", "139", "140", "141"), lastCost > 0)) ? lastCost : this.#config.successRefund;
      this.#tokens = stryMutAct_9fa48("142") ? Math.max(this.#config.capacity, this.#tokens + refund) : (stryCov_9fa48("142"), Math.min(this.#config.capacity, stryMutAct_9fa48("143") ? this.#tokens - refund : (stryCov_9fa48("143"), this.#tokens + refund)));
    }
  }
}

/** Which rule answers `error`; undefined when it is never retried. */
export function answerOf(error: unknown): RetryableAnswer | undefined {
  if (stryMutAct_9fa48("144")) {
    {}
  } else {
    stryCov_9fa48("144");
    if (stryMutAct_9fa48("146") ? false : stryMutAct_9fa48("145") ? true : (stryCov_9fa48("145", "146"), error instanceof AuthenticationError)) return stryMutAct_9fa48("147") ? "" : (stryCov_9fa48("147"), "401");
    if (stryMutAct_9fa48("149") ? false : stryMutAct_9fa48("148") ? true : (stryCov_9fa48("148", "149"), error instanceof RateLimitError)) return stryMutAct_9fa48("150") ? "" : (stryCov_9fa48("150"), "429");
    if (stryMutAct_9fa48("152") ? false : stryMutAct_9fa48("151") ? true : (stryCov_9fa48("151", "152"), error instanceof InternalServerError)) return stryMutAct_9fa48("153") ? "" : (stryCov_9fa48("153"), "500");
    if (stryMutAct_9fa48("155") ? false : stryMutAct_9fa48("154") ? true : (stryCov_9fa48("154", "155"), error instanceof ServiceUnavailableError)) return stryMutAct_9fa48("156") ? "" : (stryCov_9fa48("156"), "503");
    if (stryMutAct_9fa48("158") ? false : stryMutAct_9fa48("157") ? true : (stryCov_9fa48("157", "158"), error instanceof APITimeoutError)) return stryMutAct_9fa48("159") ? "" : (stryCov_9fa48("159"), "timeout");
    if (stryMutAct_9fa48("161") ? false : stryMutAct_9fa48("160") ? true : (stryCov_9fa48("160", "161"), error instanceof APIConnectionError)) return stryMutAct_9fa48("162") ? "" : (stryCov_9fa48("162"), "connection");
    return undefined;
  }
}

/** What the retry loop is told about one failed attempt. */
export interface RetryState {
  /** Retries already made in this call (0 before the first retry). */
  retriesMade: number;
  /** Retries already made in this call, per answer. */
  byAnswer?: Partial<Record<RetryableAnswer, number>>;
}

/** Milliseconds to wait before retrying after `error`, or null when it must not be retried. */
export function retryDelay(error: unknown, state: RetryState, random = Math.random, nowMs = Date.now(), policy: RetryPolicy = defaultRetryPolicy): number | null {
  if (stryMutAct_9fa48("163")) {
    {}
  } else {
    stryCov_9fa48("163");
    const answer = answerOf(error);
    const rule = stryMutAct_9fa48("166") ? answer || policy.rules[answer] : stryMutAct_9fa48("165") ? false : stryMutAct_9fa48("164") ? true : (stryCov_9fa48("164", "165", "166"), answer && policy.rules[answer]);
    if (stryMutAct_9fa48("169") ? (!answer || !rule) && (state.byAnswer?.[answer] ?? 0) >= rule.maxRetries : stryMutAct_9fa48("168") ? false : stryMutAct_9fa48("167") ? true : (stryCov_9fa48("167", "168", "169"), (stryMutAct_9fa48("171") ? !answer && !rule : stryMutAct_9fa48("170") ? false : (stryCov_9fa48("170", "171"), (stryMutAct_9fa48("172") ? answer : (stryCov_9fa48("172"), !answer)) || (stryMutAct_9fa48("173") ? rule : (stryCov_9fa48("173"), !rule)))) || (stryMutAct_9fa48("176") ? (state.byAnswer?.[answer] ?? 0) < rule.maxRetries : stryMutAct_9fa48("175") ? (state.byAnswer?.[answer] ?? 0) > rule.maxRetries : stryMutAct_9fa48("174") ? false : (stryCov_9fa48("174", "175", "176"), (stryMutAct_9fa48("177") ? state.byAnswer?.[answer] && 0 : (stryCov_9fa48("177"), (stryMutAct_9fa48("178") ? state.byAnswer[answer] : (stryCov_9fa48("178"), state.byAnswer?.[answer])) ?? 0)) >= rule.maxRetries)))) return null;
    const {
      maxDelayMs,
      jitter
    } = policy;
    const step = stryMutAct_9fa48("179") ? Math.max(maxDelayMs, policy.baseDelayMs * 2 ** state.retriesMade) : (stryCov_9fa48("179"), Math.min(maxDelayMs, stryMutAct_9fa48("180") ? policy.baseDelayMs / 2 ** state.retriesMade : (stryCov_9fa48("180"), policy.baseDelayMs * 2 ** state.retriesMade)));
    // Jitter spreads a fleet of clients so they do not all come back in the same second; the cap
    // holds after it.
    let wait = rule.backoff ? stryMutAct_9fa48("181") ? Math.max(maxDelayMs, step * (1 + random() * jitter)) : (stryCov_9fa48("181"), Math.min(maxDelayMs, stryMutAct_9fa48("182") ? step / (1 + random() * jitter) : (stryCov_9fa48("182"), step * (stryMutAct_9fa48("183") ? 1 - random() * jitter : (stryCov_9fa48("183"), 1 + (stryMutAct_9fa48("184") ? random() / jitter : (stryCov_9fa48("184"), random() * jitter))))))) : 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a least wait of 0 never raises a wait (the guard only spares a random draw)
    if (rule.minDelayMs > 0) {
      if (stryMutAct_9fa48("189")) {
        {}
      } else {
        stryCov_9fa48("189");
        wait = stryMutAct_9fa48("190") ? Math.min(wait, rule.minDelayMs * (1 + (jitter > 0 ? random() : 0))) : (stryCov_9fa48("190"), Math.max(wait, stryMutAct_9fa48("191") ? rule.minDelayMs / (1 + (jitter > 0 ? random() : 0)) : (stryCov_9fa48("191"), rule.minDelayMs * (stryMutAct_9fa48("192") ? 1 - (jitter > 0 ? random() : 0) : (stryCov_9fa48("192"), 1 + ((stryMutAct_9fa48("196") ? jitter <= 0 : stryMutAct_9fa48("195") ? jitter >= 0 : stryMutAct_9fa48("194") ? false : stryMutAct_9fa48("193") ? true : (stryCov_9fa48("193", "194", "195", "196"), jitter > 0)) ? random() : 0))))));
      }
    }
    if (stryMutAct_9fa48("199") ? error instanceof RateLimitError || error.retryAfterSeconds !== null : stryMutAct_9fa48("198") ? false : stryMutAct_9fa48("197") ? true : (stryCov_9fa48("197", "198", "199"), error instanceof RateLimitError && (stryMutAct_9fa48("201") ? error.retryAfterSeconds === null : stryMutAct_9fa48("200") ? true : (stryCov_9fa48("200", "201"), error.retryAfterSeconds !== null)))) {
      if (stryMutAct_9fa48("202")) {
        {}
      } else {
        stryCov_9fa48("202");
        const hint = error.retryAfterSeconds;
        if (stryMutAct_9fa48("206") ? hint <= policy.maxRetryAfterSeconds : stryMutAct_9fa48("205") ? hint >= policy.maxRetryAfterSeconds : stryMutAct_9fa48("204") ? false : stryMutAct_9fa48("203") ? true : (stryCov_9fa48("203", "204", "205", "206"), hint > policy.maxRetryAfterSeconds)) return null;
        // The server's hint is a floor (STYLE.md: server hints win); jitter only adds to it.
        return stryMutAct_9fa48("207") ? Math.min(wait, hint * 1000 + (jitter > 0 ? random() * step : 0)) : (stryCov_9fa48("207"), Math.max(wait, stryMutAct_9fa48("208") ? hint * 1000 - (jitter > 0 ? random() * step : 0) : (stryCov_9fa48("208"), (stryMutAct_9fa48("209") ? hint / 1000 : (stryCov_9fa48("209"), hint * 1000)) + ((stryMutAct_9fa48("213") ? jitter <= 0 : stryMutAct_9fa48("212") ? jitter >= 0 : stryMutAct_9fa48("211") ? false : stryMutAct_9fa48("210") ? true : (stryCov_9fa48("210", "211", "212", "213"), jitter > 0)) ? stryMutAct_9fa48("214") ? random() / step : (stryCov_9fa48("214"), random() * step) : 0))));
      }
    }
    if (stryMutAct_9fa48("216") ? false : stryMutAct_9fa48("215") ? true : (stryCov_9fa48("215", "216"), error instanceof ServiceUnavailableError)) {
      if (stryMutAct_9fa48("217")) {
        {}
      } else {
        stryCov_9fa48("217");
        const hinted = stryMutAct_9fa48("218") ? (parseRetryAfter(error.headers, nowMs) ?? 0) / 1000 : (stryCov_9fa48("218"), (stryMutAct_9fa48("219") ? parseRetryAfter(error.headers, nowMs) && 0 : (stryCov_9fa48("219"), parseRetryAfter(error.headers, nowMs) ?? 0)) * 1000);
        return stryMutAct_9fa48("220") ? Math.max(Math.max(hinted, wait), policy.maxRetryAfterSeconds * 1000) : (stryCov_9fa48("220"), Math.min(stryMutAct_9fa48("221") ? Math.min(hinted, wait) : (stryCov_9fa48("221"), Math.max(hinted, wait)), stryMutAct_9fa48("222") ? policy.maxRetryAfterSeconds / 1000 : (stryCov_9fa48("222"), policy.maxRetryAfterSeconds * 1000)));
      }
    }
    return wait;
  }
}
export interface RetryLoopOptions {
  maxRetries: number;
  clock: Clock;
  /** @default defaultRetryPolicy */
  policy?: RetryPolicy;
  /** The client's retry budget; undefined when it has none. */
  budget?: RetryBudget | undefined;
  signal?: AbortSignal | undefined;
  /** Monotonic ms past which no retry or sleep is started. */
  deadline?: number | undefined;
  /** Called before a 401 retry; false when no fresh credential can be had. */
  onUnauthorized?: (error: AuthenticationError) => boolean;
  /** `attempt` is the number of the attempt that failed (1 for the first). */
  onRetry?: (info: {
    error: unknown;
    attempt: number;
    delayMs: number;
  }) => void;
}

/**
 * Runs `attempt` under p-retry with the policy: p-retry makes every attempt (the first too), counts
 * retries against `maxRetries` and stops on abort; the policy decides each retry and its wait.
 *
 * p-retry can only sleep on the host's timers, so its own timeouts are zero and the wait is slept
 * on the injected clock in `onFailedAttempt`, which p-retry awaits before the next attempt (tests
 * then need no real time). It sleeps only when a retry will follow: `retriesLeft` says whether
 * p-retry still has one, and `shouldRetry` returns the decision made there.
 */
export function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryLoopOptions): Promise<T> {
  if (stryMutAct_9fa48("223")) {
    {}
  } else {
    stryCov_9fa48("223");
    const {
      clock,
      budget,
      signal
    } = options;
    const policy = stryMutAct_9fa48("224") ? options.policy && defaultRetryPolicy : (stryCov_9fa48("224"), options.policy ?? defaultRetryPolicy);
    const state: Required<RetryState> = stryMutAct_9fa48("225") ? {} : (stryCov_9fa48("225"), {
      retriesMade: 0,
      byAnswer: {}
    });
    let retry = stryMutAct_9fa48("226") ? true : (stryCov_9fa48("226"), false);
    let lastCost = 0;
    let answered: {
      value: T;
    } | undefined;
    return pRetry(async (n: number) => {
      if (stryMutAct_9fa48("227")) {
        {}
      } else {
        stryCov_9fa48("227");
        const value = await attempt(n);
        answered = stryMutAct_9fa48("228") ? {} : (stryCov_9fa48("228"), {
          value
        });
        stryMutAct_9fa48("229") ? budget.succeeded(lastCost) : (stryCov_9fa48("229"), budget?.succeeded(lastCost));
        return value;
      }
    }, stryMutAct_9fa48("230") ? {} : (stryCov_9fa48("230"), {
      retries: options.maxRetries,
      minTimeout: 0,
      signal,
      shouldRetry: stryMutAct_9fa48("231") ? () => undefined : (stryCov_9fa48("231"), () => retry),
      onFailedAttempt: async ({
        error,
        attemptNumber,
        retriesLeft
      }) => {
        if (stryMutAct_9fa48("232")) {
          {}
        } else {
          stryCov_9fa48("232");
          retry = stryMutAct_9fa48("233") ? true : (stryCov_9fa48("233"), false);
          if (stryMutAct_9fa48("236") ? retriesLeft === 0 && error instanceof APIUserAbortError : stryMutAct_9fa48("235") ? false : stryMutAct_9fa48("234") ? true : (stryCov_9fa48("234", "235", "236"), (stryMutAct_9fa48("238") ? retriesLeft !== 0 : stryMutAct_9fa48("237") ? false : (stryCov_9fa48("237", "238"), retriesLeft === 0)) || error instanceof APIUserAbortError)) return;
          const answer = answerOf(error);
          const delayMs = retryDelay(error, state, Math.random, clock.now(), policy);
          if (stryMutAct_9fa48("241") ? !answer && delayMs === null : stryMutAct_9fa48("240") ? false : stryMutAct_9fa48("239") ? true : (stryCov_9fa48("239", "240", "241"), (stryMutAct_9fa48("242") ? answer : (stryCov_9fa48("242"), !answer)) || (stryMutAct_9fa48("244") ? delayMs !== null : stryMutAct_9fa48("243") ? false : (stryCov_9fa48("243", "244"), delayMs === null)))) return;
          if (stryMutAct_9fa48("247") ? error instanceof AuthenticationError || !options.onUnauthorized?.(error) : stryMutAct_9fa48("246") ? false : stryMutAct_9fa48("245") ? true : (stryCov_9fa48("245", "246", "247"), error instanceof AuthenticationError && (stryMutAct_9fa48("248") ? options.onUnauthorized?.(error) : (stryCov_9fa48("248"), !(stryMutAct_9fa48("249") ? options.onUnauthorized(error) : (stryCov_9fa48("249"), options.onUnauthorized?.(error))))))) return;
          if (stryMutAct_9fa48("252") ? options.deadline !== undefined || clock.monotonic() + delayMs > options.deadline : stryMutAct_9fa48("251") ? false : stryMutAct_9fa48("250") ? true : (stryCov_9fa48("250", "251", "252"), (stryMutAct_9fa48("254") ? options.deadline === undefined : stryMutAct_9fa48("253") ? true : (stryCov_9fa48("253", "254"), options.deadline !== undefined)) && (stryMutAct_9fa48("257") ? clock.monotonic() + delayMs <= options.deadline : stryMutAct_9fa48("256") ? clock.monotonic() + delayMs >= options.deadline : stryMutAct_9fa48("255") ? true : (stryCov_9fa48("255", "256", "257"), (stryMutAct_9fa48("258") ? clock.monotonic() - delayMs : (stryCov_9fa48("258"), clock.monotonic() + delayMs)) > options.deadline)))) {
            if (stryMutAct_9fa48("259")) {
              {}
            } else {
              stryCov_9fa48("259");
              throw new APITimeoutError(stryMutAct_9fa48("260") ? `` : (stryCov_9fa48("260"), `The deadline comes before the next retry could be made (last error: ${error.message}).`));
            }
          }
          if (stryMutAct_9fa48("262") ? false : stryMutAct_9fa48("261") ? true : (stryCov_9fa48("261", "262"), budget)) {
            if (stryMutAct_9fa48("263")) {
              {}
            } else {
              stryCov_9fa48("263");
              const cost = budget.cost(answer);
              if (stryMutAct_9fa48("266") ? false : stryMutAct_9fa48("265") ? true : stryMutAct_9fa48("264") ? budget.take(cost) : (stryCov_9fa48("264", "265", "266"), !budget.take(cost))) {
                if (stryMutAct_9fa48("267")) {
                  {}
                } else {
                  stryCov_9fa48("267");
                  error.message += stryMutAct_9fa48("268") ? "" : (stryCov_9fa48("268"), " (Not retried: the client's retry budget is spent.)");
                  return;
                }
              }
              lastCost = cost;
            }
          }
          stryMutAct_9fa48("269") ? options.onRetry({
            error,
            attempt: attemptNumber,
            delayMs
          }) : (stryCov_9fa48("269"), options.onRetry?.(stryMutAct_9fa48("270") ? {} : (stryCov_9fa48("270"), {
            error,
            attempt: attemptNumber,
            delayMs
          })));
          stryMutAct_9fa48("271") ? state.retriesMade-- : (stryCov_9fa48("271"), state.retriesMade++);
          state.byAnswer[answer] = stryMutAct_9fa48("272") ? (state.byAnswer[answer] ?? 0) - 1 : (stryCov_9fa48("272"), (stryMutAct_9fa48("273") ? state.byAnswer[answer] && 0 : (stryCov_9fa48("273"), state.byAnswer[answer] ?? 0)) + 1);
          retry = stryMutAct_9fa48("274") ? false : (stryCov_9fa48("274"), true);
          if (stryMutAct_9fa48("278") ? delayMs <= 0 : stryMutAct_9fa48("277") ? delayMs >= 0 : stryMutAct_9fa48("276") ? false : stryMutAct_9fa48("275") ? true : (stryCov_9fa48("275", "276", "277", "278"), delayMs > 0)) await clock.sleep(delayMs, signal);
        }
      }
    })).catch((error: unknown) => {
      if (stryMutAct_9fa48("279")) {
        {}
      } else {
        stryCov_9fa48("279");
        // p-retry throws the abort away over an attempt that was answered after the signal fired; an
        // answer that arrived (an order that was created) is never lost that way.
        if (stryMutAct_9fa48("281") ? false : stryMutAct_9fa48("280") ? true : (stryCov_9fa48("280", "281"), answered)) return answered.value;
        throw error;
      }
    });
  }
}