import { defaultRetryPolicy } from "../../src/core/http/policy";
import { Http, type HttpConfig, type HttpRequest } from "../../src/core/http/request";
import { type Fetch, fetchWire } from "../../src/core/http/wire";
import { createLog } from "../../src/core/logger";
import { FakeClock } from "./fake-clock";

/** The HTTP layer over `fetch` alone: no token, no retry, a fake clock, nothing logged. */
export function httpOver(fetch: Fetch, config: Partial<HttpConfig> = {}): Http {
  return new Http({
    wire: fetchWire(fetch),
    agent: undefined,
    base: "https://api.test",
    tokens: undefined,
    clock: new FakeClock(),
    log: createLog(undefined, "off"),
    maxRetries: 0,
    retry: defaultRetryPolicy,
    budget: undefined,
    timeoutMs: 30_000,
    headers: {},
    ...config,
  });
}

/** GET /v1/ping as a request of the layer, its body read as text. */
export function pingRequest(): HttpRequest<string> {
  return {
    method: "GET",
    url: "https://api.test/v1/ping",
    path: "/v1/ping",
    headers: {},
    auth: false,
    read: (answer) => answer.text(),
  };
}
