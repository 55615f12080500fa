import type { Clock } from "../../src/internal/clock";

/**
 * A Clock for tests: `sleep` resolves at once, records what was asked and moves both `now` and
 * `monotonic` forward by that much, so backoff and polls cost no real time and can be asserted.
 */
export class FakeClock implements Clock {
  /** Every sleep requested, in milliseconds, in order. */
  readonly sleeps: number[] = [];
  #now: number;
  #monotonic: number;

  constructor(start = Date.UTC(2030, 0, 1)) {
    this.#now = start;
    this.#monotonic = 10_000;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#monotonic;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.advance(ms);
  }

  /** Moves time forward without a sleep (the world went on while the client was idle). */
  advance(ms: number): void {
    this.#now += ms;
    this.#monotonic += ms;
  }
}
