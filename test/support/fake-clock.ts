import type { Clock } from "../../src/internal/clock";

interface Timer {
  at: number;
  seq: number;
  run: () => void;
}

/** How a {@link FakeClock} behaves beyond its defaults. */
export interface FakeClockOptions {
  /** Wall-clock start, epoch milliseconds. Default 2030-01-01T00:00:00Z. */
  start?: number;
  /** Monotonic start. Default 10,000. */
  monotonic?: number;
  /**
   * Another clock moved forward by the same amount whenever this one moves (by a sleep or by
   * `advance`): the sandbox's manual clock, so the service sees exactly the time the client slept
   * (submissions progress, tokens age). Moving only the follower (`sandbox.clock.advance`) moves
   * the service's time alone: a token can expire there while the client still believes it fresh.
   */
  follower?: { advance(ms: number): void };
  /**
   * Leave `setTimer` out, so attempts are timed by the host's timers (a test against a real server
   * whose slowness is real time). Default false: timers run on this clock.
   */
  hostTimers?: boolean;
  /**
   * Sleeps wait until the test moves time past them with `advance` (or `runNextTimer`), instead of
   * returning at once: for a loop whose every turn the test wants to step. Default false.
   */
  holdSleeps?: boolean;
}

/**
 * The one Clock for tests. By default `sleep` resolves at once, records what was asked and moves
 * both `now` and `monotonic` forward by that much, so backoff and polls cost no real time and can
 * be asserted. Timers (the per-attempt `timeoutMs`) fire only when fake time passes them: by a
 * sleep, by `advance`, or by `runNextTimer` (a server that never answers: see `stall` in
 * fake-server.ts). {@link FakeClockOptions} link it to a sandbox's clock, hand attempt timeouts to
 * the host, or hold sleeps until the test advances time.
 */
export class FakeClock implements Clock {
  /** Every sleep requested, in milliseconds, in order. */
  readonly sleeps: number[] = [];
  /** Every sleep that ran to its end (not aborted), in milliseconds, in the order they ended. */
  readonly woke: number[] = [];
  /** Runs `run` once `ms` of this clock's time have passed; absent with `hostTimers`. */
  readonly setTimer?: (ms: number, run: () => void) => () => void;
  #now: number;
  #monotonic: number;
  readonly #timers: Timer[] = [];
  #seq = 0;
  readonly #follower: FakeClockOptions["follower"];
  readonly #holdSleeps: boolean;

  /** `options` as a number is the wall-clock start. */
  constructor(options: number | FakeClockOptions = {}) {
    const o = typeof options === "number" ? { start: options } : options;
    this.#now = o.start ?? Date.UTC(2030, 0, 1);
    this.#monotonic = o.monotonic ?? 10_000;
    this.#follower = o.follower;
    this.#holdSleeps = o.holdSleeps ?? false;
    if (!o.hostTimers) this.setTimer = (ms, run) => this.#setTimer(ms, run);
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
    if (!this.#holdSleeps) {
      this.advance(ms);
      this.woke.push(ms);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = this.#setTimer(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        this.woke.push(ms);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #setTimer(ms: number, run: () => void): () => void {
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
    this.#follower?.advance(ms);
  }

  /**
   * Moves time to the earliest pending timer and runs it alone (timers due at the same time run one
   * per call, as a host's timers run in separate turns); false when none is pending.
   */
  runNextTimer(): boolean {
    const next = this.#takeDue(Number.POSITIVE_INFINITY);
    if (!next) return false;
    const from = this.#monotonic;
    this.#moveTo(Math.max(this.#monotonic, next.at));
    if (this.#monotonic > from) this.#follower?.advance(this.#monotonic - from);
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
