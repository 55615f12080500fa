import { type Clock, startTimer } from "../internal/clock";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  PartnerOrdersError,
} from "./errors";

export type Fetch = (request: Request) => Promise<Response>;

/** How a client's requests leave: its fetch (custom, global or mutual TLS) and its User-Agent. */
export interface Channel {
  fetch: Fetch;
  /** The SDK's User-Agent; undefined in a browser, which sends its own. */
  agent: string | undefined;
}

/** One HTTP attempt: an API call, the token request or an MCP request. */
export interface Exchange {
  channel: Channel;
  clock: Clock;
  timeoutMs: number;
  /** The caller's signal: its abort ends the attempt with {@link APIUserAbortError}. */
  signal?: AbortSignal | undefined;
  method: string;
  /** The path for messages (no query string); only built when one is written. */
  path: () => string;
  /** What a connection error could not reach. @default "the service" */
  target?: string;
}

/**
 * The one request path's HTTP attempt: every request, API, token and MCP, leaves here.
 * `run` gets a signal and the fetch to send with; the attempt is bounded by `timeoutMs` on the
 * client's clock (APITimeoutError), ended by the caller's signal (APIUserAbortError), a failure to
 * connect is an APIConnectionError, every request carries the SDK's User-Agent, and a redirect is
 * never followed (credentials must not leave the configured origin).
 *
 * `run` is started before the timer, so work it starts first (a token request bounded by the same
 * `timeoutMs`) gives up first, with its own error.
 */
export async function send<T>(
  exchange: Exchange,
  run: (signal: AbortSignal, fetch: Fetch) => Promise<T>,
): Promise<T> {
  const { clock, signal, timeoutMs, method, path } = exchange;
  if (signal?.aborted) throw new APIUserAbortError();
  const timeout = new AbortController();
  // Ended by the timeout or the caller's signal. Linked without a listener where the runtime can
  // (Node 20.3+): a body read after the answer (an MCP event stream) stays abortable by the caller,
  // and a long-lived signal shared by many requests (the MCP SDK's) collects no listeners.
  let linked = timeout.signal;
  let unlink: (() => void) | undefined;
  if (signal) {
    if (AbortSignal.any) linked = AbortSignal.any([signal, timeout.signal]);
    else {
      const onAbort = () => timeout.abort();
      // An abort event fires once; `unlink` removes the listener after the attempt either way.
      signal.addEventListener("abort", onAbort);
      unlink = () => signal.removeEventListener("abort", onAbort);
    }
  }
  const work = run(linked, (request) => deliver(exchange, request));
  // On the client's clock: an injected test clock decides when an attempt has taken too long.
  const cancelTimer = startTimer(clock, timeoutMs, () => timeout.abort());
  // A test clock (the sandbox's runAll) waits for the answer before it moves time on.
  clock.track?.(work);
  try {
    return await work;
  } catch (cause) {
    if (signal?.aborted) throw new APIUserAbortError();
    if (timeout.signal.aborted) {
      throw new APITimeoutError(`${method} ${path()} timed out after ${Math.round(timeoutMs)} ms.`);
    }
    if (cause instanceof PartnerOrdersError) throw cause;
    throw new APIConnectionError(
      `${method} ${path()} failed: could not reach ${exchange.target ?? "the service"}.`,
      { cause },
    );
  } finally {
    cancelTimer();
    unlink?.();
  }
}

async function deliver(exchange: Exchange, request: Request): Promise<Response> {
  const { channel, method, path } = exchange;
  // Every caller builds its request with redirect: "manual" (each path's tests check it): a copy
  // here would cost every call.
  const { agent, fetch } = channel;
  if (agent !== undefined) {
    try {
      // A User-Agent already on the request (the partner's headers) follows the SDK's.
      const given = request.headers.get("user-agent");
      request.headers.set("user-agent", given ? `${agent} ${given}` : agent);
    } catch {
      // Immutable headers or a forbidden name on this runtime: send the request as it is.
    }
  }
  // The one place the SDK's requests leave, unbound as a partner's fetch expects.
  const response = await fetch(request);
  if (response.status >= 300 && response.status < 400) {
    throw new APIError({
      status: response.status,
      method,
      path: path(),
      headers: response.headers,
      message: `${method} ${path()} answered with a redirect (${response.status}), which is not followed.`,
    });
  }
  return response;
}

/** `promise`, or a rejection as soon as `signal` aborts, whether or not its source listens to it. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    // An abort event fires once; the listener is removed when the promise settles.
    else signal.addEventListener("abort", onAbort);
    // Settling after an abort is ignored, a rejection included (never an unhandled one).
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
