// @ts-nocheck
function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import { type Clock, startTimer } from "../internal/clock";
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, PartnerOrdersError } from "./errors";
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
 * The one request path's HTTP attempt (STYLE.md): every request, API, token and MCP, leaves here.
 * `run` gets a signal and the fetch to send with; the attempt is bounded by `timeoutMs` on the
 * client's clock (APITimeoutError), ended by the caller's signal (APIUserAbortError), a failure to
 * connect is an APIConnectionError, every request carries the SDK's User-Agent, and a redirect is
 * never followed (credentials must not leave the configured origin: API.md, Safety).
 *
 * `run` is started before the timer, so work it starts first (a token request bounded by the same
 * `timeoutMs`) gives up first, with its own error.
 */
export async function send<T>(exchange: Exchange, run: (signal: AbortSignal, fetch: Fetch) => Promise<T>): Promise<T> {
  if (stryMutAct_9fa48("0")) {
    {}
  } else {
    stryCov_9fa48("0");
    const {
      clock,
      signal,
      timeoutMs,
      method,
      path
    } = exchange;
    if (stryMutAct_9fa48("3") ? signal.aborted : stryMutAct_9fa48("2") ? false : stryMutAct_9fa48("1") ? true : (stryCov_9fa48("1", "2", "3"), signal?.aborted)) throw new APIUserAbortError();
    const timeout = new AbortController();
    // Ended by the timeout or the caller's signal. Linked without a listener where the runtime can
    // (Node 20.3+): a body read after the answer (an MCP event stream) stays abortable by the caller,
    // and a long-lived signal shared by many requests (the MCP SDK's) collects no listeners.
    let linked = timeout.signal;
    let unlink: (() => void) | undefined;
    if (stryMutAct_9fa48("5") ? false : stryMutAct_9fa48("4") ? true : (stryCov_9fa48("4", "5"), signal)) {
      if (stryMutAct_9fa48("6")) {
        {}
      } else {
        stryCov_9fa48("6");
        if (stryMutAct_9fa48("8") ? false : stryMutAct_9fa48("7") ? true : (stryCov_9fa48("7", "8"), AbortSignal.any)) linked = AbortSignal.any(stryMutAct_9fa48("9") ? [] : (stryCov_9fa48("9"), [signal, timeout.signal]));else {
          if (stryMutAct_9fa48("10")) {
            {}
          } else {
            stryCov_9fa48("10");
            const onAbort = stryMutAct_9fa48("11") ? () => undefined : (stryCov_9fa48("11"), (() => {
              const onAbort = () => timeout.abort();
              return onAbort;
            })());
            signal.addEventListener(stryMutAct_9fa48("12") ? "" : (stryCov_9fa48("12"), "abort"), onAbort, stryMutAct_9fa48("13") ? {} : (stryCov_9fa48("13"), {
              once: stryMutAct_9fa48("14") ? false : (stryCov_9fa48("14"), true)
            }));
            unlink = stryMutAct_9fa48("15") ? () => undefined : (stryCov_9fa48("15"), () => signal.removeEventListener(stryMutAct_9fa48("16") ? "" : (stryCov_9fa48("16"), "abort"), onAbort));
          }
        }
      }
    }
    const work = run(linked, stryMutAct_9fa48("17") ? () => undefined : (stryCov_9fa48("17"), request => deliver(exchange, request)));
    // On the client's clock: an injected test clock decides when an attempt has taken too long.
    const cancelTimer = startTimer(clock, timeoutMs, stryMutAct_9fa48("18") ? () => undefined : (stryCov_9fa48("18"), () => timeout.abort()));
    // A test clock (the sandbox's runAll) waits for the answer before it moves time on.
    stryMutAct_9fa48("19") ? clock.track(work) : (stryCov_9fa48("19"), clock.track?.(work));
    try {
      if (stryMutAct_9fa48("20")) {
        {}
      } else {
        stryCov_9fa48("20");
        return await work;
      }
    } catch (cause) {
      if (stryMutAct_9fa48("21")) {
        {}
      } else {
        stryCov_9fa48("21");
        if (stryMutAct_9fa48("24") ? signal.aborted : stryMutAct_9fa48("23") ? false : stryMutAct_9fa48("22") ? true : (stryCov_9fa48("22", "23", "24"), signal?.aborted)) throw new APIUserAbortError();
        if (stryMutAct_9fa48("26") ? false : stryMutAct_9fa48("25") ? true : (stryCov_9fa48("25", "26"), timeout.signal.aborted)) {
          if (stryMutAct_9fa48("27")) {
            {}
          } else {
            stryCov_9fa48("27");
            throw new APITimeoutError(stryMutAct_9fa48("28") ? `` : (stryCov_9fa48("28"), `${method} ${path()} timed out after ${Math.round(timeoutMs)} ms.`));
          }
        }
        if (stryMutAct_9fa48("30") ? false : stryMutAct_9fa48("29") ? true : (stryCov_9fa48("29", "30"), cause instanceof PartnerOrdersError)) throw cause;
        throw new APIConnectionError(stryMutAct_9fa48("31") ? `` : (stryCov_9fa48("31"), `${method} ${path()} failed: could not reach ${stryMutAct_9fa48("32") ? exchange.target && "the service" : (stryCov_9fa48("32"), exchange.target ?? (stryMutAct_9fa48("33") ? "" : (stryCov_9fa48("33"), "the service")))}.`), stryMutAct_9fa48("34") ? {} : (stryCov_9fa48("34"), {
          cause
        }));
      }
    } finally {
      if (stryMutAct_9fa48("35")) {
        {}
      } else {
        stryCov_9fa48("35");
        cancelTimer();
        stryMutAct_9fa48("36") ? unlink() : (stryCov_9fa48("36"), unlink?.());
      }
    }
  }
}
async function deliver(exchange: Exchange, request: Request): Promise<Response> {
  if (stryMutAct_9fa48("37")) {
    {}
  } else {
    stryCov_9fa48("37");
    const {
      channel,
      method,
      path
    } = exchange;
    // Every caller builds its request with redirect: "manual" (each path's tests check it): a copy
    // here would cost every call.
    const {
      agent,
      fetch
    } = channel;
    if (stryMutAct_9fa48("40") ? agent === undefined : stryMutAct_9fa48("39") ? false : stryMutAct_9fa48("38") ? true : (stryCov_9fa48("38", "39", "40"), agent !== undefined)) {
      if (stryMutAct_9fa48("41")) {
        {}
      } else {
        stryCov_9fa48("41");
        try {
          if (stryMutAct_9fa48("42")) {
            {}
          } else {
            stryCov_9fa48("42");
            // A User-Agent already on the request (the partner's headers) follows the SDK's.
            const given = request.headers.get(stryMutAct_9fa48("43") ? "" : (stryCov_9fa48("43"), "user-agent"));
            request.headers.set(stryMutAct_9fa48("44") ? "" : (stryCov_9fa48("44"), "user-agent"), given ? stryMutAct_9fa48("45") ? `` : (stryCov_9fa48("45"), `${agent} ${given}`) : agent);
          }
        } catch {
          // Immutable headers or a forbidden name on this runtime: send the request as it is.
        }
      }
    }
    // The one place the SDK's requests leave, unbound as a partner's fetch expects.
    const response = await fetch(request);
    if (stryMutAct_9fa48("48") ? response.status >= 300 || response.status < 400 : stryMutAct_9fa48("47") ? false : stryMutAct_9fa48("46") ? true : (stryCov_9fa48("46", "47", "48"), (stryMutAct_9fa48("51") ? response.status < 300 : stryMutAct_9fa48("50") ? response.status > 300 : stryMutAct_9fa48("49") ? true : (stryCov_9fa48("49", "50", "51"), response.status >= 300)) && (stryMutAct_9fa48("54") ? response.status >= 400 : stryMutAct_9fa48("53") ? response.status <= 400 : stryMutAct_9fa48("52") ? true : (stryCov_9fa48("52", "53", "54"), response.status < 400)))) {
      if (stryMutAct_9fa48("55")) {
        {}
      } else {
        stryCov_9fa48("55");
        throw new APIError(stryMutAct_9fa48("56") ? {} : (stryCov_9fa48("56"), {
          status: response.status,
          method,
          path: path(),
          headers: response.headers,
          message: stryMutAct_9fa48("57") ? `` : (stryCov_9fa48("57"), `${method} ${path()} answered with a redirect (${response.status}), which is not followed.`)
        }));
      }
    }
    return response;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts, whether or not its source listens to it. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (stryMutAct_9fa48("58")) {
    {}
  } else {
    stryCov_9fa48("58");
    return new Promise<T>((resolve, reject) => {
      if (stryMutAct_9fa48("59")) {
        {}
      } else {
        stryCov_9fa48("59");
        const onAbort = stryMutAct_9fa48("60") ? () => undefined : (stryCov_9fa48("60"), (() => {
          const onAbort = () => reject(signal.reason);
          return onAbort;
        })());
        if (stryMutAct_9fa48("62") ? false : stryMutAct_9fa48("61") ? true : (stryCov_9fa48("61", "62"), signal.aborted)) onAbort();else signal.addEventListener(stryMutAct_9fa48("63") ? "" : (stryCov_9fa48("63"), "abort"), onAbort, stryMutAct_9fa48("64") ? {} : (stryCov_9fa48("64"), {
          once: stryMutAct_9fa48("65") ? false : (stryCov_9fa48("65"), true)
        }));
        // Settling after an abort is ignored, a rejection included (never an unhandled one).
        promise.then(resolve, reject).finally(stryMutAct_9fa48("66") ? () => undefined : (stryCov_9fa48("66"), () => signal.removeEventListener(stryMutAct_9fa48("67") ? "" : (stryCov_9fa48("67"), "abort"), onAbort)));
      }
    });
  }
}