import type { Clock } from "../../internal/clock";
import { APITimeoutError, RateLimitError } from "../errors";
import type { Log } from "../logger";
import type { RateLimitGate } from "../rate-limit-gate";
import type { RetryPolicy } from "./policy";
import type { AttemptWrapper } from "./request";

/** A gate that fails is logged and ignored: it saves 429s, it never stops a call. */
export function gateAttempts(
  gate: RateLimitGate,
  clock: Clock,
  log: Log,
  policy: RetryPolicy,
): AttemptWrapper {
  const unavailable = (cause: unknown) =>
    // The error's name only: a Redis client's message can carry its URL and password.
    log.warn("rate-limit gate unavailable; sending without it", {
      error: cause instanceof Error ? cause.name : typeof cause,
    });
  return async (attempt, { method, path, options }) => {
    let waitMs: number | undefined;
    try {
      waitMs = await gate.waitMs();
    } catch (cause) {
      unavailable(cause);
    }
    // No number (undefined, NaN): open.
    if (waitMs !== undefined && waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      const ceiling = policy.maxRetryAfterSeconds;
      // Bounded like a local Retry-After: past the ceiling the call throws at once.
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
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof RateLimitError && error.retryAfterSeconds) {
        await gate.close(error.retryAfterSeconds * 1000).catch(unavailable);
      }
      throw error;
    }
  };
}
