import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APIUserAbortError } from "../../src/core/errors";
import { type Channel, send } from "../../src/core/send";
import { FakeClock } from "../support/fake-clock";
import { hang, type Recorded } from "../support/fake-server";

/** A channel whose fetch never answers until its request is aborted. */
function hanging(): Channel {
  return {
    agent: undefined,
    fetch: (request) => hang({ signal: request.signal } as Recorded),
  };
}

/** A signal that counts the abort listeners it holds, as a long-lived shared signal would. */
function countingSignal(controller: AbortController) {
  const signal = controller.signal;
  let listeners = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, ...rest: [EventListener, AddEventListenerOptions]) => {
    if (type === "abort") listeners++;
    add(type, ...rest);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, ...rest: [EventListener]) => {
    if (type === "abort") listeners--;
    remove(type, ...rest);
  }) as typeof signal.removeEventListener;
  return { signal, listeners: () => listeners };
}

describe("on a runtime without AbortSignal.any (Node 20.0 to 20.2)", () => {
  const any = Object.getOwnPropertyDescriptor(AbortSignal, "any");
  beforeEach(() => {
    Object.defineProperty(AbortSignal, "any", { value: undefined, configurable: true });
  });
  afterEach(() => {
    if (any) Object.defineProperty(AbortSignal, "any", any);
  });

  it("the caller's abort still ends an attempt that is waiting for its answer", async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const attempt = send(
      {
        channel: hanging(),
        clock,
        timeoutMs: 30_000,
        signal: controller.signal,
        method: "GET",
        path: () => "/v1/ping",
      },
      (signal, fetch) => fetch(new Request("https://api.test/v1/ping", { signal })),
    );
    controller.abort();
    await expect(attempt).rejects.toBeInstanceOf(APIUserAbortError);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a signal shared by many calls keeps no listener once each call has settled", async () => {
    const clock = new FakeClock();
    const shared = countingSignal(new AbortController());
    for (let i = 0; i < 3; i++) {
      await send(
        {
          channel: { agent: undefined, fetch: async () => new Response("ok") },
          clock,
          timeoutMs: 30_000,
          signal: shared.signal,
          method: "GET",
          path: () => "/v1/ping",
        },
        async (signal, fetch) =>
          (await fetch(new Request("https://api.test/v1/ping", { signal }))).text(),
      );
    }
    expect(shared.listeners()).toBe(0);
  });
});
