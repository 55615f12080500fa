import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  PartnerOrdersError,
  RateLimitError,
  ServiceUnavailableError,
} from "../../../src/core/errors";
import {
  defaultRetryPolicy,
  RetryBudget,
  type RetryOptions,
  resolveRetryPolicy,
} from "../../../src/core/http/policy";
import { retryDelay, withRetries } from "../../../src/core/http/retry";
import { FakeClock } from "../../support/fake-clock";

const refusal = (options: RetryOptions) => {
  try {
    resolveRetryPolicy(options, defaultRetryPolicy);
  } catch (error) {
    expect(error).toBeInstanceOf(PartnerOrdersError);
    return (error as Error).message;
  }
  throw new Error("expected the policy to be refused");
};
const resolve = (options: RetryOptions) => resolveRetryPolicy(options, defaultRetryPolicy);

describe("the retry option's refusals say what is wrong", () => {
  it.each<[RetryOptions, string]>([
    [null as unknown as RetryOptions, "retry: must be an object."],
    [5 as unknown as RetryOptions, "retry: must be an object."],
    [
      { rules: { 409: {} } as RetryOptions["rules"] },
      "retry: 409 has no rule: only 401, 429, 500, 503, connection, timeout can be retried (400, 403, 404, 409 and 422 are final).",
    ],
    [
      { rules: { 429: { maxRetries: -1 } } },
      "retry: rules[429].maxRetries must be a number from 0 up.",
    ],
    [
      { rules: { 500: { maxRetries: 2 } } },
      "retry: rules[500].maxRetries must be a number from 0 to 1.",
    ],
    [
      { rules: { 401: { maxRetries: 2 } } },
      "retry: rules[401].maxRetries must be a number from 0 to 1.",
    ],
    [
      { rules: { 503: { maxRetries: 1.5 } } },
      "retry: rules[503].maxRetries must be a whole number.",
    ],
    [
      { rules: { 500: { minDelayMs: 999 } } },
      "retry: rules[500].minDelayMs must be a number from 1000 to 3600000.",
    ],
    [
      { rules: { timeout: { minDelayMs: 3_600_001 } } },
      "retry: rules[timeout].minDelayMs must be a number from 0 to 3600000.",
    ],
    [
      { rules: { connection: { backoff: "yes" as unknown as boolean } } },
      "retry: rules[connection].backoff must be a boolean.",
    ],
    [{ baseDelayMs: 3_600_001 }, "retry: baseDelayMs must be a number from 0 to 3600000."],
    [{ maxDelayMs: 999 }, "retry: maxDelayMs must be a number from 1000 to 3600000."],
    [{ jitter: -0.1 }, "retry: jitter must be a number from 0 to 1."],
    [{ jitter: "0.5" as unknown as number }, "retry: jitter must be a number from 0 to 1."],
    [
      { maxRetryAfterSeconds: 3_601 },
      "retry: maxRetryAfterSeconds must be a number from 0 to 3600.",
    ],
    [{ budget: { capacity: -1 } }, "retry: budget.capacity must be a number from 0 up."],
    [{ budget: { retryCost: -1 } }, "retry: budget.retryCost must be a number from 0 up."],
    [
      { budget: { throttlingRetryCost: -1 } },
      "retry: budget.throttlingRetryCost must be a number from 0 up.",
    ],
    [{ budget: { successRefund: -1 } }, "retry: budget.successRefund must be a number from 0 up."],
  ])("%j: %s", (options, message) => {
    expect(refusal(options)).toBe(message);
  });
});

describe("the retry option's limits are inclusive", () => {
  it("accepts each bound itself", () => {
    const policy = resolve({
      baseDelayMs: 3_600_000,
      maxDelayMs: 3_600_000,
      jitter: 1,
      maxRetryAfterSeconds: 3_600,
      rules: {
        401: { maxRetries: 1 },
        500: { maxRetries: 0, minDelayMs: 1_000 },
        503: { maxRetries: Number.POSITIVE_INFINITY, minDelayMs: 3_600_000 },
        429: { maxRetries: 0, minDelayMs: 0 },
      },
      budget: { capacity: 0, retryCost: 0, throttlingRetryCost: 0, successRefund: 0 },
    });
    expect(policy.rules[503]).toEqual({
      maxRetries: Number.POSITIVE_INFINITY,
      minDelayMs: 3_600_000,
      backoff: true,
    });
    expect(
      resolve({ baseDelayMs: 0, maxDelayMs: 0, jitter: 0, maxRetryAfterSeconds: 0 }),
    ).toMatchObject({ baseDelayMs: 0, maxDelayMs: 0, jitter: 0, maxRetryAfterSeconds: 0 });
  });

  it("an option given as undefined keeps its default; a rule keeps the defaults it does not name", () => {
    const policy = resolve({
      baseDelayMs: undefined,
      rules: { 500: { minDelayMs: 2_000, maxRetries: undefined }, 503: false },
      budget: { capacity: 50, retryCost: undefined },
    });
    expect(policy.baseDelayMs).toBe(1_000);
    expect(policy.rules[500]).toEqual({ maxRetries: 1, minDelayMs: 2_000, backoff: false });
    expect(policy.rules[503]).toBe(false);
    expect(policy.rules[429]).toEqual(defaultRetryPolicy.rules[429]);
    expect(policy.budget).toEqual({
      capacity: 50,
      retryCost: 14,
      throttlingRetryCost: 5,
      successRefund: 1,
    });
    expect(resolve({ budget: false }).budget).toBe(false);
  });

  it("a rule turned off in one client can be turned on again in a client made from it", () => {
    const off = resolve({ rules: { 503: false }, budget: false });
    const on = resolveRetryPolicy(
      { rules: { 503: { maxRetries: 3 } }, budget: { capacity: 9 } },
      off,
    );
    expect(on.rules[503]).toEqual({ maxRetries: 3, minDelayMs: 0, backoff: true });
    expect(on.budget).toEqual({
      capacity: 9,
      retryCost: 14,
      throttlingRetryCost: 5,
      successRefund: 1,
    });
    expect(resolveRetryPolicy({}, off).budget).toBe(false);
  });
});

const init = (status: number, headers: Record<string, string> = {}) => ({
  status,
  method: "GET",
  path: "/v1/me",
  headers: new Headers(headers),
});
const half = () => 0.5;
const now = Date.UTC(2030, 0, 1);

describe("retry waits", () => {
  it("a 500 waits 1 s plus up to 1 s of jitter, and only once", () => {
    const error = new InternalServerError(init(500));
    expect(retryDelay(error, { retriesMade: 3 }, half, now)).toBe(1_500);
    const still = { ...defaultRetryPolicy, jitter: 0 };
    expect(retryDelay(error, { retriesMade: 0 }, half, now, still)).toBe(1_000);
    expect(retryDelay(error, { retriesMade: 1, byAnswer: { 500: 1 } }, half, now)).toBeNull();
  });

  it("a 401 is retried at once, once", () => {
    const error = new AuthenticationError(init(401));
    expect(retryDelay(error, { retriesMade: 0 }, half, now)).toBe(0);
    expect(retryDelay(error, { retriesMade: 1, byAnswer: { 401: 1 } }, half, now)).toBeNull();
  });

  it("connection errors and timeouts back off with jitter, within the cap", () => {
    const connection = new APIConnectionError();
    const timeout = new APITimeoutError();
    expect(retryDelay(connection, { retriesMade: 1 }, half, now)).toBe(2_000 * 1.125);
    expect(retryDelay(timeout, { retriesMade: 2 }, half, now)).toBe(4_000 * 1.125);
    expect(retryDelay(timeout, { retriesMade: 5 }, half, now)).toBe(20_000);
  });

  it("answers without a rule are not retried", () => {
    expect(retryDelay(new BadRequestError(init(400)), { retriesMade: 0 }, half, now)).toBeNull();
    expect(retryDelay(new Error("x"), { retriesMade: 0 }, half, now)).toBeNull();
  });

  it("a 429's Retry-After is a floor, with up to one backoff step of jitter on top", () => {
    const hinted = (s: number) => new RateLimitError({ ...init(429), retryAfterSeconds: s });
    expect(retryDelay(hinted(3), { retriesMade: 1 }, half, now)).toBe(3_000 + 0.5 * 2_000);
    expect(retryDelay(hinted(60), { retriesMade: 0 }, half, now)).toBe(60_500);
    expect(retryDelay(hinted(0), { retriesMade: 0 }, half, now)).toBe(1_125);
    const still = { ...defaultRetryPolicy, jitter: 0 };
    expect(retryDelay(hinted(3), { retriesMade: 0 }, half, now, still)).toBe(3_000);
  });

  it("a 503 waits its Retry-After, at most maxRetryAfterSeconds", () => {
    const error = (after: string) =>
      new ServiceUnavailableError(init(503, { "retry-after": after }));
    expect(retryDelay(error("5"), { retriesMade: 0 }, half, now)).toBe(5_000);
    expect(retryDelay(error("600"), { retriesMade: 0 }, half, now)).toBe(60_000);
    expect(retryDelay(error("Tue, 01 Jan 2030 00:00:07 GMT"), { retriesMade: 0 }, half, now)).toBe(
      7_000,
    );
    expect(retryDelay(error("0"), { retriesMade: 0 }, half, now)).toBe(1_125);
  });
});

describe("the retry budget", () => {
  const config = { capacity: 20, retryCost: 14, throttlingRetryCost: 5, successRefund: 1 };

  it("charges a 429 less, a 401 nothing, everything else the retry cost", () => {
    const budget = new RetryBudget(config);
    expect(budget.cost("401")).toBe(0);
    expect(budget.cost("429")).toBe(5);
    for (const answer of ["500", "503", "connection", "timeout"] as const) {
      expect(budget.cost(answer)).toBe(14);
    }
  });

  it("spends down to exactly nothing, then refuses without spending", () => {
    const budget = new RetryBudget(config);
    expect(budget.take(14)).toBe(true);
    expect(budget.take(6)).toBe(true);
    expect(budget.tokens).toBe(0);
    expect(budget.take(1)).toBe(false);
    expect(budget.tokens).toBe(0);
  });

  it("refunds a retry's cost or successRefund, never past capacity", () => {
    const budget = new RetryBudget(config);
    budget.take(14);
    budget.succeeded(0);
    expect(budget.tokens).toBe(7);
    budget.succeeded(5);
    expect(budget.tokens).toBe(12);
    budget.succeeded(14);
    expect(budget.tokens).toBe(20);
  });
});

describe("the retry loop", () => {
  it("a retry that would pass the deadline is not started: APITimeoutError naming the last error", async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const error = await withRetries(
      async () => {
        attempts++;
        throw new ServiceUnavailableError(init(503, { "retry-after": "5" }));
      },
      { maxRetries: 3, clock, deadline: clock.monotonic() + 4_999 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      "The deadline comes before the next retry could be made (last error: GET /v1/me failed with 503).",
    );
    expect(attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("a retry that ends exactly at the deadline is still made", async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const value = await withRetries(
      async () => {
        attempts++;
        if (attempts === 1) throw new ServiceUnavailableError(init(503, { "retry-after": "5" }));
        return "ok";
      },
      { maxRetries: 3, clock, deadline: clock.monotonic() + 5_000 },
    );
    expect(value).toBe("ok");
    expect(clock.sleeps).toEqual([5_000]);
  });

  it("tells onRetry the error, the attempt that failed and the wait", async () => {
    const clock = new FakeClock();
    const seen: { error: unknown; attempt: number; delayMs: number }[] = [];
    const failure = new ServiceUnavailableError(init(503, { "retry-after": "3" }));
    let attempts = 0;
    await withRetries(
      async () => {
        if (++attempts < 3) throw failure;
        return 1;
      },
      { maxRetries: 2, clock, onRetry: (info) => seen.push(info) },
    );
    expect(seen).toEqual([
      { error: failure, attempt: 1, delayMs: 3_000 },
      { error: failure, attempt: 2, delayMs: 3_000 },
    ]);
  });

  it("a 401 without a fresh credential is thrown at once", async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const error = await withRetries(
      async () => {
        attempts++;
        throw new AuthenticationError(init(401));
      },
      { maxRetries: 2, clock, onUnauthorized: () => false },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(attempts).toBe(1);
  });

  it("a 401 retry with a fresh credential goes at once, with no sleep", async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const value = await withRetries(
      async () => {
        if (++attempts === 1) throw new AuthenticationError(init(401));
        return "ok";
      },
      { maxRetries: 2, clock, onUnauthorized: () => true },
    );
    expect(value).toBe("ok");
    expect(clock.sleeps).toEqual([]);
  });

  it("a 401 with no way to get a fresh credential is thrown at once", async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const error = await withRetries(
      async () => {
        attempts++;
        throw new AuthenticationError(init(401));
      },
      { maxRetries: 2, clock },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(attempts).toBe(1);
  });
});
