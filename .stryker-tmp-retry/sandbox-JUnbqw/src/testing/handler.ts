// @ts-nocheck
import { authenticate, type Transport } from "./auth";
import type { FaultList, FaultSpec } from "./faults";
import {
  AUTH_FAILURE_DETAIL,
  defaultCodeFor,
  defaultDetailFor,
  INTERNAL_ERROR_DETAIL,
  ProblemError,
  problem,
} from "./problem";
import type { Principal, RouteContext, RouteTable } from "./router";
import type { SandboxState } from "./state";

/** One request as the sandbox saw it (no Authorization header, no token-endpoint body: no secrets). */
export interface RequestLogEntry {
  /** The HTTP method. */
  method: string;
  /** The URL path, e.g. `/v1/orders/100001`. */
  path: string;
  /** The query string with its `?`, or `""`. */
  search: string;
  /** The route template matched, e.g. `/v1/orders/{orderNumber}`. */
  template: string | undefined;
  /** The id the sandbox gave the request, as in a problem document's `requestId`. */
  requestId: string;
  /** The answer's status; undefined when the connection was dropped. */
  status: number | undefined;
  /** Body text of requests that carry one (the token endpoint's is never kept). */
  body: string | undefined;
  /** Set when an injected fault shaped this request. */
  fault: boolean;
}

/** The real method of requests whose method a Fetch `Request` cannot carry (TRACE, TRACK). */
const realMethods = new WeakMap<Request, string>();

/** Records `method` as the method of `request` (built with a stand-in, see `server.ts`). */
export function withMethod(request: Request, method: string): Request {
  realMethods.set(request, method);
  return request;
}

const methodOf = (request: Request) => realMethods.get(request) ?? request.method;

/** What a listener does: write `response`, or drop the connection with no answer. */
export type HandleResult =
  | { response: Response; drop?: false }
  | { response?: undefined; drop: true };

/**
 * The one request path every listener (fetch, MSW, HTTP, HTTPS) goes through: count, apply faults,
 * authenticate (gateway first, API document "Authentication failure"), check scope, run the route,
 * and turn any thrown problem into a problem document.
 */
export function createPipeline(
  state: SandboxState,
  routes: RouteTable,
  faults: FaultList,
  log: RequestLogEntry[],
) {
  async function dispatch(
    request: Request,
    transport: Transport,
    requestId: string,
    principal?: Principal,
  ): Promise<Response> {
    const url = new URL(request.url);
    const match = routes.match(methodOf(request), url.pathname);
    const route = match?.route;
    // The mTLS host has no token endpoint (API document, Mutual TLS): the certificate is the credential.
    if (transport.kind === "mtls" && url.pathname.startsWith("/oauth2/"))
      return notFound(requestId);
    const who =
      route?.auth === "none" ? undefined : (principal ?? authenticate(state, request, transport));
    if (route?.auth !== "none" && !who) {
      return problem(401, "invalid_token", AUTH_FAILURE_DETAIL, requestId, {
        "www-authenticate": "Bearer",
      });
    }
    if (!match) return notFound(requestId);
    if (!match.route) {
      return problem(
        405,
        "method_not_allowed",
        `Use ${match.allow.join(", ")} on this path.`,
        requestId,
        {
          allow: match.allow.join(", "),
        },
      );
    }
    if (match.route.scope && !who?.scopes.includes(match.route.scope)) {
      return problem(
        403,
        "insufficient_scope",
        `This operation requires the scope ${match.route.scope}.`,
        requestId,
      );
    }
    const ctx: RouteContext = {
      request,
      url,
      query: url.searchParams,
      params: match.params,
      principal: who,
      requestId,
      state,
      callRest: (method, pathAndQuery, body) =>
        dispatch(
          new Request(new URL(pathAndQuery, url), {
            method,
            ...(body === undefined
              ? {}
              : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
          }),
          transport,
          requestId,
          who,
        ),
    };
    try {
      return await match.route.handle(ctx);
    } catch (error) {
      if (error instanceof ProblemError)
        return problem(error.status, error.code, error.detail, requestId, error.headers);
      // A fixed generic sentence, as the service's internal_error (API document, code catalog).
      return problem(500, "internal_error", INTERNAL_ERROR_DETAIL, requestId);
    }
  }

  async function handle(request: Request, transport: Transport): Promise<HandleResult> {
    const url = new URL(request.url);
    const requestId = crypto.randomUUID();
    const method = methodOf(request);
    const template = routes.match(method, url.pathname)?.route?.path;
    const key = `${method} ${template ?? url.pathname}`;
    state.counters.requests[key] = (state.counters.requests[key] ?? 0) + 1;
    const entry: RequestLogEntry = {
      method,
      path: url.pathname,
      search: url.search,
      template,
      requestId,
      status: undefined,
      body: request.body && template !== "/oauth2/token" ? await request.clone().text() : undefined,
      fault: false,
    };
    log.push(entry);

    const fault = faults.take(method, url.pathname, template);
    if (fault) {
      entry.fault = true;
      state.counters.faultsTriggered++;
      if (fault.delayMs) await realDelay(fault.delayMs, request.signal);
      if (fault.drop === "before") return { drop: true };
      if (fault.firewall) {
        // The edge firewall: no problem document, no requestId (API document, Errors rule 2).
        entry.status = 403;
        return { response: new Response(null, { status: 403 }) };
      }
      if (fault.status && !fault.after) {
        entry.status = fault.status;
        return { response: faultProblem(fault, fault.status, requestId) };
      }
    }
    const response = await dispatch(request, transport, requestId);
    if (fault?.drop === "after") {
      // The work is committed; only the answer is lost.
      await response.body?.cancel().catch(() => {});
      return { drop: true };
    }
    if (fault?.status && fault.after) {
      // The work is committed; the client sees only the injected error.
      await response.body?.cancel().catch(() => {});
      entry.status = fault.status;
      return { response: faultProblem(fault, fault.status, requestId) };
    }
    entry.status = response.status;
    return { response };
  }

  return { handle };
}

/** The problem document of an injected `status` fault. */
function faultProblem(fault: FaultSpec, status: number, requestId: string): Response {
  const headers: Record<string, string> = {};
  // A 429 always carries Retry-After (API document, code catalog: rate_limit_exceeded).
  const retryAfter = fault.retryAfter ?? (status === 429 ? 1 : undefined);
  if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
  if (status === 401) headers["www-authenticate"] = "Bearer";
  const code = fault.code ?? defaultCodeFor(status);
  return problem(status, code, fault.detail ?? defaultDetailFor(status), requestId, headers);
}

function notFound(requestId: string): Response {
  return problem(404, "not_found", "No such path.", requestId);
}

/** Fault delays are real time: they exist to exercise client timeouts, which run on real time. */
function realDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
