import { describe, expect, it } from "vitest";
import { RateLimitError, ServiceUnavailableError } from "../../../src/core/errors";
import { defaultRetryPolicy as retryPolicy } from "../../../src/core/http/policy";
import { retryDelay } from "../../../src/core/http/retry";

const state = (retriesMade: number) => ({ retriesMade });
const init = (status: number, headers: Record<string, string> = {}) => ({
  status,
  method: "GET",
  path: "/v1/orders",
  headers: new Headers(headers),
});
const maxJitter = () => 0.999_999;
const noJitter = () => 0;

describe("retry delays", () => {
  it("never exceed the 20 s cap, jitter included", () => {
    const error = new ServiceUnavailableError(init(503));
    for (let retries = 0; retries < 12; retries++) {
      expect(retryDelay(error, state(retries), maxJitter)).toBeLessThanOrEqual(
        retryPolicy.maxDelayMs,
      );
    }
    expect(retryDelay(error, state(10), noJitter)).toBe(retryPolicy.maxDelayMs);
  });

  it("double from about one second for a 503", () => {
    const error = new ServiceUnavailableError(init(503));
    expect(retryDelay(error, state(0), noJitter)).toBe(1_000);
    expect(retryDelay(error, state(1), noJitter)).toBe(2_000);
    expect(retryDelay(error, state(2), noJitter)).toBe(4_000);
  });

  it("back off for a 429 without Retry-After instead of retrying at once", () => {
    const error = new RateLimitError({ ...init(429), retryAfterSeconds: null });
    expect(retryDelay(error, state(0), noJitter)).toBeGreaterThanOrEqual(1_000);
    expect(retryDelay(error, state(1), noJitter)).toBeGreaterThanOrEqual(2_000);
  });

  it("keep Retry-After as the floor of a 429's wait, and refuse a hint over 60 s", () => {
    const hinted = new RateLimitError({ ...init(429), retryAfterSeconds: 7 });
    expect(retryDelay(hinted, state(0), noJitter)).toBe(7_000);
    expect(retryDelay(hinted, state(0), maxJitter)).toBeGreaterThan(7_000);
    const tooLong = new RateLimitError({ ...init(429), retryAfterSeconds: 61 });
    expect(retryDelay(tooLong, state(0), noJitter)).toBeNull();
  });
});
