// @ts-nocheck
import type { Clock } from "../../src/internal/clock";

interface Timer {
  at: number;
  seq: number;
  run: () => void;
}

/**
 * A Clock for tests: `sleep` resolves at once, records what was asked and moves both `now` and
 * `monotonic` forward by that much, so backoff and polls cost no real time and can be asserted.
 * Timers (the per-attempt `timeoutMs`) fire only when fake time passes them: by a sleep, by
 * `advance`, or by `runNextTimer` (a server that never answers: see `stall` in fake-server.ts).
 */
export class FakeClock implements Clock {
  /** Every sleep requested, in milliseconds, in order. */
  readonly sleeps: number[] = [];
  #now: number;
  #monotonic: number;
  readonly #timers: Timer[] = [];
  #seq = 0;

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

  setTimer(ms: number, run: () => void): () => void {
    const timer: Timer = { at: this.#monotonic + Math.max(0, ms), seq: this.#seq++, run };
    this.#timers.push(timer);
    return () => {
      const i = this.#timers.indexOf(timer);
      if (i >= 0) this.#timers.splice(i, 1);
    };
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward without a sleep (the world went on while the client was idle). */
  advance(ms: number): void {
    const target = this.#monotonic + ms;
    for (let timer = this.#takeDue(target); timer; timer = this.#takeDue(target)) {
      this.#moveTo(Math.max(this.#monotonic, timer.at));
      timer.run();
    }
    this.#moveTo(target);
  }

  /**
   * Moves time to the earliest pending timer and runs it alone (timers due at the same time run one
   * per call, as a host's timers run in separate turns); false when none is pending.
   */
  runNextTimer(): boolean {
    const next = this.#takeDue(Number.POSITIVE_INFINITY);
    if (!next) return false;
    this.#moveTo(Math.max(this.#monotonic, next.at));
    next.run();
    return true;
  }

  /**
   * Waits (event-loop turns only, no real time) until a timer is pending, then runs it: for a call
   * stuck on something that never settles, outside any fetch.
   */
  async runNextTimerWhenSet(turns = 100): Promise<void> {
    for (let i = 0; i < turns; i++) {
      if (this.runNextTimer()) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error("no timer was set");
  }

  #takeDue(limit: number): Timer | undefined {
    let best = -1;
    for (let i = 0; i < this.#timers.length; i++) {
      const t = this.#timers[i] as Timer;
      const b = this.#timers[best];
      if (t.at <= limit && (!b || t.at < b.at || (t.at === b.at && t.seq < b.seq))) best = i;
    }
    return best < 0 ? undefined : this.#timers.splice(best, 1)[0];
  }

  #moveTo(monotonic: number): void {
    this.#now += monotonic - this.#monotonic;
    this.#monotonic = monotonic;
  }
}
