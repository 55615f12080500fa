/**
 * A scripted server behind a fake `fetch`: routes map `METHOD /path` to handlers, every request is
 * recorded (URL, headers, body text), and the token endpoint answers by default. A route given
 * several handlers answers the n-th request with the n-th handler, then repeats the last one.
 */

export interface Recorded {
  method: string;
  url: URL;
  /** `METHOD /path`, without the query string. */
  route: string;
  headers: Headers;
  body: string;
  signal: AbortSignal;
  /** The request's redirect mode: "manual" means fetch would not follow a 3xx. */
  redirect: RequestRedirect;
}

export type Handler = (request: Recorded, call: number) => Response | Promise<Response>;

export const baseUrl = "https://api.test";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A response whose body is exactly `text` (for number-exact money). */
export function raw(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function problem(
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({
      type: "about:blank",
      title: `Status ${status}`,
      status,
      code,
      detail: `Detail of ${code}.`,
      requestId: `req-${code}`,
      ...extra,
    }),
    { status, headers: { "content-type": "application/problem+json", ...headers } },
  );
}

/** A fetch that never answers; it rejects like fetch does when the request's signal aborts. */
export function hang(request: Recorded): Promise<Response> {
  return new Promise((_, reject) => {
    const abort = () => reject(request.signal.reason ?? new DOMException("aborted", "AbortError"));
    if (request.signal.aborted) abort();
    request.signal.addEventListener("abort", abort, { once: true });
  });
}

/**
 * A server that never answers while fake time runs on: the request hangs and `clock` moves from
 * timer to timer until the request is aborted (the client's `timeoutMs` or deadline fired), so a
 * timeout costs no real time.
 */
export function stall(clock: {
  runNextTimer(): boolean;
}): (request: Recorded) => Promise<Response> {
  return (request) => {
    const answer = hang(request);
    void (async () => {
      while (!request.signal.aborted && clock.runNextTimer()) {
        // Each timer that falls due runs; the client's timeout aborts the request. Over a socket
        // (test/support/wire.ts) that abort reaches the server a few event-loop turns later.
        for (let turn = 0; turn < 50 && !request.signal.aborted; turn++) {
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    })();
    return answer;
  };
}

/** What fetch does when the connection fails. */
export function connectionRefused(): never {
  throw new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") });
}

export interface TokenBody {
  access_token?: string;
  expires_in?: number;
  [key: string]: unknown;
}

export class FakeServer {
  /** Every request received, token requests included, in arrival order. */
  readonly requests: Recorded[] = [];
  readonly #routes = new Map<string, { handlers: Handler[]; calls: number }>();
  #tokens = 0;

  /** `origin` is the client's baseUrl; requests to any other origin are routed with it prefixed. */
  constructor(readonly origin: string = baseUrl) {
    this.on("POST /oauth2/token", () => {
      this.#tokens++;
      return json({
        access_token: `token-${this.#tokens}`,
        token_type: "Bearer",
        expires_in: 3600,
      });
    });
  }

  /** Routes `METHOD /path` (no query) to handlers used in turn; the last one repeats. */
  on(route: string, ...handlers: Handler[]): this {
    this.#routes.set(route, { handlers, calls: 0 });
    return this;
  }

  /** Requests to `route` (`METHOD /path`), in order. */
  to(route: string): Recorded[] {
    return this.requests.filter((r) => r.route === route);
  }

  /** The `index`-th request to `route` (or of all requests when `route` is omitted); throws when absent. */
  at(index: number, route?: string): Recorded {
    const list = route === undefined ? this.requests : this.to(route);
    const found = list[index];
    if (!found) throw new Error(`no request #${index}${route ? ` to ${route}` : ""}`);
    return found;
  }

  /** Requests other than to the token endpoint. */
  get apiRequests(): Recorded[] {
    return this.requests.filter((r) => r.route !== "POST /oauth2/token");
  }

  get tokenRequests(): Recorded[] {
    return this.to("POST /oauth2/token");
  }

  /** Pass as the client's `fetch` option. */
  readonly fetch = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const recorded: Recorded = {
      method: request.method,
      url,
      route: `${request.method} ${url.origin === this.origin ? "" : url.origin}${url.pathname}`,
      headers: new Headers(request.headers),
      body: await request.text(),
      signal: request.signal,
      redirect: request.redirect,
    };
    this.requests.push(recorded);
    const route = this.#routes.get(recorded.route);
    if (!route) return problem(404, "no_such_route", { detail: `No route ${recorded.route}` });
    const handler = route.handlers[Math.min(route.calls, route.handlers.length - 1)] as Handler;
    const call = route.calls++;
    return handler(recorded, call);
  }) as typeof fetch;
}
