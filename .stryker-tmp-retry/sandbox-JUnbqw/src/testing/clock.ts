// @ts-nocheck
import type { Clock } from "../internal/clock";

/**
 * `"real"`: wall time, moved forward further by `advance()`. `"manual"`: time stands still and moves
 * only by `advance()` or `runAll()`, so submissions progress and tokens expire exactly when a test
 * says so. `"auto"`: like `"manual"`, but whenever everything is waiting on the clock, time jumps to
 * the next pending timer by itself, so `await client.submitOrderAndWait(order)` just finishes.
 */
export type ClockMode = "real" | "manual" | "auto";

/** Options of {@link SandboxClock.runAll}. */
export interface RunAllOptions {
  /**
   * How many times time may jump to the next pending timer before `runAll` gives up with an error
   * (something keeps scheduling new work, e.g. a running `OrderMirror`).
   * @default 1000
   */
  maxSteps?: number;
}

/**
 * The sandbox's time. It is also an SDK `Clock`, so the same object can be given to a client and its
 * sleeps (backoff, `Retry-After`, polls) follow the sandbox's time too.
 */
export interface SandboxClock extends Clock {
  /** `"real"` follows the wall clock; `"manual"` moves only by `advance()`. */
  readonly mode: ClockMode;
  /** Moves time forward by `ms`, running every sandbox timer that falls due, in order. */
  advance(ms: number): void;
  /**
   * Runs time forward until nothing is pending: sandbox work (submissions moving on, the wait of
   * POST /v1/orders) and the sleeps of every client given this clock (`Retry-After`, backoff, polls).
   * Before each jump it lets the answers in flight arrive: requests the sandbox is handling and HTTP
   * exchanges of clients given this clock, so a poll lands at the time it was due. Resolves with the
   * number of jumps made; rejects when more than `maxSteps` would be needed.
   *
   * @example
   * const client = new PartnerOrders({ ...sandbox.credentials, baseUrl: sandbox.baseUrl,
   *   fetch: sandbox.fetch, clock: sandbox.clock });
   * const waiting = client.submitOrderAndWait(order);
   * await sandbox.clock.runAll();
   * const submission = await waiting; // completed, in no real time
   */
  runAll(options?: RunAllOptions): Promise<number>;
}

/** What the sandbox itself needs beyond the public clock: timers on sandbox time. */
export interface ClockTimers extends SandboxClock {
  /** Runs `run` once sandbox time reaches `atMs`; returns a cancel function. */
  schedule(atMs: number, run: () => void): () => void;
  /** Cancels every timer (on `sandbox.close()`). */
  dispose(): void;
  /** Marks a request the sandbox is handling: `runAll` waits for it unless it is parked. */
  serve<T>(work: Promise<T>): Promise<T>;
  /** Marks a handler waiting for sandbox time (POST /v1/orders' wait): that one does not hold time. */
  park<T>(work: Promise<T>): Promise<T>;
  /** Adds other work `runAll` waits for while `isBusy()` says so (webhook deliveries). */
  holdWhile(isBusy: () => boolean): void;
}

/** One turn of the event loop: pending I/O callbacks and every microtask run before it resolves. */
const turn = () =>
  new Promise<void>((resolve) =>
    typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

interface Timer {
  at: number;
  seq: number;
  run: () => void;
}

export function createSandboxClock(mode: ClockMode, startTime: number = Date.now()): ClockTimers {
  let offset = 0;
  let manualNow = startTime;
  let seq = 0;
  let armed: ReturnType<typeof setTimeout> | undefined;
  let driving = false;
  let disposed = false;
  const timers: Timer[] = [];
  const monotonicStart = performance.now();
  // What `runAll` waits for before a jump: exchanges of clients on this clock, requests the sandbox
  // is handling, the handlers among those that wait for sandbox time, and other busy work.
  const exchanges = new Set<Promise<unknown>>();
  const serving = new Set<Promise<unknown>>();
  let parked = 0;
  const holds: Array<() => boolean> = [];

  const now = () => (mode === "real" ? Date.now() + offset : manualNow);

  const takeDue = (limit: number): Timer | undefined => {
    let best = -1;
    for (let i = 0; i < timers.length; i++) {
      const t = timers[i] as Timer;
      if (t.at > limit) continue;
      const b = timers[best];
      if (!b || t.at < b.at || (t.at === b.at && t.seq < b.seq)) best = i;
    }
    return best < 0 ? undefined : timers.splice(best, 1)[0];
  };

  const nextDue = () => (timers.length === 0 ? undefined : Math.min(...timers.map((t) => t.at)));

  // Real mode keeps one host timer armed for the earliest sandbox timer; manual mode never does;
  // auto mode starts its driver.
  const arm = () => {
    if (mode === "auto") return void drive();
    if (mode !== "real") return;
    if (armed) clearTimeout(armed);
    armed = undefined;
    const next = nextDue();
    if (next === undefined) return;
    armed = setTimeout(fireDue, Math.max(0, next - now()));
  };

  const fireDue = () => {
    for (let t = takeDue(now()); t; t = takeDue(now())) t.run();
    arm();
  };

  const schedule = (atMs: number, run: () => void) => {
    const timer: Timer = { at: atMs, seq: seq++, run };
    timers.push(timer);
    arm();
    return () => {
      const i = timers.indexOf(timer);
      if (i >= 0) timers.splice(i, 1);
      arm();
    };
  };

  const advance = (ms: number) => {
    if (!(ms >= 0)) throw new RangeError("advance(ms) needs a non-negative number of milliseconds");
    if (mode === "real") {
      offset += ms;
      fireDue();
      return;
    }
    const target = manualNow + ms;
    // Each timer sees the time it was due at, so work scheduled by a timer lands at the right time.
    for (let t = takeDue(target); t; t = takeDue(target)) {
      manualNow = Math.max(manualNow, t.at);
      t.run();
    }
    manualNow = target;
  };

  // Busy: a handler not waiting for sandbox time, an exchange whose request has not reached the
  // sandbox or whose answer has not been read yet, or other work (webhook deliveries).
  const busy = () =>
    serving.size > parked || exchanges.size > serving.size || holds.some((isBusy) => isBusy());

  /** Lets everything that does not wait for sandbox time run until it does. */
  const settle = async () => {
    for (let quiet = 0; quiet < 3; ) {
      await turn();
      if (busy()) {
        quiet = 0;
        // Answers over a socket come in real time; look again shortly.
        await new Promise((resolve) => setTimeout(resolve, 1));
      } else quiet++;
    }
  };

  const runAll = async ({ maxSteps = 1000 }: RunAllOptions = {}) => {
    let steps = 0;
    await settle();
    for (let next = nextDue(); next !== undefined && !disposed; next = nextDue()) {
      if (steps >= maxSteps) {
        throw new Error(
          `sandbox.clock.runAll() stopped after ${maxSteps} steps with ${timers.length} timer(s) still pending (the next at +${Math.max(0, next - now())} ms): something keeps scheduling work (a running OrderMirror, a loop of polls). Raise maxSteps, or move time by a fixed amount with advance(ms).`,
        );
      }
      advance(Math.max(0, next - now()));
      steps++;
      await settle();
    }
    return steps;
  };

  // Auto mode: one background run at a time, started whenever a timer is scheduled.
  const drive = async () => {
    if (driving || disposed) return;
    driving = true;
    try {
      await runAll({ maxSteps: Number.POSITIVE_INFINITY });
    } finally {
      driving = false;
    }
  };

  const track = <T>(set: Set<Promise<unknown>>, work: Promise<T>): Promise<T> => {
    const settled = work.then(
      () => {},
      () => {},
    );
    set.add(settled);
    void settled.then(() => set.delete(settled));
    return work;
  };

  return {
    mode,
    now,
    monotonic: () =>
      mode === "real" ? performance.now() - monotonicStart + offset : manualNow - startTime,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          cancel();
          reject(signal?.reason);
        };
        const cancel = schedule(now() + Math.max(0, ms), () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        });
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    track(work) {
      track(exchanges, work);
    },
    advance,
    runAll,
    schedule,
    serve: (work) => track(serving, work),
    park(work) {
      parked++;
      return work.finally(() => {
        parked--;
      });
    },
    holdWhile(isBusy) {
      holds.push(isBusy);
    },
    dispose() {
      disposed = true;
      timers.length = 0;
      if (armed) clearTimeout(armed);
      armed = undefined;
    },
  };
}
