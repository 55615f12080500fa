/**
 * Time as the SDK sees it. Every wait (backoff, `Retry-After`, submission polls) goes through a
 * Clock so tests can inject one and run instantly while the defaults stay real.
 */
// @ts-nocheck

export interface Clock {
  /** Wall-clock milliseconds since the epoch (for `Retry-After` dates and webhook timestamps). */
  now(): number;
  /** Monotonic milliseconds; only differences mean anything (token expiry, deadlines). */
  monotonic(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it is aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Told of each HTTP exchange the SDK starts (the token, the request, the answer read), so a test
   * clock can let answers arrive before it moves time on (the sandbox's `clock.runAll()`).
   * Optional: a clock that does not need it leaves it out.
   */
  track?(exchange: Promise<unknown>): void;
  /**
   * Runs `run` once `ms` of this clock's time have passed; returns a function that cancels it. The
   * per-attempt timeout (`timeoutMs`) runs on it, so a test clock decides when an attempt times
   * out. Optional: a clock without it (one whose `sleep` resolves at once, say) has its attempts
   * timed by the host's timers, as a clock that resolved every timeout at once would fail every
   * call.
   */
  setTimer?(ms: number, run: () => void): () => void;
}

/** `run` after `ms` on `clock`'s timers when it has them, else on the host's; returns a cancel. */
export function startTimer(clock: Clock, ms: number, run: () => void): () => void {
  if (clock.setTimer) return clock.setTimer(ms, run);
  const timer = setTimeout(run, Math.max(0, ms));
  return () => clearTimeout(timer);
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
  setTimer: (ms, run) => {
    const timer = setTimeout(run, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};
