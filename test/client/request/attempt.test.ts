import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APIUserAbortError } from "../../../src/core/errors";
import { untilAborted } from "../../../src/core/http/request";
import type { Fetch } from "../../../src/core/http/wire";
import { FakeClock } from "../../support/fake-clock";
import { hang, type Recorded } from "../../support/fake-server";
import { httpOver, pingRequest } from "../../support/http";

/** A fetch that never answers until its request is aborted. */
const hanging: Fetch = (request) => hang({ signal: request.signal } as Recorded);

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
    const attempt = httpOver(hanging, { clock }).request(pingRequest(), {
      signal: controller.signal,
    });
    controller.abort();
    await expect(attempt).rejects.toBeInstanceOf(APIUserAbortError);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a signal shared by many calls keeps no listener once each call has settled", async () => {
    const clock = new FakeClock();
    const shared = countingSignal(new AbortController());
    for (let i = 0; i < 3; i++) {
      await httpOver(async () => new Response("ok"), { clock }).request(pingRequest(), {
        signal: shared.signal,
      });
    }
    expect(shared.listeners()).toBe(0);
  });
});

describe("one HTTP attempt", () => {
  const ping = (fetch: Fetch, signal?: AbortSignal) =>
    httpOver(fetch).request(pingRequest(), signal ? { signal } : {});

  it("with a signal already aborted, nothing is sent", async () => {
    let sent = 0;
    const controller = new AbortController();
    controller.abort();
    const fetch: Fetch = async () => {
      sent++;
      return new Response("ok");
    };
    await expect(ping(fetch, controller.signal)).rejects.toBeInstanceOf(APIUserAbortError);
    expect(sent).toBe(0);
  });

  it("the caller's abort while waiting for the answer is an APIUserAbortError", async () => {
    const controller = new AbortController();
    const attempt = ping(hanging, controller.signal);
    controller.abort();
    await expect(attempt).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it("a 300 answer is a redirect too, and is not followed", async () => {
    const redirect: Fetch = async () =>
      new Response(null, { status: 300, headers: { location: "/elsewhere" } });
    await expect(ping(redirect)).rejects.toThrow(
      "GET /v1/ping answered with a redirect (300), which is not followed.",
    );
  });

  it("waiting on a shared promise with a signal already aborted rejects at once with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error("gone");
    controller.abort(reason);
    await expect(untilAborted(new Promise(() => {}), controller.signal)).rejects.toBe(reason);
  });
});

describe("listeners on a long-lived signal", () => {
  it("waiting on a shared promise leaves no listener on the signal once it settles", async () => {
    const { signal, listeners } = countingSignal(new AbortController());
    await untilAborted(Promise.resolve("token"), signal);
    await untilAborted(Promise.reject(new Error("refused")), signal).catch(() => undefined);
    expect(listeners()).toBe(0);
  });

  it("where the runtime links signals (Node 20.3+), an attempt adds no listener to the caller's signal", async () => {
    const { signal, listeners } = countingSignal(new AbortController());
    let during = -1;
    const fetch: Fetch = async () => {
      during = listeners();
      return new Response("ok");
    };
    await httpOver(fetch).request(pingRequest(), { signal });
    expect(during).toBe(0);
  });
});
