import type { Clock } from "../internal/clock";

/**
 * `"real"`: wall time, moved forward further by `advance()`. `"manual"`: time stands still and moves
 * only by `advance()`, so submissions progress and tokens expire exactly when a test says so.
 */
export type ClockMode = "real" | "manual";

/**
 * The sandbox's time. It is also an SDK `Clock`, so the same object can be given to a client and its
 * sleeps (backoff, `Retry-After`, polls) follow the sandbox's time too.
 */
export interface SandboxClock extends Clock {
  /** `"real"` follows the wall clock; `"manual"` moves only by `advance()`. */
  readonly mode: ClockMode;
  /** Moves time forward by `ms`, running every sandbox timer that falls due, in order. */
  advance(ms: number): void;
}

/** What the sandbox itself needs beyond the public clock: timers on sandbox time. */
export interface ClockTimers extends SandboxClock {
  /** Runs `run` once sandbox time reaches `atMs`; returns a cancel function. */
  schedule(atMs: number, run: () => void): () => void;
  /** Cancels every timer (on `sandbox.close()`). */
  dispose(): void;
}

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
  const timers: Timer[] = [];
  const monotonicStart = performance.now();

  const now = () => (mode === "manual" ? manualNow : Date.now() + offset);

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

  // Real mode keeps one host timer armed for the earliest sandbox timer; manual mode never does.
  const arm = () => {
    if (mode !== "real") return;
    if (armed) clearTimeout(armed);
    armed = undefined;
    if (timers.length === 0) return;
    const next = Math.min(...timers.map((t) => t.at));
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

  return {
    mode,
    now,
    monotonic: () =>
      mode === "manual" ? manualNow - startTime : performance.now() - monotonicStart + offset,
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
    advance(ms) {
      if (!(ms >= 0))
        throw new RangeError("advance(ms) needs a non-negative number of milliseconds");
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
    },
    schedule,
    dispose() {
      timers.length = 0;
      if (armed) clearTimeout(armed);
      armed = undefined;
    },
  };
}
