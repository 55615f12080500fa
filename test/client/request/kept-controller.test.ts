import { describe, expect, it } from "vitest";
import { APITimeoutError } from "../../../src/core/errors";
import type { Http } from "../../../src/core/http/request";
import type { Wire, WireAnswer } from "../../../src/core/http/wire";
import type { Clock } from "../../../src/internal/clock";
import { FakeClock } from "../../support/fake-clock";
import { httpOver, pingRequest } from "../../support/http";

// A finished attempt's timeout controller may serve a later attempt, which makes no AbortSignal.
// That is safe only while nothing else holds its signal: a later attempt's timeout aborts it.

/** What the scripted wire answers: `released` as the undici wire tells it, or left out (fetch). */
function answer(released: (() => boolean) | undefined): WireAnswer {
  return {
    status: 200,
    header: () => null,
    headers: () => new Headers(),
    text: async () => "ok",
    response: () => new Response("ok"),
    discard: () => {},
    ...(released ? { released } : {}),
  };
}

/** Answers each request at once, or never (until aborted) when `hangs` says so. */
function scriptedWire(released: (() => boolean) | undefined) {
  const signals: AbortSignal[] = [];
  let hangNext = false;
  const wire: Wire = ({ signal }) => {
    signals.push(signal);
    if (!hangNext) return Promise.resolve(answer(released));
    hangNext = false;
    return new Promise((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason));
    });
  };
  return { wire, signals, hangNext: () => (hangNext = true) };
}

function http(wire: Wire, config: { clock?: Clock } = {}): Http {
  return httpOver(async () => new Response(""), { wire, timeoutMs: 1_000, ...config });
}

/** One attempt that hangs and times out on the fake clock. */
async function timeOut(layer: Http, clock: FakeClock, hangNext: () => void): Promise<unknown> {
  hangNext();
  const attempt = layer.request(pingRequest()).catch((error: unknown) => error);
  await clock.runNextTimerWhenSet();
  return attempt;
}

describe("the timeout controller of a finished attempt", () => {
  it("serves the next attempt when the wire has let its signal go", async () => {
    const { wire, signals } = scriptedWire(() => true);
    const layer = http(wire);
    await layer.request(pingRequest());
    await layer.request(pingRequest());
    expect(signals[1]).toBe(signals[0]);
  });

  it("is not kept while the wire still listens (a body read later): a later timeout leaves it be", async () => {
    const clock = new FakeClock();
    const { wire, signals, hangNext } = scriptedWire(() => false);
    const layer = http(wire, { clock });
    await layer.request(pingRequest());
    expect(await timeOut(layer, clock, hangNext)).toBeInstanceOf(APITimeoutError);
    expect(signals[1]).not.toBe(signals[0]);
    expect(signals[0]?.aborted).toBe(false);
  });

  it("is not kept from a wire that cannot tell (fetch)", async () => {
    const { wire, signals } = scriptedWire(undefined);
    const layer = http(wire);
    await layer.request(pingRequest());
    await layer.request(pingRequest());
    expect(signals[1]).not.toBe(signals[0]);
  });

  it("is not kept when the caller gave a signal: a later timeout never reaches that call", async () => {
    const clock = new FakeClock();
    const { wire, signals, hangNext } = scriptedWire(() => true);
    const layer = http(wire, { clock });
    await layer.request(pingRequest(), { signal: new AbortController().signal });
    expect(await timeOut(layer, clock, hangNext)).toBeInstanceOf(APITimeoutError);
    expect(signals[0]?.aborted).toBe(false);
  });

  it("is never aborted by its own timer fired late, by a clock whose cancel does nothing", async () => {
    const { clock, timers } = lateTimers();
    const { wire, signals } = scriptedWire(() => true);
    const layer = http(wire, { clock });
    await layer.request(pingRequest());
    for (const run of timers) run();
    await layer.request(pingRequest());
    expect(signals[1]).toBe(signals[0]);
    expect(signals[1]?.aborted).toBe(false);
  });

  it("is not kept when its timer fired while the answer was being read (a clock's timer run then)", async () => {
    const { clock, timers } = lateTimers();
    const signals: AbortSignal[] = [];
    const wire: Wire = async ({ signal }) => {
      signals.push(signal);
      return {
        ...answer(() => true),
        // The attempt's timer comes due while the body is read: the call still gets its answer.
        text: async () => {
          if (signals.length === 1) for (const run of timers) run();
          return "ok";
        },
      };
    };
    const layer = http(wire, { clock });
    const first = await layer.request({ ...pingRequest(), read: undefined, parse: (text) => text });
    expect(first.data).toBe("ok");
    expect(signals[0]?.aborted).toBe(true);
    await layer.request(pingRequest());
    expect(signals[1]).not.toBe(signals[0]);
    expect(signals[1]?.aborted).toBe(false);
  });
});

/** A clock whose timers run only when the test runs them, and whose cancel does nothing. */
function lateTimers(): { clock: Clock; timers: (() => void)[] } {
  const timers: (() => void)[] = [];
  const clock: Clock = {
    now: () => 0,
    monotonic: () => 0,
    sleep: async () => {},
    setTimer: (_ms, run) => {
      timers.push(run);
      return () => {};
    },
  };
  return { clock, timers };
}
